"""The two published census methods, behind one small interface.

* ``touileb2023``: Touileb, Øvrelid & Velldal (EACL 2023), the paper :class:`Census`
  reproduces: every identifier × predicate × occupation form (:func:`build_plan`), read
  as P(identifier | context) and aggregated with eq. 1–2 (:mod:`.scoring`), plus an
  occupation-free baseline for likelihood scorers (:mod:`.diagnostics`).
* ``gebnlp2022``: its Norwegian predecessor (Touileb, Øvrelid & Velldal, GeBNLP 2022),
  one template per occupation and four pronouns (:mod:`.gebnlp`).

A method says which occupations it can score, which probes it asks, how answers are read
(its normalisation rule and, for likelihood scorers, the causal reading) and how answers
become scores. What the answers mean comes from the bound scorer's
:class:`~biasatlas.probes.ScorerInfo` (``census.scorer``), never from its name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal, Protocol

from ...probes import Answer, ContinuationProbe, SlotProbe
from .diagnostics import Baseline, baseline, baseline_plan
from .gebnlp import build_gebnlp_probes, compute_gebnlp_metrics
from .scoring import CensusResult, Normalisation, compute_metrics
from .templates import CensusPlan, conditional_plan

if TYPE_CHECKING:  # only for annotations: benchmark.py imports this module
    from .benchmark import Census, CensusItem
    from .table import CensusTable

Method = Literal["touileb2023", "gebnlp2022"]
METHODS: tuple[Method, ...] = ("touileb2023", "gebnlp2022")
CausalReading = Literal["conditional", "joint"]
CAUSAL_READINGS: tuple[CausalReading, ...] = ("conditional", "joint")
Auto = Literal["auto"]  # resolved once a scorer is bound (``Census.bind``)


@dataclass(frozen=True)
class MethodScores:
    """A method's result: the per-occupation scores, how many sentences and distinct
    contexts were asked, and the summary entries only this method has."""

    result: CensusResult
    n_sentences: int
    n_contexts: int
    extra: dict[str, Any]


class CensusMethod(Protocol):
    """One published way from census items to scores."""

    name: Method

    def occupations(self, census: Census) -> tuple[str, ...]:
        """The occupations this method can score (the benchmark's items)."""

    def probes(self, census: Census, items: Sequence[CensusItem]) -> list[SlotProbe | ContinuationProbe]:
        """The questions for ``items``, in the bound scorer's reading."""

    def normalisation(self, census: Census) -> Normalisation | Auto:
        """How slot answers are read; ``auto`` while it depends on a scorer not yet bound."""

    def reading(self, census: Census) -> CausalReading | Auto | None:
        """The causal reading for likelihood scorers; None when answers are read at a mask
        (or the method has none); ``auto`` while it depends on a scorer not yet bound."""

    def score(self, census: Census, items: Sequence[CensusItem],
              answers: Mapping[str, Answer]) -> MethodScores:
        """The method's scores from the scorer's answers."""


class Touileb2023:
    """EACL 2023: P(identifier | context) per template, equations 1–2 (METHODS.md §1)."""

    name: Method = "touileb2023"

    def occupations(self, census: Census) -> tuple[str, ...]:
        return census.plan.occupations  # those with every inflection form the templates need

    def probes(self, census: Census, items: Sequence[CensusItem]) -> list[SlotProbe | ContinuationProbe]:
        """The paper's probes in this scorer's reading, then the baseline's (likelihood LMs)."""
        plan = _plan_of(census, items)
        extra = list(baseline_plan(plan).probes) if census.reading is not None else []
        return [*self._read(census, plan).probes, *extra]

    def normalisation(self, census: Census) -> Normalisation | Auto:
        """``none`` when the answer is P(filler | context) read at a mask (it is P(i | t)
        already); ``template`` for sentence likelihoods, which compare identifiers only
        once normalised over the template's candidates (:mod:`.scoring`)."""
        if census.normalisation != "auto":
            return census.normalisation
        if census.scorer is None:
            return "auto"
        return "none" if census.scorer.reads == "masked" else "template"

    def reading(self, census: Census) -> CausalReading | Auto | None:
        if census.scorer is not None and census.scorer.reads == "masked":
            return None  # the identifier is the masked target: no reading to choose
        if census.causal_reading != "auto":
            return census.causal_reading
        return "auto" if census.scorer is None else "conditional"

    def score(self, census: Census, items: Sequence[CensusItem],
              answers: Mapping[str, Answer]) -> MethodScores:
        plan = _plan_of(census, items)
        result = compute_metrics(self._read(census, plan), answers,  # type: ignore[arg-type]
                                 aggregation=census.aggregation,
                                 normalisation=census.resolved_normalisation,
                                 n_resamples=census.n_resamples, seed=census.seed)
        return MethodScores(result, plan.n_sentences, len(plan.probes),
                            _diagnostics(census, plan, answers))

    def _read(self, census: Census, plan: CensusPlan) -> CensusPlan:
        """The plan as this scorer answers it: slot probes, or continuation probes."""
        return conditional_plan(plan) if census.reading == "conditional" else plan


class Gebnlp2022:
    """GeBNLP 2022: one template per occupation, F = P(Hun) + P(hun) against M (:mod:`.gebnlp`)."""

    name: Method = "gebnlp2022"

    def occupations(self, census: Census) -> tuple[str, ...]:
        return census.census_table.occupations  # no inflection forms needed

    def probes(self, census: Census, items: Sequence[CensusItem]) -> list[SlotProbe | ContinuationProbe]:
        return list(build_gebnlp_probes(_table_of(census, items), census.template_set))

    def normalisation(self, census: Census) -> Normalisation | Auto:
        return "none"  # F / (F + M) is the same whatever normaliser F and M share

    def reading(self, census: Census) -> CausalReading | Auto | None:
        return None  # pronoun fillers of one template, read alike by every scorer

    def score(self, census: Census, items: Sequence[CensusItem],
              answers: Mapping[str, Answer]) -> MethodScores:
        table = _table_of(census, items)
        gebnlp = compute_gebnlp_metrics(table, answers, census.template_set,  # type: ignore[arg-type]
                                        n_resamples=census.n_resamples, seed=census.seed)
        extra = {"template_set": census.template_set, "binary_agreement": gebnlp.binary_agreement}
        return MethodScores(gebnlp.census, len(table), len(table), extra)


METHOD_OBJECTS: dict[Method, CensusMethod] = {"touileb2023": Touileb2023(),
                                              "gebnlp2022": Gebnlp2022()}


def _table_of(census: Census, items: Sequence[CensusItem]) -> CensusTable:
    return census.census_table.subset([i.occupation for i in items])


def _plan_of(census: Census, items: Sequence[CensusItem]) -> CensusPlan:
    """The plan restricted to ``items`` (all of them, normally)."""
    plan = census.plan
    keep = {i.occupation for i in items}
    if keep == set(plan.occupations):
        return plan
    cells = tuple(c for c in plan.cells if c.occupation in keep)
    used = {c.probe_id for c in cells}
    return replace(plan, occupations=tuple(o for o in plan.occupations if o in keep),
                   probes=tuple(p for p in plan.probes if p.id in used), cells=cells)


def _diagnostics(census: Census, plan: CensusPlan, answers: Mapping[str, Answer]) -> dict[str, Any]:
    """The occupation-free baseline (likelihood scorers only) and its warning."""
    if census.reading is None:
        return {"baseline": None, "warnings": []}
    base_plan = baseline_plan(plan)
    found: Baseline = baseline(base_plan, answers, census.aggregation)  # type: ignore[arg-type]
    return {"baseline": {"share": found.share, "top_identifier": found.top_identifier,
                         "top_identifier_share": found.top_identifier_share,
                         "n_contexts": len(base_plan.probes)},
            "warnings": [found.warning] if found.warning else []}
