"""A Winogender summary: shares against BLS with intervals, by referent, gotchas; and its typed read-back.

``summarise`` writes the headline (every context: mean female share over occupations, Pearson's r
and Spearman's ρ with ``bls_pct_female``, their p-values and intervals), the same by referent
(``by_referent.occupation`` is the closest analogue of the paper's Table 1: the pronoun refers to
the occupation), the gotcha rates, the mean neutral share, and one row per occupation (the scatter).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict, cast

from ...runs.checks import Interval, WithIntervals, interval_of
from ...runs.view import Column
from ...runs.typed import Summary, same_object, when_set
from ...stats import mean_interval
from .analysis import ContextScore, against_bls, by_referent, gotchas, occupation_shares

#: The items.jsonl fields the report reads.
COLUMNS: tuple[Column, ...] = (
    Column("id"), Column("occupation", "string"), Column("referent", "string"), Column("gotcha", "string"),
    Column("bls_pct_female", "number"), Column("female_share", "number"), Column("took_gotcha", "number"))


def _occupations(scores: Sequence[ContextScore]) -> dict[str, dict[str, Any]]:
    """Per occupation: its BLS share, its female share over all its contexts and over those whose
    pronoun refers to it, and its context count."""
    own = occupation_shares([s for s in scores if s.context.referent == "occupation"])
    out: dict[str, dict[str, Any]] = {}
    for occupation, share in occupation_shares(scores).items():
        chosen = [s for s in scores if s.context.occupation == occupation]
        out[occupation] = {"bls_pct_female": chosen[0].context.bls_pct_female, "female_pct": share,
                           "female_pct_occupation_referent": own.get(occupation), "n_contexts": len(chosen)}
    return out


@dataclass(frozen=True)
class ShareSet(WithIntervals):
    """The shares of one set of contexts against BLS."""

    n_occupations: float | None = None
    n_contexts: float | None = None
    female_pct: float | None = None
    pearson: float | None = None
    pearson_p: float | None = None
    spearman: float | None = None
    spearman_p: float | None = None
    intervals: Mapping[str, Interval | None] = field(default_factory=dict)


@dataclass(frozen=True)
class Gotcha:
    """One referent's gotcha rate (% of its gotcha contexts that took the gotcha) and its interval."""

    n: float | None = None
    gotcha_pct: float | None = None
    interval: Interval | None = None


class OccupationRow(TypedDict, total=False):
    """One occupation's BLS share and female shares (%), and its context count."""

    bls_pct_female: float
    female_pct: float
    female_pct_occupation_referent: float | None
    n_contexts: float


@dataclass(frozen=True)
class WinogenderRunSummary(Summary):
    """Every context's shares, by referent, the gotcha rates and the per-occupation rows."""

    overall: ShareSet = same_object(ShareSet)
    by_referent: Mapping[str, ShareSet] = field(default_factory=dict)
    gotcha: Mapping[str, Gotcha] = field(default_factory=dict)
    n_ties: float | None = None
    neutral_pct: float | None = None
    neutral_interval: Interval | None = None
    occupations: Mapping[str, OccupationRow] = field(default_factory=dict)
    n_skipped: float | None = None
    reading: str | None = None
    dataset: str | None = when_set()


def summarise(scores: Sequence[ContextScore], *, n_resamples: int, seed: int, n_skipped: int, reading: str,
              dataset: str | None) -> WinogenderRunSummary:
    """The summary of ``scores`` (see the module docstring)."""
    boot = {"n_resamples": n_resamples, "seed": seed}
    neutral = [100.0 * v for v in (s.neutral_share for s in scores) if v is not None]
    by_ref = {r: ShareSet(**shares) for r, shares in by_referent(scores, **boot).items()}
    rates = {name: Gotcha(**rate) for name, rate in gotchas(scores, **boot).items()}
    return WinogenderRunSummary(ShareSet(**against_bls(scores, **boot)), by_ref, rates,
                                sum(s.preferred == "tie" for s in scores),
                                sum(neutral) / len(neutral) if neutral else None,
                                interval_of(mean_interval(neutral, **boot)),
                                cast(Mapping[str, OccupationRow], _occupations(scores)), n_skipped, reading, dataset)
