"""The ``census`` benchmark: Touileb, Øvrelid & Velldal (EACL 2023) through the pipeline.

Wires the pure census code (tables, templates, eq. 1–2 metrics, the GeBNLP 2022
predecessor) into the :class:`~biasatlas.benchmarks.base.Benchmark` contract. Items are
occupations; probes are the distinct masked contexts of :func:`build_plan` (one
:class:`~biasatlas.probes.SlotProbe` serves every identifier that fits the same
context); the summary holds the paper's Table 3/4 numbers, bootstrap intervals,
correlations and the forward-pass count.

Two methods share the benchmark (:mod:`.methods`): ``touileb2023`` (the paper) and
``gebnlp2022`` (its Norwegian predecessor), each saying which occupations it scores,
which probes it asks, its normalisation rule and how answers become scores.

Two optional hooks let :func:`biasatlas.pipeline.run_benchmark` tell the benchmark about its
scorer: :meth:`Census.bind` records the scorer's :class:`~biasatlas.probes.ScorerInfo`,
which resolves ``normalisation="auto"`` (``none`` when the answer is P(i | t) read at a
mask; ``template`` when it is a sentence log-likelihood, as from causal and seq2seq LMs),
the causal reading and the multi-token policy; :meth:`Census.with_counters` adds the
scorer's row counts to the summary.

**Causal reading** (causal and seq2seq LMs). ``conditional`` (default) asks
log P(occupation phrase | identifier + predicate), a
:class:`~biasatlas.probes.ContinuationProbe`; after the per-template normalisation this is
P(identifier | occupation) with every identifier equally likely a priori. ``joint`` asks
log P(whole sentence), which adds each identifier's own prior log P(identifier +
predicate): with Gemma 3 on Norwegian that prior alone gives a 64 % female share, so the
joint reading measures the identifiers, not the occupations. Both record an
occupation-free baseline (:mod:`.diagnostics`) so the size of that prior is on record.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from functools import cached_property
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, Literal

from ...errors import DataError, UnknownName, UnsupportedProbe, UsageError
from ...probes import Answer, ContinuationProbe, ScorerInfo, SlotProbe, fragile_bound
from ...stats import check_resamples, check_seed
from ..base import BenchmarkResult, check_subset
from .becpro import BEC_PRO_TABLES
from .gebnlp import TEMPLATE_SETS, TemplateSet
from .language import COUNTRY_LANGUAGE, IDENTIFIER_SETS, IdentifierSet
from .methods import (CAUSAL_READINGS, METHOD_OBJECTS, METHODS, Auto, CausalReading, CensusMethod,
                      Method, MethodScores)
from .metrics import AGGREGATIONS, Aggregation
from .paraphrases import predicates_source
from .scoring import NORMALISATIONS, CensusResult, Normalisation
from .table import UK_HOWTO, CensusTable, load_census
from .templates import CensusPlan, build_plan, slug
from .templates import _sample as sample_occupations  # the one seeded draw build_plan uses

# 1: first version.
# 2: a probe repeating an earlier one's content gets its answer (issue 34 item 6): bartl2020's
#    repeated priors (US: 1,800 probes, 960 contents) take their first probe's value, so a
#    resumed run is byte-identical; touileb2023 and gebnlp2022 ask no probe twice (unchanged).
VERSION = "2"
COUNTRIES: tuple[str, ...] = ("us", "uk", "fr", "no", "de", "us-bec-pro")
Missing = Literal["error", "skip"]


@dataclass(frozen=True)
class CensusItem:
    """One occupation of the census table."""

    id: str
    occupation: str
    census_pct: float


@dataclass(frozen=True)
class Census:
    """Census-grounded normative and descriptive occupational bias.

    ``country`` picks a shipped table (``us``, ``fr``, ``no``, ``de``) or, with ``census``, names
    the user's table (``uk`` needs one: it is not shipped). ``language`` is a template
    language code or folder (default: the country's). ``sample`` draws that many
    occupations with ``numpy.random.default_rng(seed)``; ``limit`` keeps the first N.
    ``method`` is ``touileb2023`` (the paper), ``gebnlp2022`` (its Norwegian
    predecessor, one template per occupation, ``template_set`` ``er`` or ``jobber_som``)
    or ``bartl2020`` (BEC-Pro's association score, masked LMs, countries ``us`` and ``de``).
    ``identifiers`` is ``paired`` (default: each identifier with its other-gender twin)
    or ``all`` (the paper's Table 2 as printed). ``causal_reading`` is ``auto``
    (``conditional`` for causal and seq2seq LMs), ``conditional`` or ``joint`` (see the
    module docstring); masked LMs read P(identifier | context) at the mask and take no
    reading. ``preamble`` is text put before every sentence (a robustness check).
    ``predicates`` replaces the language's predicates with a paraphrase set of it (a name,
    :mod:`.paraphrases`) or a CSV file of the user's (touileb2023 only).
    """

    country: str = "us"
    census: Path | None = None
    language: str | None = None
    inflections: Path | None = None
    sample: int | None = None
    seed: int = 0
    limit: int | None = None
    aggregation: Aggregation = "mean-prob"
    normalisation: Auto | Normalisation = "auto"
    method: Method = "touileb2023"
    template_set: TemplateSet = "jobber_som"
    missing: Missing = "error"
    identifiers: IdentifierSet = "paired"
    causal_reading: Auto | CausalReading = "auto"
    preamble: str = ""
    predicates: str | None = None
    n_resamples: int = 1000
    scorer: ScorerInfo | None = None  # set by bind(): what the scorer's answers mean
    name: str = "census"
    VERSION: str = VERSION

    def __post_init__(self) -> None:
        from ...errors import canonical_name, did_you_mean

        # Country codes are case-insensitive (US); the canonical spelling is what is recorded.
        if isinstance(self.country, str):
            object.__setattr__(self, "country", canonical_name(self.country, COUNTRIES))
        if self.census is None and self.country == "uk":
            raise UnknownName(f"census country 'uk': {UK_HOWTO}; then run with --census FILE "
                              "(and --inflections FILE for its English occupation forms)")
        if self.census is None and self.country not in COUNTRIES:
            raise did_you_mean("census country", self.country, COUNTRIES)
        for kind, value, allowed in (("census method", self.method, METHODS),
                                     ("aggregation", self.aggregation, AGGREGATIONS),
                                     ("normalisation", self.normalisation, ("auto", *NORMALISATIONS)),
                                     ("GeBNLP template set", self.template_set, tuple(TEMPLATE_SETS)),
                                     ("missing-forms policy", self.missing, ("error", "skip")),
                                     ("identifier set", self.identifiers, IDENTIFIER_SETS),
                                     ("causal reading", self.causal_reading, ("auto", *CAUSAL_READINGS))):
            if value not in allowed:
                raise did_you_mean(kind, value, allowed)
        if self.language is None and self.country not in COUNTRY_LANGUAGE:
            raise UnknownName(f"no template language for country {self.country!r}: pass --language "
                              "en, fr, no, de or a folder of your templates (in Python: language=)")
        if self.method == "gebnlp2022" and self.template_language != "no":
            raise UnknownName("the gebnlp2022 method has Norwegian templates only: use "
                              "country 'no' (or a Norwegian table with language 'no')")
        if self.method == "bartl2020" and (self.country not in BEC_PRO_TABLES or self.census is not None
                                           or self.language not in (None, self.template_language)):
            raise UnknownName("the bartl2020 method reads BEC-Pro's own sentences and shares: use country "
                              "'us' (English) or 'de' (German), without --census or --language")
        if self.predicates is not None:
            if self.method != "touileb2023":
                raise UsageError(f"predicates replace the touileb2023 templates; the {self.method} method "
                                 "reads templates of its own")
            predicates_source(self.template_language, self.predicates)  # an unknown set fails before scoring
        for field, count in (("sample", self.sample), ("limit", self.limit), ("n_resamples", self.n_resamples)):
            if count is not None and count < 1:
                raise UsageError(f"{field} must be a positive number{' of occupations' * (field != 'n_resamples')}, "
                                 f"not {count}")
        check_seed(self.seed)  # the draw and the bootstrap, checked before any scoring
        check_resamples(self.n_resamples)
        check_subset(self.limit, self.sample)

    # -- data -----------------------------------------------------------------------------
    @property
    def template_language(self) -> str:
        if self.method == "bartl2020" and self.country in BEC_PRO_TABLES:
            return BEC_PRO_TABLES[self.country][0]
        return self.language or COUNTRY_LANGUAGE[self.country]

    @property
    def published(self) -> CensusMethod:
        """The method object of :attr:`method` (:mod:`.methods`)."""
        return METHOD_OBJECTS[self.method]

    @cached_property
    def census_table(self) -> CensusTable:
        """The census rows in use: limited to the first N, then sampled."""
        # bartl2020 reads BEC-Pro's own table of the country (its US shares: BLS 2019).
        key = BEC_PRO_TABLES[self.country][1] if self.method == "bartl2020" else self.country
        table = load_census(self.census or key, language=self.template_language)
        if self.limit is not None:
            table = table.subset(table.occupations[: self.limit])
        return table.subset(sample_occupations(table.occupations, self.sample, self.seed))

    @property
    def predicates_file(self) -> Traversable | Path | None:
        """The predicates in use when not the language's own (:func:`.paraphrases.predicates_source`)."""
        return None if self.predicates is None else predicates_source(self.template_language, self.predicates)

    @cached_property
    def plan(self) -> CensusPlan:
        """The paper's probes (touileb2023) for every occupation of :attr:`census_table`."""
        return build_plan(self.template_language, self.census_table, inflections=self.inflections,
                          missing=self.missing, identifier_set=self.identifiers,
                          preamble=self.preamble, predicates=self.predicates_file)

    def load(self) -> list[CensusItem]:
        occupations = self.published.occupations(self)
        if not occupations:  # e.g. --skip-missing and no occupation has inflection forms
            skipped = len(self.plan.skipped)
            raise DataError(f"no occupation of {self.census_table.source} can be scored"
                            + (f": all {skipped} lack inflection forms (pass --inflections FILE)"
                               if skipped else ""), path=self.census_table.source)
        return [CensusItem(slug(o), o, self.census_table.female_pct(o)) for o in occupations]

    def probes(self, items: Sequence[CensusItem]) -> list[SlotProbe | ContinuationProbe]:
        """The method's probes in this scorer's reading (:mod:`.methods`)."""
        return self.published.probes(self, items)

    @property
    def reading(self) -> CausalReading | None:
        """``conditional`` or ``joint`` for likelihood scorers; None for masked LMs."""
        reading = self.published.reading(self)
        if reading == "auto":
            raise ValueError("causal_reading='auto' depends on the scorer: run through "
                             "biasatlas.pipeline.run_benchmark, call bind(scorer.info), or pass "
                             "causal_reading='conditional' or 'joint'")
        return reading

    # -- scorer hooks (called by pipeline.run_benchmark) ------------------------------------------
    def bind(self, info: ScorerInfo) -> Census:
        """This benchmark set up for a scorer whose answers mean what ``info`` says."""
        bound = replace(self, scorer=info)
        if self.method == "bartl2020" and info.reads != "masked":
            raise UnsupportedProbe("the bartl2020 method (BEC-Pro's association score) reads a masked LM's "
                                   "mask: a causal or seq2seq LM has no prior with the profession masked")
        if info.reads == "masked" and self.causal_reading != "auto":
            raise UnsupportedProbe(f"causal reading {self.causal_reading!r} is for causal and seq2seq "
                                   "LMs: a masked LM reads P(identifier | context) at the mask")
        for key in ("census_table", "plan"):  # built already, and independent of the scorer
            if key in self.__dict__:
                bound.__dict__[key] = self.__dict__[key]
        return bound

    @property
    def resolved_normalisation(self) -> Normalisation:
        """How slot answers are read; ``auto`` follows the scorer (see the module docstring)."""
        normalisation = self.published.normalisation(self)
        if normalisation == "auto":
            raise ValueError("normalisation='auto' depends on the scorer: run through "
                             "biasatlas.pipeline.run_benchmark, call bind(scorer.info), or pass "
                             "normalisation='none' (masked LM) or 'template' (causal/seq2seq)")
        return normalisation

    @property
    def multi_token_policy(self) -> str:
        """How fillers of several tokens were scored, as the summary records it."""
        if self.scorer is None:
            return "unknown"
        if self.scorer.reads == "masked":
            return self.scorer.multi_token or "joint"
        if self.reading == "conditional":
            return "not scored (conditional reading)"  # the identifier is context, never a target
        return "whole-sentence"

    def with_counters(self, summary: Mapping[str, Any], counters: Mapping[str, int]) -> dict[str, Any]:
        """The summary with the scorer's forward-pass counts (rows = model inputs).

        The pipeline passes the scorer's planned counts (``Scorer.plan``: what an uncached
        run computes), so a run answered from the score cache reports the same numbers.
        """
        rows = counters.get("rows_computed")
        per_probe = rows / summary["n_probes"] if rows is not None and summary.get("n_probes") else None
        return {**summary, "n_forward_passes": rows, "n_batches": counters.get("batches"),
                "n_encoder_passes": counters.get("encoder_rows"), "forward_passes_per_probe": per_probe}

    # -- metric ---------------------------------------------------------------------------
    def score(self, items: Sequence[CensusItem], answers: Mapping[str, Answer]) -> BenchmarkResult:
        return self._result(self.published.score(self, items, answers))

    def _result(self, scores: MethodScores) -> BenchmarkResult:
        result = scores.result
        records = [{"id": slug(o.occupation), "occupation": o.occupation,
                    "census_female_pct": o.census_pct, "model_female_pct": o.model_pct,
                    "census_class": o.census_class, "model_class": o.model_class,
                    "agrees": o.agrees, "score_f": o.score_f, "score_m": o.score_m,
                    "n_templates": o.n_templates, "fragile": o.occupation in scores.fragile}
                   for o in result.occupations]
        summary = {**self._summary(result), "n_probes": scores.n_sentences,
                   "n_contexts": scores.n_contexts, "n_forward_passes": None, **scores.extra,
                   "n_fragile": sum(bool(r["fragile"]) for r in records),
                   "fragile_bound": fragile_bound(self.scorer)}
        skipped = [{"id": slug(s.occupation), "occupation": s.occupation, "reason": s.reason}
                   for s in result.skipped]
        return BenchmarkResult(summary, records, skipped)

    def _summary(self, result: CensusResult) -> dict[str, Any]:
        s = result.summary
        return {
            "method": self.method, "country": self.country, "language": result.language,
            "identifiers": self.identifiers, "causal_reading": self.reading,
            "preamble": self.preamble,
            "table": result.table, "aggregation": result.aggregation,
            "normalisation": result.normalisation,
            "n_occupations": s.n_occupations, "normative": s.normative, "descriptive": s.descriptive,
            "descriptive_by_class": asdict(s.descriptive_by_class),
            "intervals": {"normative": [s.normative_ci.low, s.normative_ci.high],
                          "descriptive": [s.descriptive_ci.low, s.descriptive_ci.high],
                          "confidence": s.confidence, "n_resamples": s.n_resamples, "seed": s.seed},
            "pearson": s.pearson, "pearson_p": s.pearson_p,
            "spearman": s.spearman, "spearman_p": s.spearman_p,
            "census_counts": asdict(s.census_counts), "model_counts": asdict(s.model_counts),
            "multi_token": {"policy": self.multi_token_policy,
                            "n_identifiers": len(result.multi_token),
                            "identifiers": dict(result.multi_token)},
            "n_skipped": len(result.skipped),
            **({"predicates": self.predicates} if self.predicates is not None else {}),
        }

    def config(self) -> dict[str, Any]:
        table = self.census_table
        # "method" was recorded as "variant" (its name before the parameter became
        # ``method``) by run folders of format 1; the spec's ``renamed_config`` says so, and
        # their reruns and reports read it as "method" (biasatlas.runs.format). "normalisation"
        # and "causal_reading" record "auto" while no scorer is bound.
        return {"benchmark": self.name, "version": self.VERSION, "method": self.method,
                "country": self.country, "dataset": f"census-{table.name}",
                "data": table.source, "data_sha256": table.sha256,
                "census": str(self.census) if self.census else None,
                "language": self.template_language,
                "inflections": str(self.inflections) if self.inflections else None,
                "sample": self.sample, "seed": self.seed, "limit": self.limit,
                "aggregation": self.aggregation,
                "normalisation": self.published.normalisation(self),
                "normalisation_requested": self.normalisation,
                "template_set": self.template_set if self.method == "gebnlp2022" else None,
                "missing": self.missing, "n_resamples": self.n_resamples,
                "identifiers": self.identifiers, "causal_reading": self.published.reading(self),
                "preamble": self.preamble,
                "multi_token_policy": self.multi_token_policy, **self._predicates_config()}

    def _predicates_config(self) -> dict[str, Any]:
        """The predicates when replaced (a set's name or a file, with its sha256); absent otherwise,
        so that a folder written before the option existed still accepts its own rerun."""
        source = self.predicates_file
        if source is None:
            return {}
        try:
            data = source.read_bytes()
        except OSError as exc:
            raise DataError(f"cannot read: {exc.strerror or exc}", path=str(source), field="predicates") from None
        return {"predicates": self.predicates, "predicates_sha256": hashlib.sha256(data).hexdigest()}
