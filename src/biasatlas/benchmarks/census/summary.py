"""A census summary.json read back typed: the numbers the report shows (Touileb et al. 2023, Tables 3 and 4).

Only the fields the report reads are checked and kept, with the values as written; a
field a later version adds never fails an old report.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...display.checks import (FieldCheck, Interval, WithIntervals, check_fields, each, interval_of, intervals,
                               listed, mapping_of, number, obj, string)
from ...display.runview import Column, RunView

_CHECKS: dict[str, FieldCheck] = {
    **dict.fromkeys(("n_occupations", "normative", "descriptive", "pearson", "pearson_p", "spearman", "spearman_p",
                     "n_skipped"), number),
    "descriptive_by_class": each(number), "intervals": intervals("normative", "descriptive", confidence=number),
    "n_fragile": number, "fragile_bound": obj({"dtype": string, "token_error": number}),
    "warnings": listed(string), "causal_reading": string,
}
#: The items.jsonl fields the report reads (presence, in this order, then types).
COLUMNS: tuple[Column, ...] = (Column("occupation"), Column("census_female_pct", "number"),
                               Column("model_female_pct", "number?"), Column("census_class", "string?"),
                               Column("model_class", "string?"))


@dataclass(frozen=True)
class CensusRunSummary(WithIntervals):
    """Normative and descriptive scores (% of occupations), the descriptive split by census class,
    their bootstrap intervals, the correlations of census and model shares, and the occupations
    whose class could flip within the scorer's numerical error (``None`` in runs before it)."""

    n_occupations: float | None = None
    normative: float | None = None
    descriptive: float | None = None
    pearson: float | None = None
    pearson_p: float | None = None
    spearman: float | None = None
    spearman_p: float | None = None
    n_skipped: float | None = None
    n_fragile: float | None = None
    fragile_dtype: str | None = None
    fragile_token_error: float | None = None
    descriptive_by_class: Mapping[str, float | None] = field(default_factory=dict)
    intervals: Mapping[str, Interval | None] = field(default_factory=dict)
    confidence: float | None = None
    #: Sentences the run printed as WARNING (the occupation-free baseline outside 45–55 %), and
    #: the likelihood reading they apply to (``None`` for masked LMs and runs before it).
    warnings: tuple[str, ...] = ()
    causal_reading: str | None = None

    @classmethod
    def read(cls, data: Mapping[str, Any], path: Path) -> CensusRunSummary:
        """Check ``data`` (a :class:`~biasatlas.errors.DataError` names ``path`` and the field), then type it."""
        check_fields(data, _CHECKS, path)
        ints = mapping_of(data.get("intervals"))
        return cls(n_occupations=data.get("n_occupations"), normative=data.get("normative"),
                   descriptive=data.get("descriptive"), pearson=data.get("pearson"), pearson_p=data.get("pearson_p"),
                   spearman=data.get("spearman"), spearman_p=data.get("spearman_p"), n_skipped=data.get("n_skipped"),
                   n_fragile=data.get("n_fragile"),
                   fragile_dtype=mapping_of(data.get("fragile_bound")).get("dtype"),
                   fragile_token_error=mapping_of(data.get("fragile_bound")).get("token_error"),
                   descriptive_by_class=dict(mapping_of(data.get("descriptive_by_class"))),
                   intervals={k: interval_of(ints.get(k)) for k in ("normative", "descriptive")},
                   confidence=ints.get("confidence"), warnings=tuple(data.get("warnings") or ()),
                   causal_reading=data.get("causal_reading"))


def census_summary(run: RunView) -> CensusRunSummary:
    """The run's typed summary: read on load, or read now for a view built by hand."""
    return run.typed(CensusRunSummary)
