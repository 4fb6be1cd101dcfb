"""The report's numbers across runs: headline numbers in long form, and the leaderboards.

Each benchmark's view supplies its headline numbers (``metrics``) and its leaderboard;
these functions gather them over runs of any benchmark, looked up by the run's name. A
run of a benchmark this install does not know contributes its numeric summary fields and
no leaderboard. Tables and their formatting live in :mod:`biasatlas.display.tables`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ..display.runview import RunView
from ..display.tables import Metric, Table
from ..registry import BENCHMARKS, benchmark_spec, find_spec


@dataclass(frozen=True)
class MetricRow:
    """One number of one run, in long form (the CSV and JSON outputs): ``metric`` is the
    summary.json field (stable for scripts), ``label`` the spelling the report's tables use."""

    run: str
    path: str
    benchmark: str
    dataset: str
    model: str
    variant: str | None
    metric: str
    label: str
    value: float | None
    ci_low: float | None = None
    ci_high: float | None = None
    n: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def metric_rows(run: RunView) -> list[MetricRow]:
    """The run's headline numbers with their intervals, from its benchmark's view."""
    spec = find_spec(run.benchmark)
    metrics = spec.view.metrics(run) if spec is not None else [
        Metric(k, v) for k, v in run.summary.items() if isinstance(v, (int, float)) and not isinstance(v, bool)]
    return [MetricRow(run.label, str(run.path), run.benchmark, run.dataset, run.model, run.variant,
                      m.name, m.label or m.name, m.value, m.ci_low, m.ci_high, m.n) for m in metrics]


def leaderboard(runs: Sequence[RunView]) -> list[Table]:
    """One table per registered benchmark with runs here (in registration order), one row per run."""
    present = [name for name in BENCHMARKS if any(r.benchmark == name for r in runs)]
    return [benchmark_spec(name).view.leaderboard([r for r in runs if r.benchmark == name]) for name in present]
