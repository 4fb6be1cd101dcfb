"""Probes a group of them cannot score: found by trying each alone, and left out.

A scorer answers a kind's probes as one group, batched together. A probe that turns out
unscorable (:class:`~biasatlas.errors.UnscorableProbe`: too long for the model, a filler with no
token of its own) must not fail the group, nor be turned into a number: it is skipped with its
reason. :func:`each_alone` answers a failed group probe by probe (a scorer's hooks);
:func:`scorable_jobs` finds the failing probes while a model scorer's jobs are built, before any
runs, and batches the others together as a group without them would be.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from ..errors import UnscorableProbe, UnsupportedProbe
from ..probes import Probe
from .job import Job

P = TypeVar("P", bound=Probe)


def each_alone(attempt: Callable[[list[P]], None], group: list[P]) -> dict[str, str]:
    """Run ``attempt`` on ``group``; if a probe of it is unsupported, on each probe alone.

    Returns probe id → why, for the probes that failed alone. A probe that is unscorable
    on its own (:class:`~biasatlas.errors.UnscorableProbe`: too long, no token of its own) is
    always just skipped, even when every probe of the group is one: a batch of long sentences
    says nothing about the run, which decides for itself (it stops only when no probe of it
    was answered). If every probe fails and a failure is of the kind or variant itself
    (a plain :class:`~biasatlas.errors.UnsupportedProbe`), the first such error stands.
    Shared by :meth:`Scorer.score` and :meth:`ModelScorer.plan`, so a plan isolates failures
    exactly as a run does (and counts the work a failing group did before it stopped, which
    a run does too).
    """
    try:
        attempt(group)
        return {}
    except UnscorableProbe as exc:
        if len(group) == 1:
            return {group[0].id: str(exc)}
    except UnsupportedProbe:
        if len(group) == 1:
            raise
    return failing_alone(attempt, group)


def failing_alone(attempt: Callable[[list[P]], None], group: list[P]) -> dict[str, str]:
    """``attempt`` on each probe of ``group`` alone: the probes that failed, with why (the rule of
    :func:`each_alone` once the group as a whole failed)."""
    failures: dict[str, str] = {}
    of_the_kind: UnsupportedProbe | None = None
    for probe in group:
        try:
            attempt([probe])
        except UnsupportedProbe as exc:
            failures[probe.id] = str(exc)
            if not isinstance(exc, UnscorableProbe):
                of_the_kind = of_the_kind or exc
    if of_the_kind is not None and len(failures) == len(group):
        raise of_the_kind
    return failures


def scorable_jobs(build: Callable[[list[P]], Iterable[Job]], group: list[P]) -> tuple[list[Job], dict[str, str]]:
    """The jobs of ``group`` (``build``: its kind's job builder), every one built before any runs,
    and the probes left out, with why.

    Why all first: building touches only the tokenizer, and it is where a probe turns out
    unscorable (too long, a filler with no token of its own). Found then, such a probe is left
    out and the others are built and batched together, as a group without it would be; found
    after other jobs ran, the group would be scored again probe by probe (:func:`each_alone`),
    every probe batched alone, and the answers kept from the batches that ran first would not be
    the ones the run ends with. The rule is :func:`each_alone`'s: each probe built alone tells
    whether it fails; when all fail, one of the kind itself stands.
    """
    try:
        return list(build(group)), {}
    except UnscorableProbe as exc:
        if len(group) == 1:
            return [], {group[0].id: str(exc)}
    except UnsupportedProbe:
        if len(group) == 1:
            raise
    def attempt(probes: list[P]) -> None:
        list(build(probes))

    refused = failing_alone(attempt, group)
    rest = [p for p in group if p.id not in refused]
    return (list(build(rest)) if rest else []), refused
