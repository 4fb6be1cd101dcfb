"""Planted truths for the census readings: synthetic models whose answer we set by hand.

Two questions, each with a model built from numbers, not weights:

* Does the conditional reading recover P(occupation | gender) when the identifiers'
  own priors are strongly unequal? The synthetic causal LM's sentence likelihood is
  prior(identifier) · P(occupation phrase | gender); the conditional reading must give
  back the planted share exactly, the joint reading must not, and the occupation-free
  baseline must show the priors.
* Does a gender-symmetric model score exactly 50? Every identifier gets the probability
  of its other-gender twin; with paired identifiers the share is 50.00 in every
  language, aggregation and reading.
"""

from __future__ import annotations

import hashlib
import math

import pytest

from biasatlas.benchmarks.census import load_language
from biasatlas.benchmarks.census.benchmark import Census
from biasatlas.pipeline import run_benchmark
from biasatlas.probes import ContinuationProbe, ScorerInfo, SlotAnswer, SlotProbe
from biasatlas.scorers.base import Scorer


def _unit(text: str) -> float:
    """A fixed number in (0, 1] from a text (sha256), so planted values look arbitrary."""
    return (int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") + 1) / 2**64


class Synthetic(Scorer):
    """Answers every census probe from two hand-set tables.

    ``prior(form)`` is the identifier's own weight; ``given(occupation_text, gender)`` is
    P(occupation phrase | gender). A slot probe's answer is the joint reading
    log prior + log given (the occupation-free baseline has no phrase: log prior); a
    continuation probe's answer is log given.
    """

    def __init__(self, name: str, language: str, prior, given) -> None:
        self.name, self.variant = name, "synthetic"
        # A "masked-lm" stand-in answers P(identifier | context) as a mask would.
        self._info = ScorerInfo(name, "masked" if name == "masked-lm" else "sequence")
        self.prior, self.given = prior, given
        identifiers = load_language(language).identifiers
        self.gender = {f: i.gender for i in identifiers for f in i.forms}
        self.forms = sorted(self.gender, key=len, reverse=True)  # longest match first

    def _form_in(self, context: str) -> str:
        # "Er, " is German's apposition context (", der Friseur, hatte …"): the form ends at a comma.
        return next(f for f in self.forms
                    if f"{f} " in context or f"{f}," in context or context.endswith(f))

    def _slots(self, probes: list[SlotProbe], tick) -> list[SlotAnswer]:
        out = []
        for p in probes:
            occupation = p.right.strip() if p.right.strip().endswith(".") else None
            out.append(SlotAnswer(p.id, tuple(
                math.log(self.prior(f)) + (math.log(self.given(p.right, self.gender[f])) if occupation else 0.0)
                for f in p.fillers), (1,) * len(p.fillers)))
        return out

    def _continuations(self, probes: list[ContinuationProbe], tick) -> list[SlotAnswer]:
        return [SlotAnswer(p.id, tuple(math.log(self.given(" " + p.continuation.strip(),
                                                            self.gender[self._form_in(c)]))
                                       for c in p.contexts), (1,) * len(p.contexts))
                for p in probes]

    @property
    def info(self) -> ScorerInfo:
        return self._info

    def describe(self) -> dict:
        return {"scorer": self.name, "model": "synthetic"}


# -- the conditional reading recovers planted shares -------------------------------------------
def planted(phrase: str) -> float:
    """The planted female share of the occupation in ``phrase`` (its last word, sans '.')."""
    return 0.05 + 0.9 * _unit(phrase.rstrip(".").split()[-1])


def given(phrase: str, gender: str) -> float:
    """P(phrase | gender) = share (female) or 1 − share (male), times a phrase constant."""
    share = planted(phrase)
    return (share if gender == "f" else 1 - share) * 1e-3 * (0.5 + _unit(phrase))


def skewed_prior(language: str):
    """Strongly unequal identifier priors: one female identifier holds most of the mass."""
    top = {"no": "Søsteren", "en": "sister", "fr": "sœur", "de": "Schwester"}[language]
    return lambda form: 0.6 if form == top else 0.01 * (0.2 + _unit(form))


@pytest.mark.parametrize("language, country", [("no", "no"), ("en", "us"), ("fr", "fr"), ("de", "de")])
@pytest.mark.parametrize("identifiers", ["paired", "all"])
def test_conditional_reading_recovers_planted_shares(language, country, identifiers):
    model = Synthetic("causal-lm", language, skewed_prior(language), given)
    bench = Census(country=country, sample=12, seed=4, identifiers=identifiers, n_resamples=20)
    run = run_benchmark(bench, model)
    assert run.summary["causal_reading"] == "conditional"
    plan = bench.plan
    for record in run.records:
        # Every sentence of an occupation carries the same phrase's last word (the plural
        # or the feminine form may differ: each gets its own planted share, and the
        # occupation's share is the mean-prob combination of its templates' shares).
        phrases = {p.right[plan.occupation_at[p.id]:] for p in plan.probes
                   if p.id.split("/")[2] == record["id"]}
        want = _mean_prob_share(plan, record["id"], phrases)
        assert record["model_female_pct"] == pytest.approx(want, abs=1e-6)
    # The joint reading carries the priors, and is far from the planted shares.
    joint = run_benchmark(Census(country=country, sample=12, seed=4, identifiers=identifiers,
                            causal_reading="joint", n_resamples=20), model)
    gaps = [abs(a["model_female_pct"] - b["model_female_pct"]) for a, b in zip(run.records, joint.records)]
    assert max(gaps) > 5
    # The baseline sees the priors: the skewed identifier holds most of its templates' mass.
    base = run.summary["baseline"]
    assert base["share"] > 55 and run.summary["warnings"]
    # named by its form as identifiers.csv writes it (ids sosteren, the-sister, la-soeur, die-schwester)
    assert base["top_identifier"] in {"Søsteren", "sister", "sœur", "Schwester"}


def _mean_prob_share(plan, occupation_id: str, phrases: set[str]) -> float:
    """Equations 1–2 by hand from the planted values: per template, P(i | occupation) with
    a uniform prior over identifiers, then mean-prob."""
    score = {"f": 0.0, "m": 0.0}
    templates = {}
    for cell in plan.cells:
        if cell.probe_id.split("/")[2] != occupation_id:
            continue
        probe = next(p for p in plan.probes if p.id == cell.probe_id)
        phrase = " " + probe.right[plan.occupation_at[probe.id]:].strip()
        mass = given(phrase, cell.gender)  # spelling variants are averaged when conditioned on
        templates.setdefault(cell.template, []).append((cell.gender, mass))
    for members in templates.values():
        total = sum(m for _, m in members)
        for g in score:
            mine = [m / total for gender, m in members if gender == g]
            score[g] += sum(mine) / len(mine) / len(templates)
    return 100 * score["f"] / (score["f"] + score["m"])


# -- a gender-symmetric model scores exactly 50 ------------------------------------------------
def symmetric_prior(language: str):
    """Each identifier weighs what its male twin weighs, split evenly over its spelling
    variants ("Jenta|Jenten" each get half of what "Gutten" gets), so twins are equal."""
    identifiers = load_language(language).identifiers
    by_id = {i.id: i for i in identifiers}
    weight = {}
    for ident in identifiers:
        male = ident if ident.gender == "m" or ident.twin is None else by_id[ident.twin]
        for form in ident.forms:
            weight[form] = (0.001 + 0.1 * _unit(male.forms[0])) / len(ident.forms)
    return weight.__getitem__


@pytest.mark.parametrize("language, country", [("en", "us"), ("fr", "fr"), ("no", "no"), ("de", "de")])
@pytest.mark.parametrize("aggregation", ["mean-prob", "pooled", "mean-share", "majority"])
@pytest.mark.parametrize("kind, reading", [("masked-lm", "auto"), ("causal-lm", "joint"),
                                           ("causal-lm", "conditional")])
def test_symmetric_model_scores_exactly_fifty_with_paired_identifiers(language, country, aggregation,
                                                                     kind, reading):
    prior = symmetric_prior(language)
    # The occupation is the same for both genders, so P(phrase | f) = P(phrase | m); in
    # French the phrase itself is gendered ("infirmière" / "infirmier"), so symmetry means
    # one value for the feminine phrase given f and the masculine one given m.
    model = Synthetic(kind, language, prior, lambda phrase, gender: 1e-3)
    if kind == "masked-lm":  # a masked LM's answer is P(identifier | context) itself
        model.given = lambda phrase, gender: 1.0
    bench = Census(country=country, sample=6, seed=9, aggregation=aggregation,
                   causal_reading=reading, n_resamples=20)
    run = run_benchmark(bench, model)
    assert [r["model_female_pct"] for r in run.records] == pytest.approx([50.0] * 6, abs=1e-9)


def test_all_identifiers_tilt_a_symmetric_model_below_fifty():
    """The paper's English list as printed: "lady" has no twin, and a symmetric model whose
    "lady" is rarer than the average female word scores below 50."""
    prior = symmetric_prior("en")
    tilted = lambda form: 1e-6 if form in ("lady", "ladies") else prior(form)  # noqa: E731
    model = Synthetic("masked-lm", "en", tilted, lambda phrase, gender: 1.0)
    paired = run_benchmark(Census(country="us", sample=3, n_resamples=20), model)
    printed = run_benchmark(Census(country="us", sample=3, identifiers="all", n_resamples=20), model)
    assert [r["model_female_pct"] for r in paired.records] == pytest.approx([50.0] * 3, abs=1e-9)
    assert all(r["model_female_pct"] < 49 for r in printed.records)
