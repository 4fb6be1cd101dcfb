"""A census run's typed summary (Touileb et al. 2023, Tables 3 and 4): what :class:`~.benchmark.Census`
builds, what summary.json holds (:func:`~biasatlas.runs.typed.encode`, in field order) and what the
report reads back (one type, written and read).

A field a later version adds never fails an old report: a key a run lacks reads as its default.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ...runs.checks import FragileBound, Interval
from ...runs.view import Column, RunView
from ...runs.typed import Summary, part, when_set

#: The items.jsonl fields the report reads (presence, in this order, then types).
COLUMNS: tuple[Column, ...] = (Column("occupation"), Column("census_female_pct", "number"),
                               Column("model_female_pct", "number?"), Column("census_class", "string?"),
                               Column("model_class", "string?"))


@dataclass(frozen=True)
class CensusIntervals:
    """The bootstrap intervals of the two scores, their confidence level, resamples and seed."""

    normative: Interval | None = None
    descriptive: Interval | None = None
    confidence: float | None = None
    n_resamples: int | None = None
    seed: int | None = None


@dataclass(frozen=True)
class MultiToken:
    """How fillers split into several tokens were scored (``policy``), how many identifiers split,
    and each one's token count."""

    policy: str | None = None
    n_identifiers: int | None = None
    identifiers: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class BaselineShare:
    """The occupation-free baseline of a likelihood reading (:mod:`.diagnostics`): the female share
    of the identifiers' own prior, the identifier it favours most, and the contexts asked."""

    share: float | None = None
    top_identifier: str | None = None
    top_identifier_share: float | None = None
    n_contexts: int | None = None


@dataclass(frozen=True)
class PaperReading:
    """touileb2023's own keys: the baseline (None for masked LMs, which read no prior) and the
    WARNING sentences the run printed (the baseline outside 45–55 %)."""

    baseline: BaselineShare | None = None
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class GebnlpAgreement:
    """gebnlp2022's own keys: its template set and its binary agreement (% of occupations whose
    F > M flag matches census > 50 %)."""

    template_set: str | None = None
    binary_agreement: float | None = None


@dataclass(frozen=True)
class Association:
    """bartl2020's own keys: the mean association by gender, overall and per census class, and the
    sentences with both answers."""

    association: Mapping[str, Mapping[str, float | None]] = field(default_factory=dict)
    n_sentences: int | None = None


@dataclass(frozen=True)
class CensusRunSummary(Summary):
    """A census run's summary, as written and read, in the order written: the settings it was read
    with, normative and descriptive scores (% of occupations), the descriptive split by census class,
    their bootstrap intervals, the correlations of census and model shares, the caption's facts
    (occupations per class, the multi-token policy, the sentences, contexts and rows
    (``n_forward_passes``: model inputs) scored), the method's own keys (one of the three parts), and
    the occupations whose class could flip within the scorer's numerical error (``None`` in runs
    before it). A key a version lacks reads as its default, so an old report never fails."""

    method: str | None = None
    country: str | None = None
    language: str | None = None
    identifiers: str | None = None
    #: The likelihood reading (``None`` for masked LMs and runs before it).
    causal_reading: str | None = None
    preamble: str | None = None
    table: str | None = None
    aggregation: str | None = None
    normalisation: str | None = None
    n_occupations: int | None = None
    normative: float | None = None
    descriptive: float | None = None
    descriptive_by_class: Mapping[str, float | None] = field(default_factory=dict)
    intervals: CensusIntervals = field(default_factory=CensusIntervals)
    pearson: float | None = None
    pearson_p: float | None = None
    spearman: float | None = None
    spearman_p: float | None = None
    census_counts: Mapping[str, float] = field(default_factory=dict)
    model_counts: Mapping[str, float] = field(default_factory=dict)
    multi_token: MultiToken = field(default_factory=MultiToken)
    n_skipped: int | None = None
    predicates: str | None = when_set()
    n_probes: int | None = None
    n_contexts: int | None = None
    n_forward_passes: int | None = None
    paper: PaperReading | None = part(PaperReading)
    gebnlp: GebnlpAgreement | None = part(GebnlpAgreement)
    bartl: Association | None = part(Association)
    n_fragile: int | None = None
    fragile_bound: FragileBound | None = None

    @property
    def confidence(self) -> float | None:
        """The intervals' confidence level (0.95), ``None`` where the summary has none."""
        return self.intervals.confidence

    def interval(self, key: str) -> Interval:
        """A score's interval (``normative``, ``descriptive``), ``(None, None)`` where the summary has none."""
        ends: Interval | None = getattr(self.intervals, key)
        return ends or (None, None)

    @property
    def warnings(self) -> tuple[str, ...]:
        """The WARNING sentences the run printed (none outside touileb2023's likelihood readings)."""
        return self.paper.warnings if self.paper is not None else ()

    @property
    def binary_agreement(self) -> float | None:
        """A GeBNLP 2022 run's binary agreement; ``None`` for the other methods."""
        return self.gebnlp.binary_agreement if self.gebnlp is not None else None

    @property
    def template_set(self) -> str | None:
        """A GeBNLP 2022 run's template set; ``None`` for the other methods."""
        return self.gebnlp.template_set if self.gebnlp is not None else None


def census_summary(run: RunView) -> CensusRunSummary:
    """The run's typed summary: read on load, or read now for a view built by hand."""
    return run.typed(CensusRunSummary)
