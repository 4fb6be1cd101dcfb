"""The census probes go through a real scorer object (the deterministic fake)."""

from __future__ import annotations

import pytest

from biasatlas.benchmarks.census import build_plan, compute_metrics, load_census, load_language
from biasatlas.scorers.fake import FakeScorer


@pytest.mark.parametrize("language", ["us", "fr", "no"])
def test_male_boosted_fake_scorer_calls_every_occupation_male(language):
    table = load_census(language)
    plan = build_plan(language, table, sample=15, seed=0)
    # The fake scorer boosts by substring, so match the identifier with its context
    # ("The man " is not inside "The woman ", "Il " is not inside "Elle ").
    male_words = tuple(i.left + f + " " for i in load_language(language).identifiers
                       if i.gender == "m" for f in i.forms)
    # +40 nats on every sentence with a male identifier: far beyond the hash scores' range
    # (-20, 0], so after template normalisation the male identifiers hold all the mass.
    answers = FakeScorer(boost=male_words, bias=40.0).score(list(plan.probes))
    assert set(answers) == {p.id for p in plan.probes}
    result = compute_metrics(plan, answers, normalisation="template")
    assert {o.model_class for o in result.occupations} == {"male"}
    census_male = sum(table.female_pct(o) < 45 for o in plan.occupations)
    assert result.summary.descriptive == pytest.approx(100 * census_male / 15)
    assert result.summary.normative == 0.0
