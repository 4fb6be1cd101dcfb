"""A plugin benchmark written to the contract before issue 35 (its own ``config``, ``bind`` and
``with_counters``; no Options) still runs, and what its ``with_counters`` adds reaches summary.json."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import pytest

from biasatlas.benchmarks.contract import BenchmarkResult
from biasatlas.pipeline import run_benchmark
from biasatlas.probes import Answer, PairAnswer, PairProbe, ScorerInfo
from biasatlas.registry import load_scorer


@dataclass(frozen=True)
class OldShape:
    name: str = "old-shape"
    VERSION: str = "1"
    scorer: ScorerInfo | None = None

    def load(self) -> list[str]:
        return ["a", "b"]

    def probes(self, items: Sequence[str]) -> list[PairProbe]:
        return [PairProbe(i, f"He is {i}.", f"She is {i}.") for i in items]

    def score(self, items: Sequence[str], answers: Mapping[str, Answer]) -> BenchmarkResult:
        pairs = [a for a in answers.values() if isinstance(a, PairAnswer)]
        return BenchmarkResult({"n": len(pairs)}, [{"id": i} for i in items])

    def config(self) -> dict[str, Any]:
        return {"benchmark": self.name, "version": self.VERSION}

    def bind(self, info: ScorerInfo) -> OldShape:
        return replace(self, scorer=info)

    def with_counters(self, summary: Mapping[str, Any], counters: Mapping[str, int]) -> dict[str, Any]:
        return {**summary, "rows": counters.get("rows_computed")}


def test_an_old_plugin_keeps_its_counters_and_is_told_what_replaces_them():
    with pytest.warns(DeprecationWarning, match="COUNTS_WORK"):
        run = run_benchmark(OldShape(), load_scorer("fake"))
    assert run.summary["n"] == 2 and "rows" in run.summary  # the fake scorer plans no rows: the key, None or a count
