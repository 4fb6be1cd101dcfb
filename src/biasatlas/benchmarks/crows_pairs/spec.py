"""CrowS-Pairs as one :class:`~biasatlas.benchmarks.base.BenchmarkSpec` (``biasatlas.registry`` finds it here)."""

from __future__ import annotations

from ..base import BenchmarkSpec
from .benchmark import CrowsPairs
from .summary import COLUMNS, CrowsRunSummary
from .view import VIEW

SPEC = BenchmarkSpec(name="crows-pairs", factory=CrowsPairs, summary_type=CrowsRunSummary, columns=COLUMNS, view=VIEW,
                     pairing_keys=(("lowercase", "lowercase"), ("strip_whitespace", "strip-whitespace"),
                                   ("unicode_nfc", "unicode-nfc")))
