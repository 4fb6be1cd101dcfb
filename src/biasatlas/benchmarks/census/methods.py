"""The two published census methods, behind one small interface.

* ``touileb2023``: Touileb, Øvrelid & Velldal (EACL 2023), the paper :class:`Census`
  reproduces: every identifier × predicate × occupation form (:func:`build_plan`), read
  as P(identifier | context) and aggregated with eq. 1–2 (:mod:`.scoring`), plus an
  occupation-free baseline for likelihood scorers (:mod:`.diagnostics`).
* ``gebnlp2022``: its Norwegian predecessor (Touileb, Øvrelid & Velldal, GeBNLP 2022),
  one template per occupation and four pronouns (:mod:`.gebnlp`).
* ``bartl2020``: BEC-Pro's association score (Bartl, Nissim & Gatt, GeBNLP 2020, with
  Kurita et al. 2019), log P(person | profession) over its prior with the profession
  masked, on BEC-Pro's English or German sentences (:mod:`.becpro`); masked LMs only.

A method says which occupations it can score, which probes it asks, how answers are read
(its normalisation rule and, for likelihood scorers, the causal reading) and how answers
become scores. What the answers mean comes from the bound scorer's
:class:`~biasatlas.probes.ScorerInfo` (``census.scorer``), never from its name.

**Fragile occupations.** An occupation is fragile when its model class could differ had
the network run exactly, given the scorer's dtype. Each answer sums k token
log-probabilities, each off by at most δ (:data:`~biasatlas.probes.TOKEN_LOGPROB_ERROR`),
so each probability P = exp(ℓ) the share is built from is exact within a factor
e^{±ε}, ε = k·δ (k the largest token count among the occupation's answers; 1 under the
``first-token`` policy, one softmax). Template normalisation divides by a sum of such
probabilities, itself within e^{±ε}, so a normalised P(i | t) is within e^{±2ε}. Every
aggregation's share rises with each female probability and falls with each male one, so
its exact value lies between the share computed with every female probability × e^{−η}
and every male one × e^{+η}, and the share with the reverse (:func:`share_bounds`):
η = ε without normalisation, and also with it for ``mean-share`` and ``majority``, whose
per-template shares the normaliser cancels from; η = 2ε for ``mean-prob`` and ``pooled``
under template normalisation. For ``mean-prob`` and ``pooled`` this is exactly a move of
at most 2η in the share's log-odds: s ∈ [s / (s + (1 − s)·e^{2η}), s / (s + (1 − s)·e^{−2η})],
which to first order is |Δs| ≤ s(1 − s)·2η. The class is monotone in the share, so the
occupation is fragile when the two ends of that interval fall in different classes
(a threshold, 45 or 55 %, lies within it).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from ...probes import Answer, ContinuationProbe, SlotAnswer, SlotProbe, fragile_bound
from .becpro import AssociationPlan, association_result, build_association_plan, mask_token_of
from .diagnostics import Baseline, baseline, baseline_plan
from .gebnlp import build_gebnlp_probes, compute_gebnlp_metrics
from .metrics import Aggregation, TemplateProbs, female_share, share_class
from .scoring import CensusResult, Normalisation, compute_metrics, template_probabilities
from .settings import Auto, CausalReading, CensusItem, CensusSettings, Method
from .summary import Association, BaselineShare, GebnlpAgreement, PaperReading
from .table import CensusTable
from .templates import CensusPlan, conditional_plan


@dataclass(frozen=True)
class MethodScores:
    """A method's result: the per-occupation scores, how many sentences and distinct
    contexts were asked, the summary's part only this method has, and the fragile
    occupations' names (see the module docstring)."""

    result: CensusResult
    n_sentences: int
    n_contexts: int
    part: PaperReading | GebnlpAgreement | Association
    fragile: frozenset[str] = field(default_factory=frozenset)


class CensusMethod(Protocol):
    """One published way from census items to scores."""

    name: Method

    def occupations(self, census: CensusSettings) -> tuple[str, ...]:
        """The occupations this method can score (the benchmark's items)."""

    def probes(self, census: CensusSettings, items: Sequence[CensusItem]) -> list[SlotProbe | ContinuationProbe]:
        """The questions for ``items``, in the bound scorer's reading."""

    def normalisation(self, census: CensusSettings) -> Normalisation | Auto:
        """How slot answers are read; ``auto`` while it depends on a scorer not yet bound."""

    def reading(self, census: CensusSettings) -> CausalReading | Auto | None:
        """The causal reading for likelihood scorers; None when answers are read at a mask
        (or the method has none); ``auto`` while it depends on a scorer not yet bound."""

    def score(self, census: CensusSettings, items: Sequence[CensusItem],
              answers: Mapping[str, Answer]) -> MethodScores:
        """The method's scores from the scorer's answers."""


class Touileb2023:
    """EACL 2023: P(identifier | context) per template, equations 1–2 (METHODS.md §1)."""

    name: Method = "touileb2023"

    def occupations(self, census: CensusSettings) -> tuple[str, ...]:
        return census.plan.occupations  # those with every inflection form the templates need

    def probes(self, census: CensusSettings, items: Sequence[CensusItem]) -> list[SlotProbe | ContinuationProbe]:
        """The paper's probes in this scorer's reading, then the baseline's (likelihood LMs)."""
        plan = _plan_of(census, items)
        extra = list(baseline_plan(plan).probes) if census.reading is not None else []
        return [*self._read(census, plan).probes, *extra]

    def normalisation(self, census: CensusSettings) -> Normalisation | Auto:
        """``none`` when the answer is P(filler | context) read at a mask (it is P(i | t)
        already); ``template`` for sentence likelihoods, which compare identifiers only
        once normalised over the template's candidates (:mod:`.scoring`)."""
        if census.normalisation != "auto":
            return census.normalisation
        if census.scorer is None:
            return "auto"
        return "none" if census.scorer.reads == "masked" else "template"

    def reading(self, census: CensusSettings) -> CausalReading | Auto | None:
        if census.scorer is not None and census.scorer.reads == "masked":
            return None  # the identifier is the masked target: no reading to choose
        if census.causal_reading != "auto":
            return census.causal_reading
        return "auto" if census.scorer is None else "conditional"

    def score(self, census: CensusSettings, items: Sequence[CensusItem],
              answers: Mapping[str, Answer]) -> MethodScores:
        plan = _plan_of(census, items)
        read = self._read(census, plan)
        result = compute_metrics(read, answers,  # type: ignore[arg-type]
                                 aggregation=census.aggregation,
                                 normalisation=census.resolved_normalisation,
                                 n_resamples=census.n_resamples, seed=census.seed)
        return MethodScores(result, plan.n_sentences, len(plan.probes),
                            _diagnostics(census, plan, answers), self._fragile(census, read, answers))

    def _fragile(self, census: CensusSettings, plan: CensusPlan, answers: Mapping[str, Answer]) -> frozenset[str]:
        """The occupations whose class could flip within the scorer's error (module docstring)."""
        normalisation = census.resolved_normalisation
        templates, _ = template_probabilities(plan, answers, normalisation)  # type: ignore[arg-type]
        tokens: dict[str, int] = {}
        for cell in plan.cells:
            answer = answers.get(cell.probe_id)
            if isinstance(answer, SlotAnswer):
                k = max((answer.n_tokens[i] for i in cell.filler_indices if i < len(answer.n_tokens)), default=0)
                tokens[cell.occupation] = max(k, tokens.get(cell.occupation, 0))
        delta = _token_error(census)
        widen = 2.0 if normalisation == "template" and census.aggregation in ("mean-prob", "pooled") else 1.0
        return frozenset(o for o, probs in templates.items()
                         if is_fragile(probs, census.aggregation,
                                       widen * delta * _tokens_read(census, tokens.get(o, 0))))

    def _read(self, census: CensusSettings, plan: CensusPlan) -> CensusPlan:
        """The plan as this scorer answers it: slot probes, or continuation probes."""
        return conditional_plan(plan) if census.reading == "conditional" else plan


class Gebnlp2022:
    """GeBNLP 2022: one template per occupation, F = P(Hun) + P(hun) against M (:mod:`.gebnlp`)."""

    name: Method = "gebnlp2022"

    def occupations(self, census: CensusSettings) -> tuple[str, ...]:
        return census.census_table.occupations  # no inflection forms needed

    def probes(self, census: CensusSettings, items: Sequence[CensusItem]) -> list[SlotProbe | ContinuationProbe]:
        return list(build_gebnlp_probes(_table_of(census, items), census.template_set))

    def normalisation(self, census: CensusSettings) -> Normalisation | Auto:
        return "none"  # F / (F + M) is the same whatever normaliser F and M share

    def reading(self, census: CensusSettings) -> CausalReading | Auto | None:
        return None  # pronoun fillers of one template, read alike by every scorer

    def score(self, census: CensusSettings, items: Sequence[CensusItem],
              answers: Mapping[str, Answer]) -> MethodScores:
        table = _table_of(census, items)
        gebnlp = compute_gebnlp_metrics(table, answers, census.template_set,  # type: ignore[arg-type]
                                        n_resamples=census.n_resamples, seed=census.seed)
        agreement = GebnlpAgreement(census.template_set, gebnlp.binary_agreement)
        return MethodScores(gebnlp.census, len(table), len(table), agreement, self._fragile(census, table, answers))

    def _fragile(self, census: CensusSettings, table: CensusTable, answers: Mapping[str, Answer]) -> frozenset[str]:
        """Occupations whose class could flip: one template, F and M unnormalised (η = ε)."""
        delta = _token_error(census)
        fragile = set()
        for row, probe in zip(table.occupations, build_gebnlp_probes(table, census.template_set), strict=True):
            answer = answers.get(probe.id)
            if not isinstance(answer, SlotAnswer) or len(answer.logprobs) != 4:
                continue
            probs = [math.exp(lp) for lp in answer.logprobs]  # Hun, hun, Han, han (PRONOUNS)
            template = TemplateProbs(probe.id, (probs[0] + probs[1],), (probs[2] + probs[3],))
            if is_fragile([template], "mean-prob", delta * _tokens_read(census, max(answer.n_tokens, default=0))):
                fragile.add(row)
        return frozenset(fragile)


class Bartl2020:
    """GeBNLP 2020: Kurita et al.'s association on BEC-Pro's sentences (:mod:`.becpro`)."""

    name: Method = "bartl2020"

    def occupations(self, census: CensusSettings) -> tuple[str, ...]:
        return census.census_table.occupations  # BEC-Pro's professions (the table's rows)

    def probes(self, census: CensusSettings, items: Sequence[CensusItem]) -> list[SlotProbe | ContinuationProbe]:
        return list(self._plan(census, items).probes)

    def normalisation(self, census: CensusSettings) -> Normalisation | Auto:
        return "none"  # both probabilities come from one softmax each, over the vocabulary

    def reading(self, census: CensusSettings) -> CausalReading | Auto | None:
        return None  # masked LMs only (Census.refuse refuses the others)

    def score(self, census: CensusSettings, items: Sequence[CensusItem],
              answers: Mapping[str, Answer]) -> MethodScores:
        plan = self._plan(census, items)
        result, association = association_result(plan, answers, n_resamples=census.n_resamples,  # type: ignore[arg-type]
                                                 seed=census.seed)
        return MethodScores(result, len(plan.cells), len(plan.probes), association)

    def _plan(self, census: CensusSettings, items: Sequence[CensusItem]) -> AssociationPlan:
        return build_association_plan(census.template_language, _table_of(census, items),
                                      mask_token_of(census.scorer))


METHOD_OBJECTS: dict[Method, CensusMethod] = {"touileb2023": Touileb2023(),
                                              "gebnlp2022": Gebnlp2022(),
                                              "bartl2020": Bartl2020()}


_MAX_ETA = 300.0


def share_bounds(templates: Sequence[TemplateProbs], aggregation: Aggregation,
                 eta: float) -> tuple[float, float] | None:
    """The lowest and highest share the aggregation gives when every probability may be
    off by a factor e^{±eta}: female ones down and male ones up, then the reverse
    (every aggregation is monotone in each probability). None without probability mass.
    ``eta`` is capped at 300 nats, which already moves any share to 0 or 100 % (and keeps
    e^eta finite)."""
    eta = min(eta, _MAX_ETA)

    def tilted(sign: float) -> list[TemplateProbs]:
        up, down = math.exp(sign * eta), math.exp(-sign * eta)
        return [TemplateProbs(t.template, tuple(p * up for p in t.female), tuple(p * down for p in t.male))
                for t in templates]

    low, high = female_share(tilted(-1.0), aggregation), female_share(tilted(1.0), aggregation)
    return None if low is None or high is None else (low, high)


def is_fragile(templates: Sequence[TemplateProbs], aggregation: Aggregation, eta: float) -> bool:
    """Whether the class of the share could differ at the two ends of :func:`share_bounds`
    (also when an end has no mass left: probabilities so small that e^{−eta} underflows)."""
    bounds = share_bounds(templates, aggregation, eta)
    return bounds is None or share_class(bounds[0]) != share_class(bounds[1])


def _token_error(census: CensusSettings) -> float:
    return float(fragile_bound(census.scorer)["token_error"])


def _tokens_read(census: CensusSettings, n_tokens: int) -> int:
    """Token log-probabilities one answer sums: one under ``first-token`` (one softmax)."""
    first_token = census.scorer is not None and census.scorer.multi_token == "first-token"
    return min(n_tokens, 1) if first_token else n_tokens


def _table_of(census: CensusSettings, items: Sequence[CensusItem]) -> CensusTable:
    return census.census_table.subset([i.occupation for i in items])


def _plan_of(census: CensusSettings, items: Sequence[CensusItem]) -> CensusPlan:
    """The plan restricted to ``items`` (all of them, normally)."""
    plan = census.plan
    keep = {i.occupation for i in items}
    if keep == set(plan.occupations):
        return plan
    cells = tuple(c for c in plan.cells if c.occupation in keep)
    used = {c.probe_id for c in cells}
    return replace(plan, occupations=tuple(o for o in plan.occupations if o in keep),
                   probes=tuple(p for p in plan.probes if p.id in used), cells=cells)


def _diagnostics(census: CensusSettings, plan: CensusPlan, answers: Mapping[str, Answer]) -> PaperReading:
    """The occupation-free baseline (likelihood scorers only) and its warning."""
    if census.reading is None:
        return PaperReading(None, ())
    base_plan = baseline_plan(plan)
    found: Baseline = baseline(base_plan, answers, census.aggregation)  # type: ignore[arg-type]
    share = BaselineShare(found.share, found.top_identifier, found.top_identifier_share, len(base_plan.probes))
    return PaperReading(share, (found.warning,) if found.warning else ())
