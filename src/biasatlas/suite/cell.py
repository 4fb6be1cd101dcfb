"""A suite's cell: one run of the grid (:class:`Cell`), and how it runs (:class:`CellRun`: under a
sensitivity kind, on the clean subset), with what ``suite --dry-run`` shows of it.

Both sit below :mod:`biasatlas.suite.grid` (which reads the suite file into cells) and
:mod:`biasatlas.suite.sensitivity` (which plans, claims and reports a cell's runs), so each of
those imports them without importing the other.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from ..registry import find_spec
from ..request import EngineOptions, ModelOptions, RunRequest, benchmark_options
from ..sensitivity import Planned


@dataclass(frozen=True)
class CellRun:
    """How a cell runs its request: under a sensitivity ``kind`` (None: once) and on the clean subset."""

    sensitivity: str | None = None
    exclude_flagged: bool = False

    @property
    def suffix(self) -> str:
        """What a cell's default folder name adds, so that a plain and a sensitivity cell of one
        benchmark do not share a folder (``census-no-paraphrases``, ``crows-pairs-en-clean``)."""
        return (f"-{self.sensitivity}" if self.sensitivity else "") + ("-clean" if self.exclude_flagged else "")


@dataclass(frozen=True)
class Cell:
    """One run of the grid, into ``folder``: its request (the benchmark built and loaded)."""

    folder: str
    request: RunRequest
    kind: str = ""  # the scorer kind its model's architecture calls for, found by the check
    label: str | None = None  # its [[model]]'s label: the run's name in reports
    #: How it runs (:class:`CellRun`: under a sensitivity kind, on the clean subset) and,
    #: for a sensitivity cell, the runs it plans; the defaults are a plain cell.
    run: CellRun = CellRun()
    planned: tuple[Planned, ...] = ()

    def plan(self) -> list[str]:
        """What ``suite --dry-run`` shows of the cell: the options it sets (those not at their
        defaults), the model's and the scorer kind, and the work: items and probes as the bound
        benchmark builds them (forward passes are planned once the tokenizer loads)."""
        bench, model = self.request.bench, self.request.model
        spec = find_spec(bench.name)
        defaults = {k: p.default for k, p in benchmark_options(spec.factory).items()} if spec else {}
        set_here = [f"{k}={getattr(bench, k)!r}" for k, d in defaults.items() if getattr(bench, k, d) != d]
        model_set = [f"{f.name}={getattr(model, f.name)!r}" for f in fields(ModelOptions)
                     if f.name != "model" and getattr(model, f.name) != f.default]
        engine = self.request.engine
        model_set += [f"{f.name}={getattr(engine, f.name)!r}" for f in fields(EngineOptions)
                      if getattr(engine, f.name) != f.default]
        scored = self.request.scored_benchmark if self.run.exclude_flagged else bench
        bound = self.request.scorer_options.bound(scored, self.kind) if self.kind else scored
        items = bound.load()
        probes = bound.probes(items)
        return [self.folder, f"  {bench.name}: " + (", ".join(set_here) or "defaults"),
                f"  model {model.model} ({self.kind or 'scorer from its architecture'})"
                + (": " + ", ".join(model_set) if model_set else ""),
                f"  {len(items):,} items, {len(probes):,} probes", *_sensitivity_lines(self)]

    @property
    def benchmark(self) -> Any:
        return self.request.bench

    @property
    def model(self) -> ModelOptions:
        return self.request.model


def _sensitivity_lines(cell: Cell) -> list[str]:
    """What ``suite --dry-run`` adds for a cell run under a sensitivity kind or on its clean subset."""
    lines = ["  only the items the data lint finds nothing on (exclude_flagged)"] if cell.run.exclude_flagged else []
    runs = cell.planned
    if runs:
        lines.append(f"  sensitivity {cell.run.sensitivity}: {len(runs)} runs ({', '.join(p.name for p in runs)})")
    return lines
