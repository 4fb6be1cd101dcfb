"""Census metrics: worked examples of every formula, and the sanity oracles of METHODS §1."""

from __future__ import annotations

import math

import numpy as np
import pytest

from biasatlas.benchmarks.census import (TemplateProbs, build_plan, compute_metrics, female_share,
                                         load_census, share_class, summarise)
from biasatlas.benchmarks.census.metrics import (bootstrap_interval, correlations,
                                                 descriptive_by_class, descriptive_score,
                                                 gender_scores, normative_score)
from biasatlas.probes import SlotAnswer


# --- classes and aggregations ---------------------------------------------------------------

@pytest.mark.parametrize("pct,cls", [
    (55.0, "balanced"), (45.0, "balanced"), (50.0, "balanced"),  # bounds inclusive
    (55.01, "female"), (100.0, "female"), (44.99, "male"), (0.0, "male")])
def test_share_class_bounds(pct, cls):
    assert share_class(pct) == cls


# Two templates of one occupation: t1 female ids (0.2, 0.4), male ids (0.1,);
# t2 female (0.1, 0.1), male (0.3,).
T = [TemplateProbs("t1", (0.2, 0.4), (0.1,)), TemplateProbs("t2", (0.1, 0.1), (0.3,))]


def test_equations_1_and_2():
    # eq. 1: proba_F(t1) = (0.2+0.4)/2 = 0.3, proba_M(t1) = 0.1;
    #        proba_F(t2) = (0.1+0.1)/2 = 0.1, proba_M(t2) = 0.3
    assert (T[0].proba_f, T[0].proba_m, T[1].proba_f, T[1].proba_m) == pytest.approx(
        (0.3, 0.1, 0.1, 0.3))
    # eq. 2: score_F = (0.3+0.1)/2 = 0.2, score_M = (0.1+0.3)/2 = 0.2
    assert gender_scores(T) == pytest.approx((0.2, 0.2))


def test_aggregations_worked_example():
    # mean-prob: 100 · 0.2 / (0.2 + 0.2) = 50
    assert female_share(T, "mean-prob") == pytest.approx(50.0)
    # pooled: F = 0.2+0.4+0.1+0.1 = 0.8, M = 0.1+0.3 = 0.4 → 100 · 0.8/1.2 = 66.67
    assert female_share(T, "pooled") == pytest.approx(200 / 3)
    # mean-share: t1 100·0.3/0.4 = 75, t2 100·0.1/0.4 = 25 → 50
    assert female_share(T, "mean-share") == pytest.approx(50.0)
    # majority: t1 female wins, t2 male wins → 100 · 1/2 = 50
    assert female_share(T, "majority") == pytest.approx(50.0)
    skew = [TemplateProbs("a", (0.9,), (0.1,)), TemplateProbs("b", (0.5,), (0.5,)),
            TemplateProbs("c", (0.6,), (0.4,))]
    # majority: a F, b tie (½), c F → 100 · 2.5/3 = 83.33; mean-prob: F 2.0/3, M 1.0/3 → 66.67
    assert female_share(skew, "majority") == pytest.approx(250 / 3)
    assert female_share(skew, "mean-prob") == pytest.approx(200 / 3)


def test_zero_mass_and_unknown_aggregation():
    empty = [TemplateProbs("t", (0.0,), (0.0,))]
    assert all(female_share(empty, a) is None for a in ("mean-prob", "pooled", "mean-share",
                                                        "majority"))
    with pytest.raises(ValueError, match="available: mean-prob"):
        female_share(T, "median")


# --- scores ---------------------------------------------------------------------------------

CENSUS = [80.0, 50.0, 20.0, 10.0, 60.0]  # classes F, B, M, M, F
MODEL = [70.0, 30.0, 47.0, 20.0, 40.0]   # classes F, M, B, M, M


def test_normative_descriptive_and_per_class():
    # Balanced model shares: only 47.0 → normative 100 · 1/5 = 20.
    assert normative_score(MODEL) == pytest.approx(20.0)
    # Agreements: O1 (F=F) and O4 (M=M) → descriptive 100 · 2/5 = 40.
    assert descriptive_score(CENSUS, MODEL) == pytest.approx(40.0)
    by_class = descriptive_by_class(CENSUS, MODEL)
    # Per class, as shares of ALL 5 occupations: female 1/5 = 20, male 1/5 = 20, balanced 0.
    assert (by_class.female, by_class.male, by_class.balanced) == pytest.approx((20, 20, 0))
    assert by_class.female + by_class.male + by_class.balanced == pytest.approx(40.0)


def test_summary_bootstrap_and_correlations():
    s = summarise(CENSUS, MODEL, n_resamples=2000, seed=7)
    assert (s.n_occupations, s.normative, s.descriptive) == (
        5, pytest.approx(20), pytest.approx(40))
    assert (s.census_counts.female, s.census_counts.male, s.census_counts.balanced) == (2, 2, 1)
    assert (s.model_counts.female, s.model_counts.male, s.model_counts.balanced) == (1, 3, 1)
    assert s.descriptive_ci.low <= 40 <= s.descriptive_ci.high
    # Independent percentile bootstrap with the same generator and draws.
    hits = np.array([1.0, 0, 0, 1, 0])  # the agreements above
    idx = np.random.default_rng(7).integers(0, 5, size=(2000, 5))
    expected = np.percentile(100 * hits[idx].mean(axis=1), [2.5, 97.5])
    assert (s.descriptive_ci.low, s.descriptive_ci.high) == pytest.approx(tuple(expected))
    # Pearson from the textbook formula; Spearman as Pearson of ranks (no ties here).
    c, m = np.array(CENSUS), np.array(MODEL)
    r = ((c - c.mean()) * (m - m.mean())).sum() / math.sqrt(((c - c.mean()) ** 2).sum()
                                                            * ((m - m.mean()) ** 2).sum())
    assert s.pearson == pytest.approx(r)
    rc, rm = c.argsort().argsort().astype(float), m.argsort().argsort().astype(float)
    assert s.spearman == pytest.approx(np.corrcoef(rc, rm)[0, 1])


def test_bootstrap_degenerate_and_seeded():
    assert bootstrap_interval(np.ones(10)) == bootstrap_interval(np.ones(10), seed=5)
    i = bootstrap_interval(np.ones(10))
    assert (i.low, i.high) == (100.0, 100.0)
    hits = np.array([1.0, 0.0] * 20)
    assert bootstrap_interval(hits, seed=1) == bootstrap_interval(hits, seed=1)
    # 95 % of the way between resampled means: check against numpy directly for seed 2.
    idx = np.random.default_rng(2).integers(0, 40, size=(300, 40))
    expected = np.percentile(100 * hits[idx].mean(axis=1), [2.5, 97.5])
    got = bootstrap_interval(hits, seed=2, n_resamples=300)
    assert (got.low, got.high) == pytest.approx(tuple(expected))
    assert got.low < 50 < got.high


def test_correlations_undefined_for_constant_shares():
    assert correlations([10.0, 50.0, 90.0], [50.0, 50.0, 50.0]) == (None, None, None, None)
    assert correlations([1.0, 2.0], [2.0, 1.0]) == (None, None, None, None)


def test_summary_rejects_unpaired_input():
    with pytest.raises(ValueError, match="pair up"):
        summarise([1.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="no occupations"):
        summarise([], [])


# --- sanity oracles on the Norwegian table (METHODS §1) -------------------------------------
# 417 rows: 142 female-dominated, 229 male-dominated, 46 balanced.
#   always 50 %   → normative 100, descriptive 100 · 46/417  = 11.03
#   always male   → normative 0,   descriptive 100 · 229/417 = 54.92
#   always female → normative 0,   descriptive 100 · 142/417 = 34.05
#   census itself → normative 100 · 46/417 = 11.03, descriptive 100

@pytest.fixture(scope="module")
def no_census():
    return [r.female_pct for r in load_census("no")]


@pytest.mark.parametrize("model,normative,descriptive", [
    (lambda c: 50.0, 100.0, 100 * 46 / 417),
    (lambda c: 0.0, 0.0, 100 * 229 / 417),
    (lambda c: 100.0, 0.0, 100 * 142 / 417),
    (lambda c: c, 100 * 46 / 417, 100.0),
])
def test_norwegian_oracles_on_shares(no_census, model, normative, descriptive):
    s = summarise(no_census, [model(c) for c in no_census])
    assert (s.normative, s.descriptive) == (pytest.approx(normative), pytest.approx(descriptive))
    assert round(s.descriptive, 1) in (11.0, 54.9, 34.1, 100.0)
    parts = s.descriptive_by_class
    assert parts.female + parts.male + parts.balanced == pytest.approx(s.descriptive)


@pytest.fixture(scope="module")
def no_plan():
    """The paper's Table 2 as printed (15 female, 13 male identifiers): the worked numbers
    below depend on the unpaired Dama/Damen."""
    return build_plan("no", load_census("no"), identifier_set="all")


def fake_answers(plan, prob, n_tokens=1):
    """Answers giving each filler prob(gender, probe) (same for every variant)."""
    gender = {(c.probe_id, i): c.gender for c in plan.cells for i in c.filler_indices}
    return {p.id: SlotAnswer(p.id, tuple(math.log(prob(gender[(p.id, i)], p))
                                         if prob(gender[(p.id, i)], p) > 0 else -math.inf
                                         for i in range(len(p.fillers))),
                             (n_tokens,) * len(p.fillers)) for p in plan.probes}


@pytest.mark.parametrize("f,m,normative,descriptive", [
    # Equal per-filler probabilities still give ~50 %: the female mean is lifted only by
    # "Dama|Damen" and "Jenta|Jenten" (variants summed): singular F = (2+2+6)/8 · p = 1.25p
    # vs M = p; plural 1p vs 1p. mean-prob: score_F = (1.25+1)/2 = 1.125p, score_M = p,
    # share = 100 · 1.125/2.125 = 52.94 → balanced.
    (0.01, 0.01, 100.0, 100 * 46 / 417),
    (0.001, 0.2, 0.0, 100 * 229 / 417),
    (0.2, 0.001, 0.0, 100 * 142 / 417),
])
@pytest.mark.slow  # over a second: the full suite runs it, the fast loop does not
def test_norwegian_oracles_end_to_end(no_plan, f, m, normative, descriptive):
    answers = fake_answers(no_plan, lambda g, p: f if g == "f" else m)
    for normalisation in ("none", "template"):
        result = compute_metrics(no_plan, answers, normalisation=normalisation)
        s = result.summary
        assert s.n_occupations == 417 and not result.skipped
        assert (s.normative, s.descriptive) == (pytest.approx(normative),
                                                pytest.approx(descriptive))


def test_equal_probabilities_share_worked_out(no_plan):
    result = compute_metrics(no_plan, fake_answers(no_plan, lambda g, p: 0.01))
    # See the comment above: 100 · 1.125 / 2.125 = 52.94…
    assert result.occupations[0].model_pct == pytest.approx(100 * 1.125 / 2.125)


# --- normalisation, skips and multi-token reports on a small plan ---------------------------

@pytest.fixture(scope="module")
def small():
    table = load_census("us").subset(["Registered nurses", "Electricians"])
    return build_plan("us", table, identifier_set="all")


def test_template_normalisation_worked_example(small):
    # Every "He"/"She" context: She −1, He −2; every "The" context: female fillers −3,
    # male −4 (sentence log-likelihoods of a causal LM). Plural contexts: female −3, male −4.
    def prob(g, p):
        pronoun = p.left == ""
        return math.exp((-1 if g == "f" else -2) if pronoun else (-3 if g == "f" else -4))
    answers = fake_answers(small, prob)
    result = compute_metrics(small, answers, normalisation="template")
    # Singular template: identifiers She (e^-1), 7 female "The" (e^-3), He (e^-2),
    # 6 male "The" (e^-4). Z = e^-1 + 7e^-3 + e^-2 + 6e^-4.
    z = math.exp(-1) + 7 * math.exp(-3) + math.exp(-2) + 6 * math.exp(-4)
    sg_f = (math.exp(-1) + 7 * math.exp(-3)) / 8 / z
    sg_m = (math.exp(-2) + 6 * math.exp(-4)) / 7 / z
    zp = 7 * math.exp(-3) + 6 * math.exp(-4)
    pl_f, pl_m = math.exp(-3) / zp, math.exp(-4) / zp
    score_f, score_m = (sg_f + pl_f) / 2, (sg_m + pl_m) / 2  # 6 sg + 6 pl templates alike
    nurse = next(o for o in result.occupations if o.occupation == "Registered nurses")
    assert (nurse.score_f, nurse.score_m) == pytest.approx((score_f, score_m))
    assert nurse.model_pct == pytest.approx(100 * score_f / (score_f + score_m))
    assert nurse.n_templates == 12 and result.normalisation == "template"


def test_missing_answers_are_recorded_skips(small):
    answers = fake_answers(small, lambda g, p: 0.1)
    dropped = next(p.id for p in small.probes if "electricians" in p.id)
    del answers[dropped]
    result = compute_metrics(small, answers)
    assert [o.occupation for o in result.occupations] == ["Registered nurses"]
    assert result.skipped[0].occupation == "Electricians"
    assert dropped in result.skipped[0].reason


def test_zero_mass_is_a_skip_and_multi_token_is_reported(small):
    answers = fake_answers(small, lambda g, p: 0.0 if "electricians" in p.id else 0.1,
                           n_tokens=2)
    result = compute_metrics(small, answers)
    assert [(s.occupation, s.reason) for s in result.skipped] == [
        ("Electricians", "zero probability mass for both genders")]
    assert ("woman", 2) in result.multi_token and ("He", 2) in result.multi_token


def test_bad_answer_shape_and_options(small):
    answers = fake_answers(small, lambda g, p: 0.1)
    first = small.probes[0]
    answers[first.id] = SlotAnswer(first.id, (0.0,), (1,))
    with pytest.raises(ValueError, match="log-probabilities"):
        compute_metrics(small, answers)
    with pytest.raises(ValueError, match="available: none, template"):
        compute_metrics(small, {}, normalisation="softmax")


def test_compute_metrics_from_a_table_rebuilds_the_plan(small):
    answers = fake_answers(small, lambda g, p: 0.3 if g == "m" else 0.1)
    from_table = compute_metrics(small.table, answers, identifier_set="all")
    from_plan = compute_metrics(small, answers)
    assert from_table.records() == from_plan.records()
    # male 3× female everywhere → 100 · 0.1/0.4 = 25 % (sg mean over 8 vs 7 ids is still 0.1/0.3)
    assert all(r["model_pct"] == pytest.approx(25.0) for r in from_plan.records())
    assert all(r["model_class"] == "male" for r in from_plan.records())
