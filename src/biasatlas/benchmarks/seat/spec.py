"""SEAT and WEAT as two :class:`~biasatlas.benchmarks.base.BenchmarkSpec` s over one folder:
``seat`` (this package's ``SPEC``) and ``weat`` (:mod:`.weat`'s)."""

from __future__ import annotations

from ..base import BenchmarkSpec, Flag
from .benchmark import Seat, Weat
from .summary import COLUMNS, SeatRunSummary
from .view import VIEW

_SHARED = {
    "tests": Flag("Comma-separated test names (weat6,sent-weat6,…); default: the benchmark's set."),
    "data_dir": Flag("A folder of SEAT-format .jsonl test files instead of the fetched ones."),
    "n_samples": Flag("Permutations: exact when the partitions number at most this, else this many sampled "
                      "(sent-bias and bias-bench: 100000).", minimum=2),
    "seed": Flag("Seed of the sampled p-values and the bootstrap (bias-bench 0, sent-bias 1111)."),
    "n_resamples": Flag("Bootstrap resamples of d's interval.", minimum=1),
}

SPEC = BenchmarkSpec(name="seat", factory=Seat, summary_type=SeatRunSummary, columns=COLUMNS, view=VIEW,
                     pairing_keys=(("pooling", "pooling"),),
                     description="SEAT (May et al. 2019): effect sizes of sentence-encoder association tests "
                                 "(--scorer encoder).",
                     flags={**_SHARED, "pooling": Flag("How a text becomes one vector: first (sent-bias BERT), cls, "
                                                       "mean (bias-bench), mean-no-special, last (causal LMs).")},
                     language=lambda benchmark: "en", data_options=("tests", "data_dir"))

WEAT_SPEC = BenchmarkSpec(name="weat", factory=Weat, summary_type=SeatRunSummary, columns=COLUMNS, view=VIEW,
                          description="WEAT (Caliskan et al. 2017) on static word vectors (--scorer word-vectors).",
                          flags={**_SHARED, "lowercase": Flag("Look a missing word up lower-cased before it counts "
                                                              "as out of vocabulary.", switch=(False, True))},
                          language=lambda benchmark: "en", data_options=("tests", "data_dir"))
