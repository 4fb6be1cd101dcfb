"""The scorer contract: answer probes, describe yourself for provenance.

A scorer receives a list of probes of any kind and returns one answer per probe id.
Scorers group probes by kind, so benchmarks may mix kinds freely. A scorer that cannot
answer a kind raises :class:`~biasatlas.errors.UnsupportedProbe` with the reason.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import UnsupportedProbe
from ..probes import Answer, PairProbe, Probe, SentenceProbe, SlotProbe

Progress = Callable[[int], None]
"""Called with the number of probes just answered, so a CLI can draw a progress bar."""


class Scorer(abc.ABC):
    """Base class: dispatches probes by kind to the ``_pairs``/``_slots``/``_sentences`` hooks."""

    name: str = "scorer"
    #: The pair-scoring variant (METHODS.md §2, "Other variants"); recorded in results.
    variant: str = ""

    def score(self, probes: Sequence[Probe], progress: Progress | None = None) -> dict[str, Answer]:
        """Answer every probe; returns ``{probe.id: answer}``."""
        tick = progress or (lambda n: None)
        answers: dict[str, Answer] = {}
        for kind, hook in ((PairProbe, self._pairs), (SlotProbe, self._slots),
                           (SentenceProbe, self._sentences)):
            group = [p for p in probes if isinstance(p, kind)]
            if group:
                for answer in hook(group, tick):
                    answers[answer.id] = answer
        return answers

    def _pairs(self, probes: list[PairProbe], tick: Progress) -> list[Answer]:
        raise UnsupportedProbe(f"the {self.name} scorer does not answer pair probes")

    def _slots(self, probes: list[SlotProbe], tick: Progress) -> list[Answer]:
        raise UnsupportedProbe(f"the {self.name} scorer does not answer slot probes")

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
        seen: list[Any] = []

        def record(requests: Sequence[Any]) -> list[float]:
            seen.extend(requests)
            return [0.0] * len(requests)

        self.logprob_sums = record  # type: ignore[method-assign]  # shadows the method
        try:
            self.score(probes)
        finally:
            del self.logprob_sums
        rows = {r[0] if isinstance(r, tuple) else r for r in seen}
        encoders = {getattr(r, "encoder", None) for r in rows} - {None}
        batch = max(int(getattr(self, "batch_size", 1)), 1)
        out = {"rows_computed": len(rows), "batches": -(-len(rows) // batch)}
        return {**out, "encoder_rows": len(encoders)} if encoders else out

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
