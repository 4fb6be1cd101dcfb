"""Finished run folders as the report sees them (DESIGN.md: the report reads run folders only).

A :class:`RunView` is one folder's config, summary and per-item records, read through
:func:`biasatlas.results.read_run`, plus a short label for tables and plot legends.
Nothing here loads a model.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import DataError

#: Benchmarks the report knows how to draw; others get the generic summary and provenance.
KNOWN_BENCHMARKS: tuple[str, ...] = ("crows-pairs", "census", "zh-neutral")
#: The item fields each benchmark's report reads (checked once, on load).
ITEM_FIELDS: dict[str, tuple[str, ...]] = {
    "crows-pairs": ("id", "bias_type", "direction", "sent_more", "sent_less", "outcome"),
    "census": ("occupation", "census_female_pct", "model_female_pct", "census_class", "model_class"),
    "zh-neutral": ("id", "sentence", "pair", "b", "leaning"),
}
#: Benchmark settings that decide which items were scored or how their text was prepared,
#: as (config key, label). Shown in the provenance table and the leaderboards, because two
#: numbers read side by side mean little when one came from 80 pairs or from cased text.
#: Older runs lack the newer keys (``identifiers``, ``causal_reading``): read with ``.get``.
SETTINGS: tuple[tuple[str, str], ...] = (("limit", "limit"), ("sample", "sample"), ("lowercase", "lowercase"),
                                         ("identifiers", "identifiers"), ("causal_reading", "causal-reading"))


@dataclass(frozen=True)
class RunView:
    """One finished run folder: what it measured, its numbers and its items."""

    path: Path
    config: Mapping[str, Any]
    summary: Mapping[str, Any]
    records: Sequence[Mapping[str, Any]]
    skipped: Sequence[Mapping[str, Any]] = field(default_factory=tuple)
    label: str = ""

    @property
    def benchmark(self) -> str:
        return str(self.summary.get("benchmark", "unknown"))

    @property
    def model(self) -> str:
        return str(self.summary.get("model") or "unknown model")

    @property
    def variant(self) -> str | None:
        return self.summary.get("variant")

    @property
    def dataset(self) -> str:
        return str(self.summary.get("dataset") or "")

    @property
    def provenance(self) -> Mapping[str, Any]:
        return self.summary.get("provenance") or {}

    @property
    def benchmark_config(self) -> Mapping[str, Any]:
        """The benchmark's ``config()`` as recorded in config.json (empty if absent)."""
        bench = self.config.get("benchmark")
        return bench if isinstance(bench, Mapping) else {}

    @property
    def scorer_config(self) -> Mapping[str, Any]:
        """The scorer's ``describe()``: model, location, and ``revision`` or ``file_sha256``.

        The pipeline records it twice (config.json and the summary's provenance); config.json wins.
        """
        scorer = self.config.get("scorer")
        recorded = self.provenance.get("scorer")
        return {**(recorded if isinstance(recorded, Mapping) else {}),
                **(scorer if isinstance(scorer, Mapping) else {})}

    @property
    def data_sha256(self) -> str | None:
        return self.provenance.get("data_sha256") or self.benchmark_config.get("data_sha256")

    @property
    def group(self) -> tuple[str, str, str]:
        """Runs in one group read the same data file, so their items can be paired."""
        return self.benchmark, self.dataset, self.data_sha256 or ""

    def skip_reasons(self) -> Counter[str]:
        return Counter(str(s.get("reason", "unknown")) for s in self.skipped)


def load_run(folder: Path | str) -> RunView:
    """Read one finished run folder; raises :class:`DataError` naming what is wrong."""
    from ..results import read_run

    folder = Path(folder)
    if not folder.is_dir():
        raise DataError("no such run folder", path=folder)
    run = read_run(folder)
    view = RunView(folder, run.config, run.summary, run.records, tuple(run.skipped))
    _check_items(view)
    return with_labels([view])[0]


def _check_items(view: RunView) -> None:
    """Fail on load, naming file, line and field, rather than deep inside a plot."""
    needed = ITEM_FIELDS.get(view.benchmark, ())
    for line, record in enumerate(view.records, start=1):
        for name in needed:
            if name not in record:
                raise DataError(f"{view.benchmark} item lacks {name!r}", path=view.path / "items.jsonl",
                                line=line, field=name)


def load_runs(folders: Sequence[Path | str]) -> list[RunView]:
    """Read several run folders and give each a distinct label (model, variant, folder)."""
    if not folders:
        raise DataError("no run folders given")
    views = [load_run(f) for f in folders]
    return with_labels(views)


def with_labels(views: Sequence[RunView]) -> list[RunView]:
    """Label runs by model; add the variant, then the folder name, only where needed to tell apart."""
    from dataclasses import replace

    def base(v: RunView) -> str:
        return v.model if v.variant in (None, "", "default") else f"{v.model} ({v.variant})"

    counts = Counter((v.benchmark, v.dataset, base(v)) for v in views)
    labelled = []
    for v in views:
        label = base(v)
        if counts[(v.benchmark, v.dataset, label)] > 1:
            label = f"{label} [{v.path.name}]"
        labelled.append(replace(v, label=label))
    return labelled
