"""A run plans each chunk once (issue 40, item 12): planning tokenises every probe, and the start
line's count of what is left to score reuses the summary's plan of every chunk the cache holds
nothing of; a chunk it holds a part of is planned as its rest is scored."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path

from biasatlas.benchmarks.crows_pairs import CrowsPairs
from biasatlas.cache import ScoreCache
from biasatlas.pipeline import chunked, run_benchmark
from biasatlas.probes import Probe
from biasatlas.scorers.fake import FakeScorer


class Counting(FakeScorer):
    """The fake scorer, counting its plans: (number of probes, number answered) per call."""

    def __init__(self) -> None:
        super().__init__()
        self.plans: list[tuple[int, int]] = []

    def plan(self, probes: Sequence[Probe], answered: Collection[str] = frozenset()) -> dict[str, int]:
        self.plans.append((len(probes), len(answered)))
        return {"rows_computed": len(probes), "batches": 1}


def test_an_uncached_run_plans_each_chunk_once(shared_data: Path):
    bench = CrowsPairs(dataset=None, data=shared_data / "crows-pairs-en/crows_pairs_anonymized.csv", limit=40)
    scorer, announced = Counting(), []
    run_benchmark(bench, scorer, announce=announced.append)
    chunks = chunked(bench.probes(bench.load()))
    assert len(chunks) == 3 and scorer.plans == [(len(c), 0) for c in chunks]  # 16, 16, 8: once each
    assert announced[0].work == {"rows_computed": 40, "batches": 3}  # the three plans added up


def test_a_resumed_run_plans_again_only_the_chunk_the_cache_holds_part_of(shared_data: Path, tmp_path: Path):
    bench = CrowsPairs(dataset=None, data=shared_data / "crows-pairs-en/crows_pairs_anonymized.csv", limit=40)
    probes = bench.probes(bench.load())
    first, second, _ = chunked(probes)
    held = [*first, *second[:3]]  # the first chunk whole, three of the second
    cache = ScoreCache(tmp_path / "cache.sqlite")
    scorer = FakeScorer()
    cache.put(scorer.fingerprint(), held, scorer.score(held))
    counting, announced = Counting(), []
    run_benchmark(bench, counting, cache=cache, announce=announced.append)
    cache.close()
    # the summary's three plans, then the second chunk's rest (the third reuses its plan; the first is done)
    assert counting.plans == [(16, 0), (16, 0), (8, 0), (16, 19)]
    assert announced[0].work == {"rows_computed": 16 + 8, "batches": 2}
