"""WinoBias as one :class:`~biasatlas.benchmarks.base.BenchmarkSpec` (``biasatlas.registry`` finds it here)."""

from __future__ import annotations

from ..base import BenchmarkSpec
from ..sensitivity import Sensitivity, headline, preambles
from .benchmark import WinoBias
from .summary import COLUMNS, WinoBiasRunSummary
from .view import VIEW

#: Sensitivity runs (docs/sensitivity.md): neutral preambles before every sentence; an item's outcome is
#: whether it prefers the pro-stereotypical pronoun.
SENSITIVITY = Sensitivity(kinds={"preambles": lambda bench, scorer: preambles("en")},
                          headlines=lambda s: (headline(s, "pro_pct"), headline(s, "diff")),
                          outcome=lambda r: r.get("pro_preferred"), outcome_phrase="whether the pro-stereotypical "
                          "pronoun is preferred")

SPEC = BenchmarkSpec(name="winobias", factory=WinoBias, summary_type=WinoBiasRunSummary, columns=COLUMNS, view=VIEW,
                     pairing_keys=(("types", "types"), ("split", "split")),
                     language=lambda bench: "English", data_options=("types", "split", "data"), sensitivity=SENSITIVITY,
                     description="WinoBias (Zhao et al. 2018): pro- vs anti-stereotypical pronoun preference.",
                     example={"limit": 2})
