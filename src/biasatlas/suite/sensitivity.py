"""A suite cell's run settings beyond the benchmark's options: ``sensitivity`` and ``exclude_flagged``.

A ``[[benchmark]]`` table may set, besides its factory options (docs/suites.md)::

    [[benchmark]]
    name = "census"
    country = "no"
    sample = 8
    sensitivity = "paraphrases"      # a kind the benchmark declares (docs/sensitivity.md)
    exclude_flagged = true           # only where its spec lints its data (crows-pairs, bbq …)

Both are checked as ``biasatlas run`` checks them: the kind by the sensitivity plan
(:func:`biasatlas.sensitivity.plan`: a kind the spec does not declare, or one with no
perturbation for this scorer, is the same one-line error), ``exclude_flagged`` by the run
request. A sensitivity cell writes what ``run --sensitivity KIND --out CELL`` writes: one run
folder per planned run (``CELL/unperturbed``, ``CELL/<perturbation>``) and ``sensitivity.json``;
it is finished when that file is there and every planned run folder holds a finished run of its
request. The suite's report reads each sensitivity cell's unperturbed run, and
``sensitivity.md``/``sensitivity.html`` rank the models per perturbation (Kendall's τ,
:func:`biasatlas.sensitivity.ranking_stability`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..atomic import atomic_write
from ..sensitivity import SENSITIVITY_FILE, UNPERTURBED, Planned, plan, ranking_stability, read, report, stability_table
from .folder import finished_cell
from .cell import Cell, CellRun

if TYPE_CHECKING:
    from ..request import RunRequest

#: The keys a ``[[benchmark]]`` table may set that are not its factory's options.
CELL_KEYS: tuple[str, ...] = ("sensitivity", "exclude_flagged")
#: The suite-level files the ranking over the sensitivity cells is written to.
STABILITY_FILES: tuple[str, ...] = ("sensitivity.md", "sensitivity.html")


def cell_run(entry: Mapping[str, Any]) -> tuple[CellRun, str | None, str | None]:
    """The entry's :class:`CellRun`, or the key and what it expected when a value has the wrong type."""
    kind, clean = entry.get("sensitivity"), entry.get("exclude_flagged", False)
    if kind is not None and not isinstance(kind, str):
        return CellRun(), "sensitivity", "expected a sensitivity kind (a string)"
    if not isinstance(clean, bool):
        return CellRun(), "exclude_flagged", "expected true or false"
    return CellRun(kind, clean), None, None


def planned(request: RunRequest, run: CellRun) -> tuple[Planned, ...]:
    """The runs of a sensitivity cell (:func:`biasatlas.sensitivity.plan`, which refuses a kind as
    ``run --sensitivity`` does), none for a plain one; the request checked as ``run`` checks it
    (``exclude_flagged`` where the spec lints nothing is refused)."""
    request.scored_benchmark  # noqa: B018 - the property refuses exclude_flagged without a lint
    return () if run.sensitivity is None else tuple(plan(request, run.sensitivity))


def claims(cells: Sequence[Cell]) -> list[tuple[str, Mapping[str, Any]]]:
    """(run folder, recorded request) of every run the cells write: a sensitivity cell's planned runs."""
    out: list[tuple[str, Mapping[str, Any]]] = []
    for cell in cells:
        runs = cell.planned
        out += ([(f"{cell.folder}/{p.name}", p.request.recorded()) for p in runs] if runs
                else [(cell.folder, cell.request.recorded())])
    return out


def finished(folder: Path, cell: Cell) -> bool:
    """Whether the cell's folder holds its finished run, or, for a sensitivity cell, its
    sensitivity.json and a finished run of every planned request."""
    runs = cell.planned
    if not runs:
        return finished_cell(folder / cell.folder, cell.request.recorded())
    return (folder / cell.folder / SENSITIVITY_FILE).is_file() and all(
        finished_cell(folder / cell.folder / p.name, p.request.recorded()) for p in runs)


def report_folder(cell: Cell) -> str:
    """The run folder the suite's report and leaderboard read for the cell: a sensitivity cell's
    unperturbed run (its perturbed runs are compared in sensitivity.md instead)."""
    return cell.folder if cell.run.sensitivity is None else f"{cell.folder}/{UNPERTURBED}"


def write_stability(folder: Path, cells: Sequence[Cell]) -> tuple[Any, ...]:
    """sensitivity.md and sensitivity.html over the suite's sensitivity cells (each cell's tables,
    then Kendall's τ of the models' ranking per perturbation); returns the τ table (none if no
    cell is a sensitivity cell, or no ranking has two models)."""
    folders = [folder / c.folder for c in cells if c.run.sensitivity is not None]
    if not folders:
        return ()
    for name, fmt in zip(STABILITY_FILES, ("md", "html"), strict=True):
        atomic_write(folder / name, report(folders, fmt))
    rows = ranking_stability([read(f) for f in folders])
    return (stability_table(rows),) if rows else ()
