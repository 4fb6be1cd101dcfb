"""A generating scorer without a model, for the generated readings' pipeline tests: each probe's answer is
``answer(probe)``; it counts the prompts it was asked (a rerun answered from the cache asks none)."""

from __future__ import annotations

from collections.abc import Callable

from biasatlas.probes import GenerationAnswer, GenerationProbe, ScorerInfo
from biasatlas.scorers.base import Scorer


class Parrot(Scorer):
    name = "parrot"

    def __init__(self, answer: Callable[[GenerationProbe], str], n_tokens: int = 1) -> None:
        self.answer, self.n_tokens, self.asked = answer, n_tokens, 0

    @property
    def info(self) -> ScorerInfo:
        return ScorerInfo(kind="parrot", reads="sequence")

    def describe(self) -> dict:
        return {"scorer": "parrot"}

    def _generations(self, probes, tick, answered=frozenset()):
        self.asked += len(probes)
        return [GenerationAnswer(p.id, self.answer(p), self.n_tokens, "stop") for p in probes]
