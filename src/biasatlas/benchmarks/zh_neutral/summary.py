"""A zh-neutral summary.json read back typed: the numbers the report reads (Zhao et al. 2021).

Only the fields the report reads are checked and kept, with the values as written; a
field a later version adds never fails an old report. The leaning counts are not read
from here: the report counts them from the items, which every run has.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ...runs.checks import FragileBound, Interval
from ...runs.view import Column, RunView
from ...runs.typed import Summary

#: The items.jsonl fields the report reads (presence, in this order, then types).
COLUMNS: tuple[Column, ...] = (Column("id"), Column("sentence"), Column("pair"), Column("b", "number?"),
                               Column("leaning", "string?"))


@dataclass(frozen=True)
class PairInterval:
    """One keyword pair's entry as the report reads it: its mean |b|'s bootstrap interval."""

    bias_score_ci: Interval | None = None


@dataclass(frozen=True)
class ZhRunSummary(Summary):
    """Bias score (mean |b|) with its bootstrap interval, the leaning threshold, and the
    interval of each keyword pair's mean |b|, and the sentences whose leaning could flip within the
    scorer's numerical error (``None`` in runs before it was recorded)."""

    n: float | None = None
    bias_score: float | None = None
    threshold: float | None = None
    intervals: Mapping[str, Interval | None] = field(default_factory=dict)
    n_fragile: float | None = None
    fragile_bound: FragileBound | None = None
    by_pair: Mapping[str, PairInterval | None] = field(default_factory=dict)

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
