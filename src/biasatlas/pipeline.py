"""The one linear pipeline: load → probes → score → metric → run record (DESIGN.md)."""

from __future__ import annotations

import platform
import time
from dataclasses import dataclass, field
from typing import Any

from . import __version__
from .benchmarks.base import Benchmark
from .scorers.base import Scorer


@dataclass(frozen=True)
class Run:
    """Everything a run folder holds: config, summary (with provenance), per-item records."""

    config: dict[str, Any]
    summary: dict[str, Any]
    records: list[dict[str, Any]]
    skipped: list[dict[str, Any]] = field(default_factory=list)


def evaluate(benchmark: Benchmark, scorer: Scorer, *, progress: bool = False) -> Run:
    """Run ``benchmark`` with ``scorer`` and return the run record.

    Two optional benchmark hooks: ``bind(scorer)`` returns the benchmark set up for that
    scorer (census: normalisation follows the scorer kind), and
    ``with_counters(summary, counters)`` adds the scorer's forward-pass counts.
    """
    bind = getattr(benchmark, "bind", None)
    if bind is not None:
        benchmark = bind(scorer)
    items = benchmark.load()
    probes = benchmark.probes(items)
    bench_config = benchmark.config()
    started = time.perf_counter()
    answers = _score(scorer, probes, progress)
    seconds = time.perf_counter() - started
    result = benchmark.score(items, answers)
    described = scorer.describe()
    provenance = {**_versions(), "scorer": described, "data_sha256": bench_config.get("data_sha256"),
                  "seconds_scoring": round(seconds, 3), "n_probes": len(probes),
                  "counters": dict(getattr(scorer, "counters", {}))}
    with_counters = getattr(benchmark, "with_counters", None)
    scores = with_counters(result.summary, provenance["counters"]) if with_counters else result.summary
    summary = {"benchmark": benchmark.name, "benchmark_version": benchmark.VERSION,
               "dataset": bench_config.get("dataset") or bench_config.get("data"),
               "model": described.get("model"), "scorer": described.get("scorer"),
               "variant": described.get("variant"), **scores, "provenance": provenance}
    config = {"benchmark": bench_config, "scorer": described}
    return Run(config, summary, result.records, result.skipped)


def _score(scorer: Scorer, probes: list, progress: bool) -> dict:
    if not progress:
        return scorer.score(probes)
    from tqdm import tqdm

    with tqdm(total=len(probes), unit="probe", desc="scoring", dynamic_ncols=True) as bar:
        return scorer.score(probes, progress=bar.update)


def _versions() -> dict[str, Any]:
    out: dict[str, Any] = {"biasatlas": __version__, "python": platform.python_version()}
    for module in ("torch", "transformers", "tokenizers"):
        try:
            out[module] = __import__(module).__version__
        except ImportError:
            continue
    return out
