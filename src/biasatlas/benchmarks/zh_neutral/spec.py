"""zh-neutral as one :class:`~biasatlas.benchmarks.base.BenchmarkSpec` (``biasatlas.registry`` finds it here)."""

from __future__ import annotations

from ..base import BenchmarkSpec
from .benchmark import ZhNeutral
from .summary import COLUMNS, ZhRunSummary
from .view import VIEW

SPEC = BenchmarkSpec(name="zh-neutral", factory=ZhNeutral, summary_type=ZhRunSummary, columns=COLUMNS, view=VIEW,
                     pairing_keys=(("pairs", "keyword pairs"),),
                     description="Chinese gender-neutral sentences: masked log-ratio b (Zhao et al. 2021, SlguSet).",
                     language=lambda bench: "Chinese", data_options=("data",),
                     example={"limit": 4, "topics_k": 0})
