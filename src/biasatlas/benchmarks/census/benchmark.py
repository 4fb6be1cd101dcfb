"""The ``census`` benchmark: Touileb, Øvrelid & Velldal (EACL 2023) through the pipeline.

Wires the pure census code (tables, templates, eq. 1–2 metrics, the GeBNLP 2022
predecessor) into the :class:`~biasatlas.benchmarks.base.Benchmark` contract. Items are
occupations; probes are the distinct masked contexts of :func:`build_plan` (one
:class:`~biasatlas.probes.SlotProbe` serves every identifier that fits the same
context); the summary holds the paper's Table 3/4 numbers, bootstrap intervals,
correlations and the forward-pass count.

Three methods share the benchmark (:mod:`.methods`): ``touileb2023`` (the paper),
``gebnlp2022`` (its Norwegian predecessor) and ``bartl2020`` (BEC-Pro's association score),
each saying which occupations it scores, which probes it asks, its normalisation rule and how
answers become scores.

Its options are declared once (:mod:`..options`). :func:`biasatlas.pipeline.run_benchmark` binds it
to its scorer (``bind``, derived; :meth:`Census.refuse` says which scorers it cannot read): the
scorer's :class:`~biasatlas.probes.ScorerInfo` resolves ``normalisation="auto"`` (``none`` when
the answer is P(i | t) read at a mask; ``template`` when it is a sentence log-likelihood, as from
causal and seq2seq LMs), the causal reading and the multi-token policy; the table and plan
already built are kept (``KEPT_ON_BIND``). The summary records the scorer's planned rows
(``COUNTS_WORK``: :func:`~biasatlas.benchmarks.contract.with_work`).

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
from dataclasses import asdict, dataclass
from functools import cached_property
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, ClassVar, Literal, cast

from ...errors import DataError, UnknownName, UnsupportedProbe, UsageError
from ...probes import Answer, ContinuationProbe, ScorerInfo, SlotProbe, fragile_bound
from ...runs.checks import FragileBound
from ..contract import BenchmarkResult
from ..options import UNRECORDED, Options, option
from .becpro import BEC_PRO_TABLES
from .gebnlp import TemplateSet
from .language import COUNTRY_LANGUAGE, SHIPPED_LANGUAGES, IdentifierSet
from .methods import METHOD_OBJECTS, CensusMethod, MethodScores
from .metrics import Aggregation
from .paraphrases import predicate_sets, predicates_source
from .scoring import Normalisation
from .settings import Auto, CausalReading, CensusItem, Method
from .summary import (Association, CensusIntervals, CensusRunSummary, GebnlpAgreement, MultiToken,
                      PaperReading)
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
__all__ = ["COUNTRIES", "VERSION", "Census", "CensusItem"]  # CensusItem: declared in .settings


@dataclass(frozen=True)
class Census(Options):
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

    name: ClassVar[str] = "census"
    VERSION: ClassVar[str] = VERSION
    UNIT: ClassVar[str] = "occupations"
    COUNTS_WORK: ClassVar[bool] = True
    KEPT_ON_BIND: ClassVar[tuple[str, ...]] = ("census_table", "plan")  # built already, and independent of the scorer
    #: config.json's keys in their order since format 1 (the subset among the options; Options.RECORDED)
    RECORDED: ClassVar[tuple[str, ...]] = (
        "method", "country", "dataset", "data", "data_sha256", "census", "language", "inflections", "sample", "seed",
        "limit", "aggregation", "normalisation", "normalisation_requested", "template_set", "missing", "n_resamples",
        "identifiers", "causal_reading", "preamble", "multi_token_policy", "predicates", "predicates_sha256")

    country: str = option("us", "Shipped census table (de and us-bec-pro: BEC-Pro's 60 professions); uk needs "
                                "--census (not shipped).", choices=COUNTRIES, case_sensitive=False,
                          any_beside="census")
    census: Path | None = option(None, "Your own census CSV (columns occupation,female_pct) instead of the "
                                       "shipped table.", file=True)
    language: str | None = option(None, "Template language: en | fr | no | de, or a folder (default: the "
                                        "country's).")
    inflections: Path | None = option(None, "Occupation forms CSV for --census tables (occupation,sg,pl,article "
                                            "for English).", file=True)
    aggregation: Aggregation = option("mean-prob", "How scores become a share (default mean-prob).")
    normalisation: Auto | Normalisation = option("auto", "auto: none for masked LMs, template for causal/seq2seq.")
    method: Method = option("touileb2023", "touileb2023 (EACL 2023), gebnlp2022 (the Norwegian predecessor) or "
                                           "bartl2020 (BEC-Pro's association score, Kurita et al. 2019; masked "
                                           "LMs, --country us or de).")
    template_set: TemplateSet = option("jobber_som", "gebnlp2022 only.")
    missing: Missing = option("error", "Skip (and record) occupations without inflection forms instead of failing.",
                              spelling="--skip-missing/--no-skip-missing", switch=("error", "skip"))
    identifiers: IdentifierSet = option("paired", "paired (default: every identifier with its other-gender twin, "
                                                  "so a symmetric model scores 50) | all (the paper's Table 2 as "
                                                  "printed: 15 female, 13 male in en/no).")
    causal_reading: Auto | CausalReading = option(
        "auto", "Causal/seq2seq LMs: conditional (auto's choice: log P(occupation | identifier + predicate)) | "
                "joint (log P(whole sentence), which includes each identifier's own prior).")
    preamble: str = option("", "Text put before every sentence (a robustness check; default none).")
    # recorded only when set, so that a folder written before the option existed still accepts its own rerun
    predicates: str | None = option(
        None, "Paraphrased predicates in place of the paper's: a set of the template language ("
              + "; ".join(f"{code}: {', '.join(predicate_sets(code))}" for code in SHIPPED_LANGUAGES)
              + ") or a CSV file (id,number,tense,text).")

    def check(self) -> None:
        """The checks between options: a table for ``uk``, and what each method can read."""
        if self.census is None and self.country == "uk":
            raise UnknownName(f"census country 'uk': {UK_HOWTO}; then run with --census FILE "
                              "(and --inflections FILE for its English occupation forms)")
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

    def refuse(self, info: ScorerInfo) -> None:
        """bartl2020 reads a masked LM's mask, and a causal reading is for likelihood scorers only."""
        if self.method == "bartl2020" and info.reads != "masked":
            raise UnsupportedProbe("the bartl2020 method (BEC-Pro's association score) reads a masked LM's "
                                   "mask: a causal or seq2seq LM has no prior with the profession masked")
        if info.reads == "masked" and self.causal_reading != "auto":
            raise UnsupportedProbe(f"causal reading {self.causal_reading!r} is for causal and seq2seq "
                                   "LMs: a masked LM reads P(identifier | context) at the mask")

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
        return cast("CausalReading | None", _bound(self.published.reading(self), "causal_reading",
                                                   "causal_reading='conditional' or 'joint'"))

    # -- the scorer's readings (bound by Options.bind, from pipeline.run_benchmark) -------------
    @property
    def resolved_normalisation(self) -> Normalisation:
        """How slot answers are read; ``auto`` follows the scorer (see the module docstring)."""
        return cast(Normalisation, _bound(self.published.normalisation(self), "normalisation",
                                          "normalisation='none' (masked LM) or 'template' (causal/seq2seq)"))

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
        skipped = [{"id": slug(s.occupation), "occupation": s.occupation, "reason": s.reason}
                   for s in result.skipped]
        return BenchmarkResult(self._summary(scores, sum(bool(r["fragile"]) for r in records)), records, skipped)

    def _summary(self, scores: MethodScores, n_fragile: int) -> CensusRunSummary:
        """The typed summary (:mod:`.summary`); ``n_forward_passes`` is the pipeline's to fill
        (``COUNTS_WORK``: the scorer's planned rows)."""
        result, s, part = scores.result, scores.result.summary, scores.part
        bound = fragile_bound(self.scorer)
        return CensusRunSummary(
            method=self.method, country=self.country, language=result.language, identifiers=self.identifiers,
            causal_reading=self.reading, preamble=self.preamble, table=result.table,
            aggregation=result.aggregation, normalisation=result.normalisation,
            n_occupations=s.n_occupations, normative=s.normative, descriptive=s.descriptive,
            descriptive_by_class=asdict(s.descriptive_by_class),
            intervals=CensusIntervals((s.normative_ci.low, s.normative_ci.high),
                                      (s.descriptive_ci.low, s.descriptive_ci.high),
                                      s.confidence, s.n_resamples, s.seed),
            pearson=s.pearson, pearson_p=s.pearson_p, spearman=s.spearman, spearman_p=s.spearman_p,
            census_counts=asdict(s.census_counts), model_counts=asdict(s.model_counts),
            multi_token=MultiToken(self.multi_token_policy, len(result.multi_token), dict(result.multi_token)),
            n_skipped=len(result.skipped), predicates=self.predicates,
            n_probes=scores.n_sentences, n_contexts=scores.n_contexts, n_forward_passes=None,
            paper=part if isinstance(part, PaperReading) else None,
            gebnlp=part if isinstance(part, GebnlpAgreement) else None,
            bartl=part if isinstance(part, Association) else None,
            n_fragile=n_fragile, fragile_bound=FragileBound(str(bound["dtype"]), float(bound["token_error"])))

    def provenance(self) -> dict[str, Any]:
        """The table read (its dataset, file and sha256) after the country, the template language in
        use, the normalisation and causal reading as resolved for the bound scorer ("auto" while none
        is), the multi-token policy, and the predicates file's sha256 when replaced.

        "method" was recorded as "variant" (its name before the parameter became ``method``) by run
        folders of format 1; the spec's ``renamed_config`` says so, and their reruns and reports read
        it as "method" (biasatlas.runs.format)."""
        table = self.census_table
        return {"country": self.country, "dataset": f"census-{table.name}", "data": table.source,
                "data_sha256": table.sha256, "language": self.template_language,
                "normalisation": self.published.normalisation(self), "normalisation_requested": self.normalisation,
                "template_set": self.template_set if self.method == "gebnlp2022" else None,
                "causal_reading": self.published.reading(self),
                "preamble": self.preamble, "multi_token_policy": self.multi_token_policy,
                **self._predicates_config()}

    def _predicates_config(self) -> dict[str, Any]:
        """The predicates when replaced (a set's name or a file, with its sha256); absent otherwise
        (the option is recorded only when set)."""
        source = self.predicates_file
        if source is None:
            return {"predicates": UNRECORDED} if self.predicates is None else {}
        try:
            data = source.read_bytes()
        except OSError as exc:
            raise DataError(f"cannot read: {exc.strerror or exc}", path=str(source), field="predicates") from None
        return {"predicates": self.predicates, "predicates_sha256": hashlib.sha256(data).hexdigest()}


def _bound(value: object, option: str, instead: str) -> object:
    """A scorer-dependent option once the scorer is known: ``auto`` still unbound is refused,
    naming the two ways to bind it and the values to pass ``instead``."""
    if value == "auto":
        raise ValueError(f"{option}='auto' depends on the scorer: run through "
                         "biasatlas.pipeline.run_benchmark, call bind(scorer.info), or pass " + instead)
    return value
