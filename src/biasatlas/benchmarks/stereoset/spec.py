"""StereoSet as one :class:`~biasatlas.benchmarks.base.BenchmarkSpec` (``biasatlas.registry`` finds it here)."""

from __future__ import annotations

from ..base import BenchmarkSpec, Flag
from .benchmark import StereoSet
from .summary import COLUMNS, StereoSetRunSummary
from .view import VIEW

SPEC = BenchmarkSpec(name="stereoset", factory=StereoSet, summary_type=StereoSetRunSummary, columns=COLUMNS, view=VIEW,
                     pairing_keys=(("length", "length"),), label_keys=("reading",),
                     description="StereoSet (Nadeem, Bethke & Reddy 2021): SS, LMS and ICAT.",
                     flags={"split": Flag("Split: dev (public) or test (gold labels, bias-bench's copy); "
                                          "ignored with --data."),
                            "data": Flag("A StereoSet split file (.json or .json.gz) instead of --split.", file=True),
                            "task": Flag("intrasentence, intersentence or both."),
                            "length": Flag("Per-sentence score: mean (per-token, the original's) or sum "
                                           "(log-likelihood)."),
                            "limit": Flag("Only the first N examples of each task.", minimum=1),
                            "sample": Flag("N examples of each task drawn at random (seeded by --seed).", minimum=1)})
