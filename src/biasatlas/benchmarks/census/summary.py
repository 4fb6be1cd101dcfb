"""A census summary.json read back typed: the numbers the report shows (Touileb et al. 2023, Tables 3 and 4).

Only the fields the report reads are checked and kept, with the values as written; a
field a later version adds never fails an old report.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ...runs.checks import FragileBound, Interval
from ...runs.view import Column, RunView
from ...runs.typed import Summary

#: The items.jsonl fields the report reads (presence, in this order, then types).
COLUMNS: tuple[Column, ...] = (Column("occupation"), Column("census_female_pct", "number"),
                               Column("model_female_pct", "number?"), Column("census_class", "string?"),
                               Column("model_class", "string?"))


@dataclass(frozen=True)
class CensusIntervals:
    """The bootstrap intervals of the two scores and their confidence level (the summary's
    ``intervals`` also holds the resample count and seed, which the report does not read)."""

    normative: Interval | None = None
    descriptive: Interval | None = None
    confidence: float | None = None


@dataclass(frozen=True)
class MultiToken:
    """How fillers split into several tokens were scored (``policy``) and how many identifiers split."""

    policy: str | None = None
    n_identifiers: int | None = None


@dataclass(frozen=True)
class CensusRunSummary(Summary):
    """Normative and descriptive scores (% of occupations), the descriptive split by census class,
    their bootstrap intervals, the correlations of census and model shares, and the occupations
    whose class could flip within the scorer's numerical error (``None`` in runs before it).
    The caption's facts close it: occupations per class (census and model, counts), the
    multi-token policy, the identifiers, the sentences, contexts and rows (``n_forward_passes``:
    model inputs) scored, and a GeBNLP 2022 run's binary agreement and template set (each
    ``None`` or empty where the summary has none)."""

    n_occupations: float | None = None
    normative: float | None = None
    descriptive: float | None = None
    pearson: float | None = None
    pearson_p: float | None = None
    spearman: float | None = None
    spearman_p: float | None = None
    n_skipped: float | None = None
    n_fragile: float | None = None
    fragile_bound: FragileBound | None = None
    descriptive_by_class: Mapping[str, float | None] = field(default_factory=dict)
    intervals: CensusIntervals = field(default_factory=CensusIntervals)
    #: Sentences the run printed as WARNING (the occupation-free baseline outside 45–55 %), and
    #: the likelihood reading they apply to (``None`` for masked LMs and runs before it).
    warnings: tuple[str, ...] = ()
    causal_reading: str | None = None
    census_counts: Mapping[str, float] = field(default_factory=dict)
    model_counts: Mapping[str, float] = field(default_factory=dict)
    multi_token: MultiToken = field(default_factory=MultiToken)
    identifiers: str | None = None
    n_probes: int | None = None
    n_contexts: int | None = None
    n_forward_passes: int | None = None
    binary_agreement: float | None = None
    template_set: str | None = None

    @property
    def confidence(self) -> float | None:
        """The intervals' confidence level (0.95), ``None`` where the summary has none."""
        return self.intervals.confidence

    def interval(self, key: str) -> Interval:
        """A score's interval (``normative``, ``descriptive``), ``(None, None)`` where the summary has none."""
        ends: Interval | None = getattr(self.intervals, key)
        return ends or (None, None)


def census_summary(run: RunView) -> CensusRunSummary:
    """The run's typed summary: read on load, or read now for a view built by hand."""
    return run.typed(CensusRunSummary)
