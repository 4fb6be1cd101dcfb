"""CrowS-Pairs' paired comparison (its view's McNemar, all pairs then each category with Holm) on
runs it scored itself: a run against itself differs by nothing; against a copy with two pairs turned
to sent_less, by the worked amounts below.

The first eight pairs of the original file: ids 0, 3, 4, 5, 7 race-color, 1 socioeconomic, 2 gender
(anti-stereo), 6 disability. B turns 0 (race-color, stereo) and 2 (gender, anti-stereo).
"""

from __future__ import annotations

import pytest

from biasatlas.benchmarks.crows_pairs import SPEC, CrowsPair, CrowsPairs
from biasatlas.probes import PairAnswer
from paired_runs import bootstrap_interval, written_run
from shared_data import shared_data_dir

EN = shared_data_dir() / "crows-pairs-en" / "crows_pairs_anonymized.csv"
RESAMPLES, SEED = 200, 5
TURNED = {"0", "2"}


def _answers(pairs: list[CrowsPair], turned: set[str]) -> dict[str, PairAnswer]:
    """sent_more scored −1 over sent_less's −2 (or the other way round for ``turned``), given as the
    probe asks: a is the disadvantaged group's sentence (sent_more of a stereo pair, sent_less of an
    anti-stereo one)."""
    out = {}
    for p in pairs:
        more, less = (-2.0, -1.0) if p.id in turned else (-1.0, -2.0)
        a, b = (more, less) if p.direction == "stereo" else (less, more)
        out[p.id] = PairAnswer(p.id, a, b, 4, 4)
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory):
    bench = CrowsPairs(dataset=None, data=EN, limit=8)
    pairs = bench.load()
    assert [(p.id, p.bias_type) for p in pairs][:3] == [("0", "race-color"), ("1", "socioeconomic"), ("2", "gender")]
    folder = tmp_path_factory.mktemp("crows-paired")
    a_result = bench.score(pairs, _answers(pairs, set()))
    b_result = bench.score(pairs, _answers(pairs, TURNED))
    assert [r["outcome"] for r in b_result.records] == ["less", "more", "less", *["more"] * 5]
    return written_run(folder / "a", bench, a_result), written_run(folder / "b", bench, b_result)


def test_a_run_against_itself_differs_by_nothing(runs) -> None:
    a, _ = runs
    paired = SPEC.view.paired.test(a, a, n_resamples=RESAMPLES, seed=SEED)
    assert (paired.n_paired, paired.n_only_a, paired.n_only_b) == (8, 0, 0)
    assert [t.scope for t in paired.tests] == ["all pairs", "disability", "gender", "race-color", "socioeconomic"]
    for t in paired.tests:
        assert (t.value_a, t.value_b, t.difference, t.p) == (100.0, 100.0, 0.0, 1.0)
        assert (t.ci_low, t.ci_high) == (0.0, 0.0) and t.detail == "discordant: A 0, B 0"


def test_a_shifted_run_moves_by_the_worked_amount(runs) -> None:
    a, b = runs
    rows = {t.scope: t for t in SPEC.view.paired.test(a, b, n_resamples=RESAMPLES, seed=SEED).tests}
    # all pairs: A 8/8, B 6/8 → −25 points; discordant A-only 2 → exact McNemar p = 2·(1/2)² = 0.5
    every = rows["all pairs"]
    assert (every.n, every.value_a, every.value_b, every.difference) == (8, 100.0, 75.0, -25.0)
    assert every.p == pytest.approx(0.5) and every.detail == "discordant: A 2, B 0" and every.p_holm is None
    low, high = bootstrap_interval([-100.0, 0, -100.0, 0, 0, 0, 0, 0], RESAMPLES, SEED)
    assert (every.ci_low, every.ci_high) == (pytest.approx(low), pytest.approx(high))
    # race-color: 5 pairs, one turned → −20 points, p = 2·(1/2) = 1; gender: its one pair turned → −100
    race, gender = rows["race-color"], rows["gender"]
    assert (race.n, race.value_b, race.difference, race.p) == (5, 80.0, -20.0, 1.0)
    assert (race.ci_low, race.ci_high) == tuple(pytest.approx(v) for v in bootstrap_interval(
        [-100.0, 0, 0, 0, 0], RESAMPLES, SEED))
    assert (gender.n, gender.value_b, gender.difference, gender.ci_low, gender.ci_high) == (1, 0.0, -100.0, -100.0,
                                                                                             -100.0)
    # untouched categories; Holm over the four categories leaves every p at 1
    assert [rows[k].difference for k in ("disability", "socioeconomic")] == [0.0, 0.0]
    assert [rows[k].p_holm for k in ("disability", "gender", "race-color", "socioeconomic")] == [1.0] * 4
