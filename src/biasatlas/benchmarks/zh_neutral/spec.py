"""zh-neutral as one :class:`~biasatlas.benchmarks.base.BenchmarkSpec` (``biasatlas.registry`` finds it here)."""

from __future__ import annotations

from ..base import BenchmarkSpec, Flag
from .benchmark import LOG_BASES, UNEQUAL_MASKS, ZhNeutral
from .summary import COLUMNS, ZhRunSummary
from .view import VIEW

SPEC = BenchmarkSpec(name="zh-neutral", factory=ZhNeutral, summary_type=ZhRunSummary, columns=COLUMNS, view=VIEW,
                     pairing_keys=(("pairs", "keyword pairs"),),
                     description="Chinese gender-neutral sentences: masked log-ratio b (Zhao et al. 2021, SlguSet).",
                     language=lambda bench: "Chinese", data_options=("data",),
                     flags={"data": Flag("Sentence set: candidates.jsonl from the miner, or CSV with "
                                         "sentence,keyword,offset,pair (default: the shipped demonstration set).",
                                         file=True),
                            "log_base": Flag("Base of the log in b = log(P(m)/P(f)).", choices=tuple(LOG_BASES)),
                            "threshold": Flag("Leaning threshold on b, in the chosen base (paper: 0.3).", minimum=0),
                            "pairs": Flag("Keep only this keyword pair, written male/female (repeatable), "
                                          "e.g. 男童/女童.", spelling="--pair"),
                            "unequal_masks": Flag("Masked LMs, when the two words get different token counts: "
                                                  "skip (recorded) or compare.", choices=UNEQUAL_MASKS),
                            "topics_k": Flag("Topic words per leaning subset and method (0: none).",
                                             spelling="--topics", minimum=0),
                            "confidence": Flag("Confidence level of the intervals.")})
