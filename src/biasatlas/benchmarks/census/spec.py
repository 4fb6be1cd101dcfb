"""The census benchmark as one :class:`~biasatlas.benchmarks.base.BenchmarkSpec` (``biasatlas.registry``
finds it here)."""

from __future__ import annotations

from ..base import BenchmarkSpec
from .benchmark import Census
from .summary import COLUMNS, CensusRunSummary
from .view import VIEW

SPEC = BenchmarkSpec(name="census", factory=Census, summary_type=CensusRunSummary, columns=COLUMNS, view=VIEW,
                     pairing_keys=(("identifiers", "identifiers"), ("country", "census country"),
                                   ("language", "language"), ("variant", "method"), ("template_set", "template set")))
