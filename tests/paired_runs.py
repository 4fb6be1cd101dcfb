"""Run folders of a benchmark's own scoring, for its paired comparison (``spec.view.paired``).

A benchmark scores planted answers; the result is written by the real writer with the config the
benchmark derives, and read back by the report's reader: the comparison sees what a run writes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from biasatlas.benchmarks.contract import BenchmarkResult
from biasatlas.runs.folder import Run, write_run
from biasatlas.runs.load import load_run
from biasatlas.runs.view import RunView

SCORER = {"scorer": "fake", "model": "planted", "variant": "hash"}


def written_run(folder: Path, bench: Any, result: BenchmarkResult) -> RunView:
    """``result`` of ``bench`` as a finished run folder at ``folder``, read back."""
    config = bench.config()
    summary = {"benchmark": bench.name, "benchmark_version": bench.VERSION, "model": "planted", "scorer": "fake",
               "variant": "hash", **result.written(),
               "provenance": {"biasatlas": "0", "python": "3", "data_sha256": config.get("data_sha256"),
                              "n_probes": len(result.records), "scorer": SCORER}}
    write_run(Run({"benchmark": config, "scorer": SCORER}, summary, result.records, result.skipped), folder)
    return load_run(folder)


def bootstrap_interval(diff: list[float], n_resamples: int, seed: int) -> tuple[float, float]:
    """The 95 % percentile interval of the mean of ``diff`` (B − A per item), written out plainly:
    ``n_resamples`` draws of len(diff) item indices from numpy's ``default_rng(seed)``, one at a time."""
    import numpy as np

    rng = np.random.default_rng(seed)
    means = [sum(diff[i] for i in rng.integers(0, len(diff), size=len(diff))) / len(diff)
             for _ in range(n_resamples)]
    low, high = np.quantile(means, [0.025, 0.975])
    return float(low), float(high)
