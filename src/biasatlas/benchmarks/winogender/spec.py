"""Winogender as one :class:`~biasatlas.benchmarks.base.BenchmarkSpec` (``biasatlas.registry`` finds it here)."""

from __future__ import annotations

from ..base import BenchmarkSpec
from ..sensitivity import Sensitivity, headline, preambles
from .benchmark import Winogender
from .paraphrases import PARAPHRASES
from .summary import COLUMNS, WinogenderRunSummary
from .view import VIEW


def _language(benchmark: Winogender) -> str:
    return "English"


#: Sensitivity runs (docs/sensitivity.md): neutral preambles before every sentence, and one paraphrase by a
#: declared rule (:mod:`.paraphrases`); an item's outcome is the pronoun it prefers (female, male or tie).
SENSITIVITY = Sensitivity(kinds={"preambles": lambda bench, scorer: preambles("en"),
                                 "paraphrases": lambda bench, scorer: PARAPHRASES},
                          headlines=lambda s: (headline(s, "female_pct"), headline(s, "pearson")),
                          outcome=lambda r: r.get("preferred"), outcome_phrase="the preferred pronoun")

SPEC = BenchmarkSpec(name="winogender", factory=Winogender, summary_type=WinogenderRunSummary, columns=COLUMNS,
                     view=VIEW, language=_language, data_options=("data",), sensitivity=SENSITIVITY,
                     description="Winogender (Rudinger et al. 2018): pronoun shares per occupation against BLS.",
                     example={"limit": 4})
