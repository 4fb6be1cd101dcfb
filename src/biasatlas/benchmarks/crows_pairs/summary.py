"""A CrowS-Pairs summary.json read back typed: the numbers the report shows (Nangia et al. 2020).

Only the fields the report reads are checked and kept, with the values as written (a count
written ``12`` stays an int); a field a later version adds never fails an old report.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...display.checks import (FieldCheck, Interval, WithIntervals, check_fields, each, interval, interval_of,
                               intervals, mapping_of, number, obj)
from ...display.runview import Column, RunView

#: The three headline scores, each with its interval and binomial test in the summary.
SCORES: tuple[str, ...] = ("metric_score", "stereo_score", "antistereo_score")
_CHECKS: dict[str, FieldCheck] = {
    **dict.fromkeys(("n", *SCORES, "n_stereo", "n_antistereo", "neutral", "neutral_percent", "n_skipped"), number),
    "by_category": each(obj({"n": number, "score": number, "ci": interval, "binomial_p": number}, nullable=False)),
    "intervals": intervals(*SCORES),
    "tests": each(obj({"binomial_p": number})),
}
#: The items.jsonl fields the report reads (presence, in this order, then types).
COLUMNS: tuple[Column, ...] = (
    Column("id"), Column("sent_more_score", "number?", required=False),
    Column("sent_less_score", "number?", required=False), Column("bias_type", "string"), Column("direction"),
    Column("sent_more"), Column("sent_less"), Column("outcome", "string?"))


@dataclass(frozen=True)
class CategoryScore:
    """One bias category: pairs, metric score (%), its Wilson interval and binomial p against 50."""

    n: float | None = None
    score: float | None = None
    ci: Interval | None = None
    binomial_p: float | None = None


@dataclass(frozen=True)
class CrowsRunSummary(WithIntervals):
    """Metric, stereo and anti-stereo scores (% of pairs preferring ``sent_more``), ties, categories."""

    n: float | None = None
    metric_score: float | None = None
    stereo_score: float | None = None
    antistereo_score: float | None = None
    n_stereo: float | None = None
    n_antistereo: float | None = None
    neutral: float | None = None
    neutral_percent: float | None = None
    n_skipped: float | None = None
    by_category: Mapping[str, CategoryScore] = field(default_factory=dict)
    intervals: Mapping[str, Interval | None] = field(default_factory=dict)
    binomial_p: Mapping[str, float | None] = field(default_factory=dict)

    @classmethod
    def read(cls, data: Mapping[str, Any], path: Path) -> CrowsRunSummary:
        """Check ``data`` (a :class:`~biasatlas.errors.DataError` names ``path`` and the field), then type it."""
        check_fields(data, _CHECKS, path)
        cats = {str(c): CategoryScore(v.get("n"), v.get("score"), interval_of(v.get("ci")), v.get("binomial_p"))
                for c, v in mapping_of(data.get("by_category")).items()}
        ints, tests = mapping_of(data.get("intervals")), mapping_of(data.get("tests"))
        return cls(n=data.get("n"), metric_score=data.get("metric_score"), stereo_score=data.get("stereo_score"),
                   antistereo_score=data.get("antistereo_score"), n_stereo=data.get("n_stereo"),
                   n_antistereo=data.get("n_antistereo"), neutral=data.get("neutral"),
                   neutral_percent=data.get("neutral_percent"), n_skipped=data.get("n_skipped"),
                   by_category=cats, intervals={k: interval_of(ints.get(k)) for k in SCORES},
                   binomial_p={k: mapping_of(tests.get(k)).get("binomial_p") for k in SCORES})


def crows_summary(run: RunView) -> CrowsRunSummary:
    """The run's typed summary: read on load, or read now for a view built by hand."""
    return run.typed(CrowsRunSummary)
