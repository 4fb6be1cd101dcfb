"""A zh-neutral summary.json read back typed: the numbers the report reads (Zhao et al. 2021).

Only the fields the report reads are checked and kept, with the values as written; a
field a later version adds never fails an old report. The leaning counts are not read
from here: the report counts them from the items, which every run has.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...display.checks import (FieldCheck, Interval, check_fields, each, interval, interval_of, intervals,
                               mapping_of, number, obj, string)
from ...display.runview import Column, RunView

_CHECKS: dict[str, FieldCheck] = {
    **dict.fromkeys(("n", "bias_score", "threshold"), number),
    "intervals": intervals("bias_score"), "by_pair": each(obj({"bias_score_ci": interval})),
    "n_fragile": number, "fragile_bound": obj({"dtype": string, "token_error": number}),
}
#: The items.jsonl fields the report reads (presence, in this order, then types).
COLUMNS: tuple[Column, ...] = (Column("id"), Column("sentence"), Column("pair"), Column("b", "number?"),
                               Column("leaning", "string?"))


@dataclass(frozen=True)
class ZhRunSummary:
    """Bias score (mean |b|) with its bootstrap interval, the leaning threshold, and the
    interval of each keyword pair's mean |b|, and the sentences whose leaning could flip within the
    scorer's numerical error (``None`` in runs before it was recorded)."""

    n: float | None = None
    bias_score: float | None = None
    threshold: float | None = None
    bias_score_ci: Interval | None = None
    n_fragile: float | None = None
    fragile_dtype: str | None = None
    fragile_token_error: float | None = None
    pair_intervals: Mapping[str, Interval | None] = field(default_factory=dict)

    @classmethod
    def read(cls, data: Mapping[str, Any], path: Path) -> ZhRunSummary:
        """Check ``data`` (a :class:`~biasatlas.errors.DataError` names ``path`` and the field), then type it."""
        check_fields(data, _CHECKS, path)
        pairs = {str(p): interval_of(mapping_of(v).get("bias_score_ci"))
                 for p, v in mapping_of(data.get("by_pair")).items()}
        return cls(n=data.get("n"), bias_score=data.get("bias_score"), threshold=data.get("threshold"),
                   bias_score_ci=interval_of(mapping_of(data.get("intervals")).get("bias_score")), pair_intervals=pairs,
                   n_fragile=data.get("n_fragile"),
                   fragile_dtype=mapping_of(data.get("fragile_bound")).get("dtype"),
                   fragile_token_error=mapping_of(data.get("fragile_bound")).get("token_error"))


def zh_summary(run: RunView) -> ZhRunSummary:
    """The run's typed summary: read on load, or read now for a view built by hand."""
    return run.typed(ZhRunSummary)
