"""A deterministic scorer that needs no torch: for tests, tutorials and pipeline checks.

Scores are derived from a hash of the text, so they are stable across runs, machines and
Python versions, and different texts almost never tie. ``bias`` adds a chosen amount to
any text containing one of ``boost`` words, so tests can build a scorer with a known
preference (e.g. one that always prefers male words).
"""

from __future__ import annotations

import hashlib
from typing import Any

from ..probes import (ContinuationProbe, PairAnswer, PairProbe, ScorerInfo, SentenceAnswer,
                      SentenceProbe, SlotAnswer, SlotProbe)
from .base import Progress, Scorer


def _hash_score(text: str) -> float:
    """A log-probability-like number in (-20, 0], fixed by the text's sha256."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return -20.0 * int.from_bytes(digest[:8], "big") / 2**64


class FakeScorer(Scorer):
    name = "fake"

    def __init__(self, boost: tuple[str, ...] = (), bias: float = 0.0, variant: str = "hash") -> None:
        self.boost, self.bias, self.variant = tuple(boost), float(bias), variant

    @property
    def info(self) -> ScorerInfo:
        """A hash of the whole filled-in text: read like a sentence likelihood (census
        normalises it over each template's identifiers; zh-neutral checks no mask counts)."""
        return ScorerInfo(kind=self.name, reads="sequence", generates=False)

    def _text_score(self, text: str) -> float:
        bonus = self.bias if any(word in text for word in self.boost) else 0.0
        return _hash_score(text) + bonus

    def _pairs(self, probes: list[PairProbe], tick: Progress) -> list[PairAnswer]:
        tick(len(probes))
        return [PairAnswer(p.id, self._text_score(p.a), self._text_score(p.b)) for p in probes]

    def _slots(self, probes: list[SlotProbe], tick: Progress) -> list[SlotAnswer]:
        tick(len(probes))
        return [
            SlotAnswer(p.id, tuple(self._text_score(p.left + f + p.right) for f in p.fillers),
                       tuple(1 for _ in p.fillers))
            for p in probes
        ]

    def _continuations(self, probes: list[ContinuationProbe], tick: Progress) -> list[SlotAnswer]:
        """A conditional score: the hash of context and continuation together (a separator
        keeps it apart from the whole sentence's), boosted as for slots."""
        tick(len(probes))
        return [SlotAnswer(p.id, tuple(self._text_score(c + "\x1e" + p.continuation) for c in p.contexts),
                           tuple(1 for _ in p.contexts)) for p in probes]

    def _sentences(self, probes: list[SentenceProbe], tick: Progress) -> list[SentenceAnswer]:
        tick(len(probes))
        return [SentenceAnswer(p.id, self._text_score(p.text), 1) for p in probes]

    def describe(self) -> dict[str, Any]:
        return {"scorer": self.name, "model": "fake", "variant": self.variant,
                "boost": list(self.boost), "bias": self.bias}
