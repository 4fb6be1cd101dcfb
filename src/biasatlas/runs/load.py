"""Finished run folders as the report loads them: :mod:`biasatlas.runs.view`'s checking
reader, with each benchmark's contract (typed summary, item columns) from its spec.

A run of a benchmark this install does not know still loads (its common fields checked)
and gets the generic summary table.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from .view import (SETTINGS, RunContract, RunView, UnfinishedRun, read_run_view, read_run_views, relabel,
                               with_labels)
from ..registry import find_spec

__all__ = ["SETTINGS", "RunView", "UnfinishedRun", "load_run", "load_runs", "relabel", "with_labels"]


def contract_of(benchmark: str) -> RunContract | None:
    """What loading a run of ``benchmark`` checks, from its spec; ``None`` for an unknown benchmark."""
    spec = find_spec(benchmark)
    return None if spec is None else spec.contract


def load_run(folder: Path | str) -> RunView:
    """Read one finished run folder; raises :class:`~biasatlas.errors.DataError` naming the file and
    what is wrong (:class:`UnfinishedRun` without ``summary.json``)."""
    return read_run_view(folder, contract_of)


def load_runs(folders: Sequence[Path | str], *, skip_unfinished: bool = False,
              warn: Callable[[str], None] | None = None, labels: Sequence[str] = ()) -> list[RunView]:
    """Read several run folders and give each a distinct label (model, variant, folder), or
    the one ``labels`` (``DIR=NAME``) give it.

    With ``skip_unfinished``, folders without ``summary.json`` are left out, each with a call
    to ``warn``, as long as at least one finished run remains; otherwise the first such
    folder is the error. Any other problem (bad JSON, a wrong type) is always an error.
    """
    return relabel(read_run_views(folders, contract_of, skip_unfinished=skip_unfinished, warn=warn), labels)
