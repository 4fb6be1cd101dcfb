"""From a scorer's answers to the census scores (Touileb et al. 2023, eq. 1–2).

A scorer answers each :class:`~biasatlas.probes.SlotProbe` with one log-probability per
filler. How to read those numbers depends on the model (the ``normalisation``):

* ``none``: a masked LM answers log P(filler | context) from a softmax over the whole
  vocabulary at the mask, which is what the paper uses as P(i | t);
* ``template``: a causal or seq2seq LM answers a likelihood for each filled-in sentence,
  either joint, log P(whole sentence), or conditional, log P(occupation phrase |
  identifier + predicate) (see :mod:`.benchmark`, ``causal_reading``). Those are not
  probabilities of the identifier, so they are normalised over all candidate identifiers
  (both genders, every spelling variant) of the same template before use:
  P(i | t) = Σ_variants exp(ℓ_v) / Σ_{all identifiers j of t} Σ_variants exp(ℓ).
  With the conditional reading this is P(i | occupation, t) under a uniform prior over
  the template's identifiers (Bayes' rule), which is what the paper's P(i | t) is meant
  to measure, without the identifier's own prior.

The benchmark picks ``template`` for causal and seq2seq scorers and records it.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ...probes import ContinuationProbe, SlotAnswer, SlotProbe
from .language import IdentifierSet
from .metrics import (AGGREGATIONS, Aggregation, CensusSummary, GenderClass, TemplateProbs,
                      female_share, gender_scores, share_class, summarise)
from .table import CensusTable
from .templates import Cell, CensusPlan, Skip, build_plan

Normalisation = Literal["none", "template"]
NORMALISATIONS: tuple[str, ...] = ("none", "template")


@dataclass(frozen=True)
class OccupationScore:
    """One occupation: census share, model share, their classes and eq. 2 scores."""

    occupation: str
    census_pct: float
    census_class: GenderClass
    model_pct: float
    model_class: GenderClass
    score_f: float
    score_m: float
    n_templates: int

    @property
    def agrees(self) -> bool:
        return self.census_class == self.model_class


@dataclass(frozen=True)
class CensusResult:
    """Per-occupation records, the summary, and what was left out and why."""

    language: str
    table: str
    aggregation: str
    normalisation: str
    occupations: tuple[OccupationScore, ...]
    summary: CensusSummary
    skipped: tuple[Skip, ...]
    multi_token: tuple[tuple[str, int], ...]  # fillers the model split, with token counts

    def records(self) -> list[dict[str, Any]]:
        """JSON-ready per-occupation rows (for the run folder)."""
        return [{"occupation": o.occupation, "census_pct": o.census_pct,
                 "census_class": o.census_class, "model_pct": o.model_pct,
                 "model_class": o.model_class, "score_f": o.score_f, "score_m": o.score_m,
                 "n_templates": o.n_templates, "agrees": o.agrees} for o in self.occupations]


def compute_metrics(table: CensusTable | CensusPlan,
                    answers: Mapping[str, SlotAnswer] | Iterable[SlotAnswer], *,
                    language: str | Path | None = None,
                    aggregation: Aggregation = "mean-prob",
                    normalisation: Normalisation = "none",
                    n_resamples: int = 1000, seed: int = 0,
                    confidence: float = 0.95,
                    identifier_set: IdentifierSet = "paired") -> CensusResult:
    """Normative and descriptive scores of the model that produced ``answers``.

    ``table`` is the plan the probes came from, or a census table whose plan is rebuilt
    with the default templates of ``language`` (default: the table's own language) and
    ``identifier_set``.
    Occupations with a missing or non-finite answer, or no probability mass, are skipped
    with a reason.
    """
    _check_option("aggregation", aggregation, AGGREGATIONS)
    _check_option("normalisation", normalisation, NORMALISATIONS)
    plan = table if isinstance(table, CensusPlan) else _default_plan(table, language, identifier_set)
    by_id = answers if isinstance(answers, Mapping) else {a.id: a for a in answers}
    templates, skipped = template_probabilities(plan, by_id, normalisation)
    rows: list[OccupationScore] = []
    for occupation in plan.occupations:
        if occupation not in templates:
            continue
        share = female_share(templates[occupation], aggregation)
        if share is None:
            skipped[occupation] = "zero probability mass for both genders"
            continue
        rows.append(_occupation_score(plan.table, occupation, templates[occupation], share))
    summary = summarise([r.census_pct for r in rows], [r.model_pct for r in rows],
                        n_resamples=n_resamples, seed=seed, confidence=confidence)
    skips = plan.skipped + tuple(Skip(o, why) for o, why in skipped.items())
    return CensusResult(language=plan.language, table=plan.table.name, aggregation=aggregation,
                        normalisation=normalisation, occupations=tuple(rows), summary=summary,
                        skipped=skips, multi_token=_multi_token(plan, by_id))


def _check_option(name: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ValueError(f"unknown {name} {value!r}; available: {', '.join(allowed)}")


def _default_plan(table: CensusTable, language: str | Path | None,
                  identifier_set: IdentifierSet) -> CensusPlan:
    lang = language or table.language
    if lang is None:
        raise ValueError(f"census table {table.name!r} has no language: pass language=…")
    return build_plan(lang, table, missing="skip", identifier_set=identifier_set)


def _occupation_score(table: CensusTable, occupation: str, templates: list[TemplateProbs],
                      share: float) -> OccupationScore:
    census = table.female_pct(occupation)
    score_f, score_m = gender_scores(templates)
    return OccupationScore(occupation=occupation, census_pct=census,
                           census_class=share_class(census), model_pct=share,
                           model_class=share_class(share), score_f=score_f, score_m=score_m,
                           n_templates=len(templates))


def template_probabilities(plan: CensusPlan, answers: Mapping[str, SlotAnswer],
                           normalisation: Normalisation = "none",
                           ) -> tuple[dict[str, list[TemplateProbs]], dict[str, str]]:
    """P(i | t) for every identifier, grouped into templates per occupation.

    Returns the templates of each scorable occupation and ``{occupation: reason}`` for
    the rest. Spelling variants ("Dama|Damen") are summed when the answer is a probability
    *of* the identifier (slot probes: the variants are disjoint outcomes) and averaged when
    it is a probability *given* the identifier (continuation probes: P(occupation | i) is a
    mixture over the ways to write i, which we weigh equally), so a two-form identifier
    counts once either way.
    """
    given = {p.id for p in plan.probes if isinstance(p, ContinuationProbe)}
    fillers = {p.id: len(p.fillers if isinstance(p, SlotProbe) else p.contexts) for p in plan.probes}
    groups: dict[tuple[str, str], list[tuple[Cell, list[float]]]] = defaultdict(list)
    skipped: dict[str, str] = {}
    for cell in plan.cells:
        answer = answers.get(cell.probe_id)
        if answer is None:
            skipped.setdefault(cell.occupation, f"no answer for probe {cell.probe_id}")
            continue
        if len(answer.logprobs) != fillers[cell.probe_id]:
            raise ValueError(f"answer {answer.id} has {len(answer.logprobs)} log-probabilities "
                             f"for {fillers[cell.probe_id]} fillers")
        logprobs = [float(answer.logprobs[i]) for i in cell.filler_indices]
        if cell.probe_id in given and len(logprobs) > 1:
            logprobs = [_log_mean_exp(logprobs)]
        if any(math.isnan(lp) or lp == math.inf for lp in logprobs):
            skipped.setdefault(cell.occupation, f"non-finite log-probability in {answer.id}")
        groups[(cell.occupation, cell.template)].append((cell, logprobs))
    out: dict[str, list[TemplateProbs]] = defaultdict(list)
    for (occupation, template), members in groups.items():
        if occupation not in skipped:
            out[occupation].append(_template_probs(template, members, normalisation))
    return dict(out), skipped


def _log_mean_exp(values: list[float]) -> float:
    top = max(values)
    if not math.isfinite(top):
        return top
    return top + math.log(sum(math.exp(v - top) for v in values) / len(values))


def _template_probs(template: str, members: list[tuple[Cell, list[float]]],
                    normalisation: Normalisation) -> TemplateProbs:
    shift = 0.0
    if normalisation == "template":
        # log-sum-exp over every variant of every identifier of the template.
        top = max(lp for _, lps in members for lp in lps)
        shift = top + math.log(sum(math.exp(lp - top) for _, lps in members for lp in lps)) \
            if top > -math.inf else 0.0
    probs: dict[str, list[float]] = {"f": [], "m": []}
    for cell, logprobs in members:
        probs[cell.gender].append(sum(math.exp(lp - shift) for lp in logprobs))
    return TemplateProbs(template=template, female=tuple(probs["f"]), male=tuple(probs["m"]))


def _multi_token(plan: CensusPlan,
                 answers: Mapping[str, SlotAnswer]) -> tuple[tuple[str, int], ...]:
    seen: dict[str, int] = {}
    for probe in plan.probes:
        answer = answers.get(probe.id)
        if answer is None or not isinstance(probe, SlotProbe):
            continue
        for filler, n in zip(probe.fillers, answer.n_tokens, strict=False):
            if n > 1:
                seen[filler] = max(n, seen.get(filler, 0))
    return tuple(sorted(seen.items()))
