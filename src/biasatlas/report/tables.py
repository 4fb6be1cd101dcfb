"""The report's numbers across runs: headline numbers in long form, and the leaderboards.

Each benchmark's view supplies its headline numbers (``metrics``) and its leaderboard;
these functions gather them over runs of any benchmark, looked up by the run's name. A
run of a benchmark this install does not know contributes its numeric summary fields and
no leaderboard. Tables and their formatting live in :mod:`biasatlas.display.tables`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from ..display.controls import Headline
from ..display.direction import Direction, direction_of
from ..runs.view import RunView
from ..display.tables import Metric, Table
from ..registry import BENCHMARKS, benchmark_spec, find_spec
from .agreement import Agreement
from .sections import run_headlines


@dataclass(frozen=True)
class MetricRow:
    """One number of one run, in long form (the CSV and JSON outputs): ``metric`` is the
    summary.json field (stable for scripts), ``label`` the spelling the report's tables use;
    ``higher_is_better`` and ``ideal`` say which way it reads, as its benchmark declares it
    (:mod:`biasatlas.display.direction`: both empty for a number that ranks nothing, a control,
    an agreement)."""

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
    higher_is_better: bool | None = None
    ideal: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def metric_rows(run: RunView) -> list[MetricRow]:
    """The run's headline numbers with their intervals, from its benchmark's view."""
    spec = find_spec(run.benchmark)
    metrics = spec.view.metrics(run) if spec is not None else [
        Metric(k, v) for k, v in run.summary.items() if isinstance(v, (int, float)) and not isinstance(v, bool)]
    directions = spec.view.directions if spec is not None else {}
    return [MetricRow(run.label, str(run.path), run.benchmark, run.dataset, run.model, run.variant,
                      m.name, m.label or m.name, m.value, m.ci_low, m.ci_high, m.n,
                      **(_direction(m.name, directions))) for m in metrics]


def _direction(metric: str, directions: Mapping[str, Direction]) -> dict[str, Any]:
    found = direction_of(metric, directions)
    return found.as_dict() if found is not None else {}


def notice_row(run: RunView) -> MetricRow:
    """The long form's row for one of a run's notices (its sentence goes beside it, in ``notices``)."""
    return MetricRow(run.label, str(run.path), run.benchmark, run.dataset, run.model, run.variant, "notice",
                     "notice", None)


def control_rows(run: RunView, headlines: Sequence[Headline]) -> list[MetricRow]:
    """The long form of each headline's controls and detectable effect (``<headline>:control:<name>``,
    ``<headline>:detectable_effect``), beside the metric rows in the CSV output."""
    out = []
    for h in headlines:
        d = h.detectable
        numbers: list[tuple[str, str, Any, Any, Any]] = [
            (f"{h.name}:control:{c.name}", f"control of {h.label}: {c.name} ({c.verdict})", c.value,
             *(c.interval or (None, None))) for c in h.controls]
        if d is not None:
            numbers.append((f"{h.name}:detectable_effect", f"detectable effect of {h.label} ({d.unit})", d.effect,
                            None, None))
        out += [MetricRow(run.label, str(run.path), run.benchmark, run.dataset, run.model, run.variant, name, label,
                          value, low, high, None if h.n is None else int(h.n))
                for name, label, value, low, high in numbers]
    return out


def agreement_rows(rows: Sequence[Agreement]) -> list[tuple[MetricRow, str]]:
    """Each agreement's Spearman ρ and Kendall τ in the long form (``label``: the two measures), with its note."""
    out = []
    for r in rows:
        for metric, value, (low, high) in (("spearman", r.spearman, r.spearman_ci),
                                           ("kendall", r.kendall, r.kendall_ci)):
            out.append((MetricRow("agreement", "", "", "", "", None, metric, f"{r.a} | {r.b}", value, low, high,
                                  r.n_models), r.note))
    return out


def leaderboard(runs: Sequence[RunView]) -> list[Table]:
    """One table per registered benchmark with runs here (in registration order), one row per run; a
    run whose headline a control flags carries the warning mark (``RunView.flagged``: that run's own
    row, not the rows of the same model on other benchmarks or datasets)."""
    present = [name for name in BENCHMARKS if any(r.benchmark == name for r in runs)]
    marked = [replace(r, flagged=any(h.flagged for h in run_headlines(r))) for r in runs]
    return [benchmark_spec(name).view.leaderboard([r for r in marked if r.benchmark == name]) for name in present]
