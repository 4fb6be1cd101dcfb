"""zh-neutral as one :class:`~biasatlas.benchmarks.base.BenchmarkSpec` (``biasatlas.registry`` finds it here)."""

from __future__ import annotations

from ..base import BenchmarkSpec
from .benchmark import ZhNeutral
from .summary import COLUMNS, ZhRunSummary
from .view import VIEW

SPEC = BenchmarkSpec(name="zh-neutral", factory=ZhNeutral, summary_type=ZhRunSummary, columns=COLUMNS, view=VIEW,
                     pairing_keys=(("pairs", "keyword pairs"),))
