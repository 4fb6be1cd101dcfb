"""StereoSet's paired comparison (its view's McNemar per task) on runs it scored itself.

A run against itself differs by nothing; against a copy whose first two intrasentence examples
turn to the anti-stereotype, only intrasentence moves, by the worked amounts below.
"""

from __future__ import annotations


import pytest

from biasatlas.benchmarks.stereoset import SPEC, StereoSet
from biasatlas.benchmarks.stereoset.data import Candidate, Example
from biasatlas.probes import SentenceAnswer
from paired_runs import bootstrap_interval, written_run
from shared_data import shared_data_dir

DEV = shared_data_dir() / "stereoset" / "dev.json"
RESAMPLES, SEED = 200, 3


def _answers(items: list[Example], flipped: set[str]) -> dict[str, SentenceAnswer]:
    """The stereotype preferred (−1 over −2, the unrelated −3), or the anti-stereotype in ``flipped``."""
    def score(e: Example, c: Candidate) -> float:
        order = ("anti-stereotype", "stereotype") if e.id in flipped else ("stereotype", "anti-stereotype")
        return {order[0]: -1.0, order[1]: -2.0}.get(c.gold_label, -3.0)
    return {c.id: SentenceAnswer(c.id, score(e, c), 1) for e in items for c in e.candidates}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[object, object, list[Example]]:
    bench = StereoSet(data=DEV, limit=6, n_resamples=20)
    items = bench.load()
    intra = [e.id for e in items if e.task == "intrasentence"]
    assert len(items) == 12 and len(intra) == 6  # six examples of each task
    folder = tmp_path_factory.mktemp("stereoset-paired")
    a = written_run(folder / "a", bench, bench.score(items, _answers(items, set())))
    shifted = written_run(folder / "b", bench, bench.score(items, _answers(items, set(intra[:2]))))
    return a, shifted, items


def test_a_run_against_itself_differs_by_nothing(runs) -> None:
    a, _, _ = runs
    paired = SPEC.view.paired.test(a, a, n_resamples=RESAMPLES, seed=SEED)
    assert (paired.n_paired, paired.n_only_a, paired.n_only_b) == (12, 0, 0)
    assert [t.scope for t in paired.tests] == ["intrasentence", "intersentence"]
    for t in paired.tests:
        # no discordant example: McNemar's exact p is 1, and every resampled difference is 0
        assert (t.n, t.value_a, t.value_b, t.difference, t.p) == (6, 100.0, 100.0, 0.0, 1.0)
        assert (t.ci_low, t.ci_high) == (0.0, 0.0)


def test_a_shifted_run_moves_only_the_shifted_task_by_the_worked_amount(runs) -> None:
    a, b, _ = runs
    paired = SPEC.view.paired.test(a, b, n_resamples=RESAMPLES, seed=SEED)
    rows = {t.scope: t for t in paired.tests}
    intra, inter = rows["intrasentence"], rows["intersentence"]
    # intrasentence: A prefers the stereotype on 6 of 6, B on 4 of 6; discordant A-only 2, B-only 0
    # → exact McNemar p = 2·(1/2)² = 0.5; B − A = 400/6 − 100 = −100/3 points
    assert intra.value_a == 100.0 and intra.value_b == pytest.approx(400 / 6)
    assert intra.difference == pytest.approx(-100 / 3) and intra.p == pytest.approx(0.5)
    assert intra.method == "McNemar exact"
    low, high = bootstrap_interval([-100.0, -100.0, 0.0, 0.0, 0.0, 0.0], RESAMPLES, SEED)
    assert (intra.ci_low, intra.ci_high) == (pytest.approx(low), pytest.approx(high))
    assert intra.ci_low < intra.difference <= intra.ci_high <= 0.0
    # intersentence untouched
    assert (inter.difference, inter.p, inter.ci_low, inter.ci_high) == (0.0, 1.0, 0.0, 0.0)
