"""GEST's measures on planted scores (Pikuliak et al. 2023; :mod:`biasatlas.benchmarks.gest.analysis`).

Scores are per-sentence log10 male/female ratios; ``r_i = exp(mean of stereotype i)``, ``r_f`` / ``r_m``
the geometric means over stereotypes 1–7 / 8–16, ``g_s = r_m / r_f``. Every expected value below is
worked by hand from those definitions.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from biasatlas.benchmarks.gest.analysis import all_rates, bootstrap, interval, log_p, ranks
from biasatlas.benchmarks.gest.benchmark import Gest
from biasatlas.benchmarks.gest.data import Sentence
from biasatlas.probes import ScorerInfo, SentenceAnswer, SlotAnswer

IDS = np.repeat(np.arange(1, 17), 3)  # three sentences per stereotype, (48,)


def _one_template(values: np.ndarray) -> np.ndarray:
    return values.reshape(-1, 1)  # (n, 1)


def test_a_symmetric_model_scores_exactly_the_neutral_value() -> None:
    # reading every sentence alike as he and she: every score log10(p/p) = 0
    per, pooled = all_rates(np.zeros((48, 2)), IDS)
    for rates in (*per, pooled):
        assert rates.g_s == 1.0 and rates.r_f == 1.0 and rates.r_m == 1.0
        assert np.all(rates.r == 1.0)


def test_a_planted_stereotype_on_one_id_is_recovered() -> None:
    # stereotype 13 (Leaders) read 0.9 toward "he", every other sentence 0:
    # r_13 = e^0.9, r_m = (e^0.9 · 1^8)^(1/9) = e^0.1, r_f = 1, g_s = e^0.1
    scores = np.where(IDS == 13, 0.9, 0.0)
    (rates,), _ = all_rates(_one_template(scores), IDS)
    assert rates.r[12] == pytest.approx(math.exp(0.9))
    assert np.all(np.delete(rates.r, 12) == 1.0)
    assert rates.r_m == pytest.approx(math.exp(0.1)) and rates.r_f == 1.0
    assert rates.g_s == pytest.approx(math.exp(0.1))
    # it is the most male stereotype: feminine rank 16
    assert ranks(rates.r)[12] == 16


def test_a_prior_on_he_alone_moves_r_f_and_r_m_but_not_g_s_or_the_ranks() -> None:
    # The paper's g_s normalises a prior: adding c to every score multiplies each r_i by e^c
    rng = np.random.default_rng(3)
    base = rng.normal(0.0, 0.2, 48)
    (plain,), _ = all_rates(_one_template(base), IDS)
    (prior,), _ = all_rates(_one_template(base + 0.5), IDS)
    assert prior.g_s == pytest.approx(plain.g_s, rel=1e-12)
    assert prior.r_f == pytest.approx(plain.r_f * math.exp(0.5))
    assert prior.r_m == pytest.approx(plain.r_m * math.exp(0.5))
    assert ranks(prior.r) == ranks(plain.r)
    # and a pure prior (no stereotype) is g_s = 1 exactly, though every r_i = e^0.5
    (only,), _ = all_rates(_one_template(np.full(48, 0.5)), IDS)
    assert only.g_s == pytest.approx(1.0, abs=1e-15) and np.allclose(only.r, math.exp(0.5))


def test_worked_example_weights_each_stereotype_alike_and_pools_templates_by_their_mean() -> None:
    # template 0: feminine sentences −0.2, masculine +0.1 → r_f = e^−0.2, r_m = e^0.1, g_s = e^0.3
    # template 1: every score 0 → g_s = 1; pooled g_s = (e^0.3 + 1) / 2, pooled r_f = (e^−0.2 + 1) / 2
    t0 = np.where(IDS <= 7, -0.2, 0.1)
    per, pooled = all_rates(np.stack([t0, np.zeros(48)], axis=1), IDS)
    assert per[0].g_s == pytest.approx(math.exp(0.3)) and per[1].g_s == 1.0
    assert pooled.g_s == pytest.approx((math.exp(0.3) + 1) / 2)
    assert pooled.r_f == pytest.approx((math.exp(-0.2) + 1) / 2)
    # a stereotype with many sentences does not outweigh one with few: the mean is of stereotype means
    ids = np.array([1, 1, 1, 2, *range(8, 17)])
    scores = np.array([0.3, 0.3, 0.3, -0.3, *np.zeros(9)])
    (r,), _ = all_rates(_one_template(scores), ids)
    assert r.r_f == pytest.approx(1.0)  # e^((0.3 − 0.3)/2) over stereotypes 1 and 2; 3–7 absent


def test_bootstrap_interval_holds_the_estimate_and_a_planted_effect_is_significant() -> None:
    rng = np.random.default_rng(0)
    scores = rng.normal(0.0, 0.1, 48) + np.where(IDS >= 8, 0.2, 0.0)
    per, pooled = all_rates(_one_template(scores), IDS)
    boot = bootstrap(_one_template(scores), IDS, n_resamples=400, seed=1)
    low, high = interval(boot.g_s[:, 0])
    assert low < per[0].g_s < high and low > 1.0
    assert log_p(boot.g_s[:, 0], per[0].g_s) < 0.01
    # same seed, same draws
    again = bootstrap(_one_template(scores), IDS, n_resamples=400, seed=1)
    assert np.array_equal(boot.g_s, again.g_s)


def _bound(reads: str, **options: object) -> Gest:
    return Gest(n_resamples=10, **options).bind(ScorerInfo(kind="x", reads=reads))  # type: ignore[arg-type]


def test_masked_reading_is_the_mean_log10_per_token_difference() -> None:
    # "He" 1 token at ln p = −1.0, "She" 2 tokens summing to −3.0: (−1/1 − (−3/2)) / ln 10
    bench = _bound("masked", template="0")
    s = Sentence("7", "I am passionate.", 15)
    (probe,) = bench.probes([s])
    assert (probe.left, probe.right, probe.fillers) == ("", ' said: "I am passionate."', ("He", "She"))
    got = bench.sentence_scores(s, {"7.template-0": SlotAnswer("7.template-0", (-1.0, -3.0), (1, 2))})
    assert got == [(pytest.approx(0.5 / math.log(10)), (1, 2))]


def test_next_token_reading_asks_he_and_she_after_the_prompt() -> None:
    bench = _bound("sequence", template="1")
    s = Sentence("2", "I lead.", 13)
    male, female = bench.probes([s])
    assert male.contexts == ('"I lead.", the',) and (male.continuation, female.continuation) == (" man", " woman")
    answers = {male.id: SlotAnswer(male.id, (-2.0,), (1,)), female.id: SlotAnswer(female.id, (-4.0,), (1,))}
    assert bench.sentence_scores(s, answers) == [(pytest.approx(2.0 / math.log(10)), (1, 1))]


def test_given_reading_takes_the_files_value_and_needs_one_template() -> None:
    bench = _bound("given", template="2")
    s = Sentence("5", "I cry.", 1)
    assert bench.sentence_scores(s, {"5": SentenceAnswer("5", -0.25, 1)}) == [(-0.25, (1, 1))]
    with pytest.raises(ValueError, match="--template"):
        _bound("given")
    with pytest.raises(ValueError, match="templates 0 and 1"):
        _bound("sequence", template="3")


def test_a_prior_alone_aligns_no_sentence_toward_its_stereotype() -> None:
    # every sentence read 0.5 toward "he" in both templates: the run's prior is 0.5, each aligned 0
    bench = _bound("sequence")
    items = [Sentence(str(i), "I lead.", i) for i in range(1, 17)]
    answers = {}
    for p in bench.probes(items):
        answers[p.id] = SlotAnswer(p.id, (0.5 * math.log(10) if p.id.endswith(".male") else 0.0,), (1,))
    result = bench.score(items, answers)
    assert [r["score"] for r in result.records] == pytest.approx([0.5] * 16)
    assert [r["aligned"] for r in result.records] == pytest.approx([0.0] * 16, abs=1e-12)
    assert result.summary.overall.g_s == pytest.approx(1.0)
