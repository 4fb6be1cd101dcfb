"""SEAT and WEAT as two :class:`~biasatlas.benchmarks.base.BenchmarkSpec` s over one folder:
``seat`` (this package's ``SPEC``) and ``weat`` (:mod:`.weat`'s)."""

from __future__ import annotations

from ..base import BenchmarkSpec
from .benchmark import Seat, Weat
from .summary import COLUMNS, SeatRunSummary
from .view import VIEW

SPEC = BenchmarkSpec(name="seat", factory=Seat, summary_type=SeatRunSummary, columns=COLUMNS, view=VIEW,
                     pairing_keys=(("pooling", "pooling"),),
                     description="SEAT (May et al. 2019): effect sizes of sentence-encoder association tests "
                                 "(--scorer encoder).",
                     language=lambda benchmark: "en", data_options=("tests", "data_dir"),
                     example={"tests": "weat1", "n_resamples": 20, "n_samples": 1000})

WEAT_SPEC = BenchmarkSpec(name="weat", factory=Weat, summary_type=SeatRunSummary, columns=COLUMNS, view=VIEW,
                          description="WEAT (Caliskan et al. 2017) on static word vectors (--scorer word-vectors).",
                          language=lambda benchmark: "en", data_options=("tests", "data_dir"),
                          example={"tests": "weat1", "n_resamples": 20, "n_samples": 1000})
