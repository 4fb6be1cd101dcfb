"""A zh-neutral summary.json, as written and read back typed (Zhao et al. 2021).

Every key written is declared, in the order written; a field a later version adds never fails
an old report. The leaning counts are not read from here: the report counts them from the
items, which every run has.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...runs.checks import FragileBound, Interval
from ...runs.view import Column, RunView
from ...runs.typed import Summary

#: The items.jsonl fields the report reads (presence, in this order, then types).
COLUMNS: tuple[Column, ...] = (Column("id"), Column("sentence"), Column("pair"), Column("b", "number?"),
                               Column("leaning", "string?"))


@dataclass(frozen=True)
class PairInterval:
    """One keyword pair's entry: its sentences, mean |b| and mean b, leaning counts, and its mean
    |b|'s bootstrap interval (the one the report reads)."""

    n: float | None = None
    bias_score: float | None = None
    mean_b: float | None = None
    leaning: Mapping[str, float] = field(default_factory=dict)
    bias_score_ci: Interval | None = None


@dataclass(frozen=True)
class ZhRunSummary(Summary):
    """Bias score (mean |b|) with its bootstrap interval, the leaning counts and shares, each
    keyword pair's entry, how the intervals were drawn, the items skipped and why, the options that
    read b (base, threshold, unequal masks), the topic words, and the sentences whose leaning could
    flip within the scorer's numerical error (``None`` in runs before it was recorded)."""

    n: float | None = None
    bias_score: float | None = None
    mean_b: float | None = None
    leaning: Mapping[str, float] = field(default_factory=dict)
    leaning_percent: Mapping[str, float | None] = field(default_factory=dict)
    intervals: Mapping[str, Interval | None] = field(default_factory=dict)
    by_pair: Mapping[str, PairInterval | None] = field(default_factory=dict)
    bootstrap: Mapping[str, Any] = field(default_factory=dict)
    n_items: float | None = None
    n_skipped: float | None = None
    skip_reasons: Mapping[str, float] = field(default_factory=dict)
    log_base: str | None = None
    threshold: float | None = None
    unequal_masks: str | None = None
    masks_checked: bool | None = None
    topics: Mapping[str, Any] = field(default_factory=dict)
    n_fragile: float | None = None
    fragile_bound: FragileBound | None = None

    @property
    def bias_score_ci(self) -> Interval | None:
        return self.intervals.get("bias_score")

    @property
    def pair_intervals(self) -> Mapping[str, Interval | None]:
        """Each keyword pair's interval of its mean |b| (``None`` where it has none)."""
        return {p: v.bias_score_ci if v is not None else None for p, v in self.by_pair.items()}


def zh_summary(run: RunView) -> ZhRunSummary:
    """The run's typed summary: read on load, or read now for a view built by hand."""
    return run.typed(ZhRunSummary)
