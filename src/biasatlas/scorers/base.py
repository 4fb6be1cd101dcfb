"""The scorer contract: answer probes, describe yourself for provenance.

A scorer receives a list of probes of any kind and returns one answer per probe id.
Scorers group probes by kind, so benchmarks may mix kinds freely. A scorer that cannot
answer a kind raises :class:`~biasatlas.errors.UnsupportedProbe` with the reason.
"""

from __future__ import annotations

import abc
import math
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import UnsupportedProbe
from ..probes import Answer, ContinuationProbe, PairProbe, Probe, SentenceProbe, SlotProbe

Progress = Callable[[int], None]


def _finite(answer: Answer) -> bool:
    values = [v for k, v in vars(answer).items() if k.startswith(("score", "logprob"))]
    flat = [x for v in values for x in (v if isinstance(v, tuple) else (v,))]
    return all(math.isfinite(x) for x in flat)
"""Called with the number of probes just answered, so a CLI can draw a progress bar."""


class Scorer(abc.ABC):
    """Base class: dispatches probes by kind to the ``_pairs``/``_slots``/``_sentences`` hooks."""

    name: str = "scorer"
    #: The pair-scoring variant (METHODS.md §2, "Other variants"); recorded in results.
    variant: str = ""

    def score(self, probes: Sequence[Probe], progress: Progress | None = None) -> dict[str, Answer]:
        """Answer every probe it can; returns ``{probe.id: answer}``.

        A probe the scorer cannot answer (a sentence longer than the model's maximum
        length, a filler with no token of its own) or whose answer is not finite is left
        out and its reason kept in :attr:`unscorable`, never turned into a number.
        """
        tick = progress or (lambda n: None)
        answers: dict[str, Answer] = {}
        for kind, hook in ((PairProbe, self._pairs), (SlotProbe, self._slots),
                           (ContinuationProbe, self._continuations),
                           (SentenceProbe, self._sentences)):
            group = [p for p in probes if isinstance(p, kind)]
            if group:
                answers.update(self._answer_group(hook, group, tick))
        for pid in [pid for pid, a in answers.items() if not _finite(a)]:
            del answers[pid]
            self.unscorable[pid] = "non-finite score from the model"
        return answers

    @property
    def unscorable(self) -> dict[str, str]:
        """Probe id → why it has no answer, for every probe this scorer left out."""
        if "_unscorable" not in self.__dict__:
            self._unscorable: dict[str, str] = {}
        return self._unscorable

    def _answer_group(self, hook: Callable, group: list, tick: Progress) -> dict[str, Answer]:
        try:
            return {a.id: a for a in hook(group, tick)}
        except UnsupportedProbe:
            if len(group) == 1:
                raise
        # Isolate the probes that cannot be answered; if none can, the kind itself is
        # unsupported and the error stands.
        answers: dict[str, Answer] = {}
        failures: dict[str, str] = {}
        for probe in group:
            try:
                answers.update({a.id: a for a in hook([probe], tick)})
            except UnsupportedProbe as exc:
                failures[probe.id] = str(exc)
        if not answers:
            raise UnsupportedProbe(next(iter(failures.values())))
        self.unscorable.update(failures)
        return answers

    def _pairs(self, probes: list[PairProbe], tick: Progress) -> list[Answer]:
        raise UnsupportedProbe(f"the {self.name} scorer does not answer pair probes")

    def _slots(self, probes: list[SlotProbe], tick: Progress) -> list[Answer]:
        raise UnsupportedProbe(f"the {self.name} scorer does not answer slot probes")

    def _continuations(self, probes: list[ContinuationProbe], tick: Progress) -> list[Answer]:
        raise UnsupportedProbe(f"the {self.name} scorer does not answer continuation probes "
                               "(conditional likelihoods need a causal or seq2seq LM)")

    def _sentences(self, probes: list[SentenceProbe], tick: Progress) -> list[Answer]:
        raise UnsupportedProbe(f"the {self.name} scorer does not answer sentence probes")

    def plan(self, probes: Sequence[Probe]) -> dict[str, int]:
        """The distinct model inputs these probes need, counted by a dry run.

        The scorer's own planning code runs with ``logprob_sums`` (the one method that
        calls the model) replaced by a recorder, so the count is exactly what an
        uncached run computes, and it does not change when a resumed run finds most
        answers in the cache. Scorers without a model return ``{}``.
        """
        if not hasattr(self, "logprob_sums"):
            return {}
        calls: list[list[Any]] = []

        def record(requests: Sequence[Any]) -> list[float]:
            calls.append([r[0] if isinstance(r, tuple) else r for r in requests])
            return [0.0] * len(requests)

        self.logprob_sums = record  # type: ignore[method-assign]  # shadows the method
        try:
            self.score(probes)
        finally:
            del self.logprob_sums
        rows = {r for call in calls for r in call}
        encoders = {getattr(r, "encoder", None) for r in rows} - {None}
        out = {"rows_computed": len(rows), "batches": self._planned_batches(calls, len(rows))}
        return {**out, "encoder_rows": len(encoders)} if encoders else out

    def _planned_batches(self, calls: list[list[Any]], n_rows: int) -> int:
        """Batches for the rows of ``calls`` (one list per ``logprob_sums`` call):
        ``batch_size`` distinct rows per batch, unless a scorer cuts batches otherwise."""
        batch = max(int(getattr(self, "batch_size", 1)), 1)
        return -(-n_rows // batch)

    @abc.abstractmethod
    def describe(self) -> dict[str, Any]:
        """Provenance: everything that determines the scores (model hashes, variant, dtype…)."""

    def fingerprint(self) -> str:
        """A stable key for caches: a hash of what :meth:`describe` says determines scores."""
        import hashlib
        import json

        # Batch size and device must not change scores; the folder and the name the user
        # typed do not either, when the files' hashes say what the weights are.
        described = self.describe()
        volatile = {"batch_size", "device"}
        if described.get("file_sha256") or described.get("revision"):
            volatile |= {"location", "model"}
        desc = {k: v for k, v in described.items() if k not in volatile}
        blob = json.dumps(desc, sort_keys=True, default=str).encode()
        return hashlib.sha256(blob).hexdigest()[:16]
