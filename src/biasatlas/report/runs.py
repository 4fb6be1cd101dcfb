"""Finished run folders as the report sees them (DESIGN.md: the report reads run folders only).

A :class:`RunView` is one folder's config, summary and per-item records, plus a short
label for tables and plot legends. Loading checks the files as the report will read them
(UTF-8 JSON, objects where objects are read, numbers where numbers are computed with), so
a damaged folder is one :class:`~biasatlas.errors.DataError` naming file, line and field.
Nothing here loads a model.
"""

from __future__ import annotations

import codecs
import json
import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
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
    """Read one finished run folder; raises :class:`DataError` naming the file and what is wrong.

    A folder without ``summary.json`` raises :class:`UnfinishedRun`. Every file is read
    here (not through :func:`biasatlas.results.read_run`) so that a bad byte, a bad line or
    a value of the wrong type is reported by file, line and field, never as a traceback
    from deep inside a table or a plot.
    """
    folder = Path(folder)
    if not folder.exists():
        raise DataError("no such run folder", path=folder)
    if not folder.is_dir():
        raise DataError("is a file, not a run folder (give the folder that holds summary.json)", path=folder)
    if not (folder / "summary.json").exists():
        raise UnfinishedRun(folder)
    summary = _json_object(folder / "summary.json")
    config = _json_object(folder / "config.json")
    records = _jsonl_objects(folder / "items.jsonl")
    skipped = _jsonl_objects(folder / "skipped.jsonl") if (folder / "skipped.jsonl").exists() else []
    view = RunView(folder, config, summary, records, tuple(skipped))
    _check_run(view)
    return with_labels([view])[0]


class UnfinishedRun(DataError):
    """A folder without ``summary.json``: a run still going or interrupted, or not a run at all."""

    def __init__(self, folder: Path) -> None:
        started = any((folder / name).exists() for name in ("config.json", "items.jsonl", ".biasatlas-run.json"))
        what = ("unfinished run (no summary.json: still running, or interrupted)" if started
                else "not a run folder (no summary.json)")
        self.folder, self.reason = folder, what
        super().__init__(what, path=folder)


def load_runs(folders: Sequence[Path | str], *, skip_unfinished: bool = False,
              warn: Callable[[str], None] | None = None) -> list[RunView]:
    """Read several run folders and give each a distinct label (model, variant, folder).

    With ``skip_unfinished``, folders without ``summary.json`` are left out, each with a call
    to ``warn``, as long as at least one finished run remains; otherwise the first such
    folder is the error. Any other problem (bad JSON, a wrong type) is always an error.
    """
    if not folders:
        raise DataError("no run folders given")
    views: list[RunView] = []
    unfinished: list[UnfinishedRun] = []
    for folder in folders:
        try:
            views.append(load_run(folder))
        except UnfinishedRun as exc:
            if not skip_unfinished:
                raise
            unfinished.append(exc)
    if not views:
        raise unfinished[0]
    for exc in unfinished:
        if warn is not None:
            warn(f"skipped {exc.folder}: {exc.reason}")
    return with_labels(views)


# -- reading -------------------------------------------------------------------------------------
def _text(path: Path) -> str:
    """A run file as text; missing, unreadable, BOM-prefixed or non-UTF-8 files are DataErrors."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise DataError(f"missing {path.name}: not a complete run folder", path=path.parent) from None
    except OSError as exc:
        raise DataError(f"cannot read: {exc.strerror or exc}", path=path) from None
    if data.startswith(codecs.BOM_UTF8):
        raise DataError("starts with a UTF-8 byte-order mark (BOM); run files are UTF-8 without one: "
                        "save it again without the BOM", path=path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise DataError(f"not UTF-8 text (byte {exc.start})", path=path, line=line) from None


def _parse(text: str, path: Path, line: int | None = None) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(f"not valid JSON: {exc.msg} (column {exc.colno})", path=path,
                        line=exc.lineno if line is None else line) from None
    except (ValueError, RecursionError) as exc:  # e.g. an integer of 5,000 digits, nesting 100,000 deep
        reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc).splitlines()[0]
        raise DataError(f"not valid JSON: {reason}", path=path, line=line) from None


def _json_object(path: Path) -> dict[str, Any]:
    value = _parse(_text(path), path)
    if not isinstance(value, dict):
        raise DataError(f"expected a JSON object, got {_describe(value)}", path=path)
    return value


def _jsonl_objects(path: Path) -> list[dict[str, Any]]:
    out = []
    for line, text in enumerate(_text(path).splitlines(), start=1):
        if not text.strip():
            continue
        value = _parse(text, path, line)
        if not isinstance(value, dict):
            raise DataError(f"expected one JSON object per line, got {_describe(value)}", path=path, line=line)
        out.append(value)
    return out


def _describe(value: Any) -> str:
    """A wrong value, short and on one line, for an error message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f"the string {value[:40]!r}" + ("…" if len(value) > 40 else "")
    if isinstance(value, (int, float)):
        return repr(value)
    return "an object" if isinstance(value, dict) else "a list" if isinstance(value, list) else type(value).__name__


# -- types: what the report reads, checked once on load ---------------------------------------------
class _Bad(Exception):
    def __init__(self, field: str, expected: str, value: Any) -> None:
        super().__init__(field)
        self.field, self.expected, self.value = field, expected, value


_Check = Callable[[Any, str], None]


def _number(value: Any, name: str) -> None:
    """A finite number or null (JSON has no NaN; Python's reader accepts it, the plots do not)."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _Bad(name, "a number or null", value)
    if not math.isfinite(value):
        raise _Bad(name, "a finite number or null", value)


def _required_number(value: Any, name: str) -> None:
    if value is None:
        raise _Bad(name, "a number", value)
    _number(value, name)


def _string(value: Any, name: str) -> None:
    if value is not None and not isinstance(value, str):
        raise _Bad(name, "a string or null", value)


def _required_string(value: Any, name: str) -> None:
    if not isinstance(value, str):
        raise _Bad(name, "a string", value)


def _interval(value: Any, name: str) -> None:
    """``[low, high]``, either end null, or null."""
    if value is None:
        return
    if not isinstance(value, list) or len(value) != 2:
        raise _Bad(name, "an interval [low, high] or null", value)
    for i, end in enumerate(value):
        _number(end, f"{name}[{i}]")


def _object(fields: Mapping[str, _Check], *, nullable: bool = True) -> _Check:
    def check(value: Any, name: str) -> None:
        if value is None and nullable:
            return
        if not isinstance(value, dict):
            raise _Bad(name, "an object or null" if nullable else "an object", value)
        for key, inner in fields.items():
            if key in value:
                inner(value[key], f"{name}.{key}" if name else key)
    return check


def _each(inner: _Check) -> _Check:
    """An object whose keys are names (categories, classes, pairs), each value checked alike."""
    def check(value: Any, name: str) -> None:
        if value is None:
            return
        if not isinstance(value, dict):
            raise _Bad(name, "an object or null", value)
        for key, item in value.items():
            inner(item, f"{name}.{key}")
    return check


def _intervals(*names: str, **others: _Check) -> _Check:
    """The ``intervals`` object: the named entries ``[low, high]``; others (``confidence``) as given."""
    return _object({**dict.fromkeys(names, _interval), **others})


#: summary.json fields the report reads as numbers, intervals or objects, by benchmark. Only
#: what the report reads is checked, so a field a later version adds never fails an old report.
SUMMARY_TYPES: dict[str, dict[str, _Check]] = {
    "crows-pairs": {
        **dict.fromkeys(("n", "metric_score", "stereo_score", "antistereo_score", "n_stereo", "n_antistereo",
                         "neutral", "neutral_percent", "n_skipped"), _number),
        "by_category": _each(_object({"n": _number, "score": _number, "ci": _interval, "binomial_p": _number},
                                     nullable=False)),
        "intervals": _intervals("metric_score", "stereo_score", "antistereo_score"),
        "tests": _each(_object({"binomial_p": _number})),
    },
    "census": {
        **dict.fromkeys(("n_occupations", "normative", "descriptive", "pearson", "pearson_p", "spearman",
                         "spearman_p", "n_skipped"), _number),
        "descriptive_by_class": _each(_number), "intervals": _intervals("normative", "descriptive", confidence=_number),
    },
    "zh-neutral": {
        **dict.fromkeys(("n", "bias_score", "threshold"), _number),
        "intervals": _intervals("bias_score"), "by_pair": _each(_object({"bias_score_ci": _interval})),
    },
}
#: Fields every summary and config may have, read as objects or strings.
COMMON_TYPES: dict[str, _Check] = {"benchmark": _string, "dataset": _string, "model": _string, "variant": _string,
                                   "provenance": _object({"scorer": _object({})})}
CONFIG_TYPES: dict[str, _Check] = {"benchmark": _object({}), "scorer": _object({})}
#: Item fields the report computes with, by benchmark (presence is checked by ITEM_FIELDS).
ITEM_TYPES: dict[str, dict[str, _Check]] = {
    "crows-pairs": {"sent_more_score": _number, "sent_less_score": _number, "bias_type": _required_string,
                    "outcome": _string},
    "census": {"census_female_pct": _required_number, "model_female_pct": _number, "census_class": _string,
               "model_class": _string},
    "zh-neutral": {"b": _number, "leaning": _string},
}


def _check_fields(value: Mapping[str, Any], checks: Mapping[str, _Check], path: Path, line: int | None = None) -> None:
    try:
        _object(checks)(value, "")
    except _Bad as bad:
        raise DataError(f"expected {bad.expected}, got {_describe(bad.value)}", path=path, line=line,
                        field=bad.field) from None


def _check_run(view: RunView) -> None:
    """Fail on load, naming file, line and field, rather than deep inside a table or a plot."""
    _check_fields(view.summary, {**COMMON_TYPES, **SUMMARY_TYPES.get(view.benchmark, {})},
                  view.path / "summary.json")
    _check_fields(view.config, CONFIG_TYPES, view.path / "config.json")
    needed, types = ITEM_FIELDS.get(view.benchmark, ()), ITEM_TYPES.get(view.benchmark, {})
    items = view.path / "items.jsonl"
    for line, record in enumerate(view.records, start=1):
        for name in needed:
            if name not in record:
                raise DataError(f"{view.benchmark} item lacks {name!r}", path=items, line=line, field=name)
        _check_fields(record, types, items, line)


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
