"""A finished run as one object: :class:`EvaluationRun`, from :func:`biasatlas.evaluate` or read
back from its run folder by :func:`load_run` (``biasatlas.load_run``).

Either way it holds the same fields, as the run folder's files read back (JSON values), with
the benchmark's typed summary; nothing heavy is imported until a method needs it (the
registry, pandas, the report's terminal tables), so ``import biasatlas`` stays fast.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .errors import BiasAtlasError
from .registry import find_spec
from .report.sections import run_terminal
from .runs.load import load_run as read_view
from .runs.view import RunView, with_labels

__all__ = ["EvaluationRun", "as_saved", "load_run"]


@dataclass(frozen=True, repr=False)
class EvaluationRun:
    """A finished run, from :func:`biasatlas.evaluate` or read back by :func:`load_run`: the same
    fields either way, as the run folder holds them (JSON values: NaN and infinities read
    as ``None``, tuples as lists).

    ``summary`` is the benchmark's typed summary (``CrowsRunSummary``, ``CensusRunSummary``,
    ``ZhRunSummary``: the fields its report reads, checked); ``summary_dict`` all of
    summary.json. ``path`` is the run folder, ``None`` when the run was not saved.
    """

    benchmark: str
    summary: Any
    summary_dict: Mapping[str, Any] = field(repr=False)
    records: list[dict[str, Any]] = field(repr=False)
    skipped: list[dict[str, Any]] = field(repr=False)
    config: Mapping[str, Any] = field(repr=False)
    timing: Mapping[str, Any] = field(repr=False)
    path: Path | None = None

    @classmethod
    def of(cls, benchmark: str, summary: Mapping[str, Any], records: list[dict[str, Any]],
           skipped: list[dict[str, Any]], config: Mapping[str, Any], timing: Mapping[str, Any], *,
           path: Path | None) -> EvaluationRun:
        """A run from the pipeline's values, each as its run-folder file would read back."""
        saved = as_saved(summary)
        spec = find_spec(benchmark)
        typed = spec.summary_type.read(saved, (path or Path(".")) / "summary.json") if spec else saved
        return cls(benchmark, typed, saved, as_saved(records), as_saved(skipped), as_saved(config),
                   as_saved(timing), path)

    def __repr__(self) -> str:
        where = f"saved in {self.path}" if self.path is not None else "not saved"
        return (f"<EvaluationRun {self.benchmark} · {self.summary_dict.get('dataset')} · {self.model} · "
                f"{len(self.records)} items, {len(self.skipped)} skipped · {where}>")

    @property
    def model(self) -> str:
        return str(self.summary_dict.get("model") or "unknown model")

    @property
    def items(self) -> Any:
        """The per-item records as a pandas DataFrame (one row per item; needs the ``pandas`` extra)."""
        try:
            import pandas as pd  # type: ignore[import-untyped]  # the optional `pandas` extra
        except ImportError:
            raise BiasAtlasError("run.items needs pandas: pip install 'biasatlas[pandas]' "
                                 "(run.records holds the same rows as dicts)") from None
        if self.records:
            return pd.DataFrame.from_records(self.records)
        return pd.DataFrame(columns=[c.name for c in _columns(self.benchmark)])

    def headlines(self) -> tuple[Any, ...]:
        """The run's headline numbers with their controls (:class:`~biasatlas.display.controls.Headline`)."""
        spec = find_spec(self.benchmark)
        view = RunView(self.path or Path("."), self.config, self.summary_dict, self.records, tuple(self.skipped))
        return spec.view.headlines(view) if spec is not None else ()

    def table(self) -> Any:
        """What ``biasatlas run`` prints: the tables the report shows for this run, then its
        notices, each table fitted to the console that prints it (a rich renderable:
        ``rich.print(run.table())``; :func:`biasatlas.report.sections.run_terminal`)."""
        spec = find_spec(self.benchmark)
        view = RunView(self.path or Path("."), self.config, self.summary_dict, self.records, tuple(self.skipped),
                       typed_summary=self.summary)
        (view,) = with_labels([replace(view, label_keys=spec.label_keys) if spec is not None else view])
        return run_terminal(view)


def as_saved(value: Any) -> Any:
    """``value`` as its run-folder file reads back: JSON, with NaN and infinities as null
    (what :func:`biasatlas.runs.folder.write_run` writes): :func:`biasatlas.api.execute` reads its
    summary for the detectable effects so, before the folder is written."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return json.loads(text, parse_constant=lambda _: None)


def _columns(benchmark: str) -> tuple[Any, ...]:
    spec = find_spec(benchmark)
    return spec.columns if spec is not None else ()


# -- reading a run folder --------------------------------------------------------------------------
def load_run(path: Path | str) -> EvaluationRun:
    """A finished run folder, read and checked by the report's reader
    (:func:`biasatlas.report.load_run`: a damaged file is one DataError naming file, line and
    field), as the same :class:`EvaluationRun` :func:`evaluate` returns."""
    view = read_view(path)
    timing = _timing(view.path / "timing.json")
    return EvaluationRun.of(view.benchmark, view.summary, [dict(r) for r in view.records],
                            [dict(s) for s in view.skipped], view.config, timing, path=view.path)


def _timing(path: Path) -> dict[str, Any]:
    """timing.json, or nothing: it holds seconds and cache counts, never a result."""
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}
