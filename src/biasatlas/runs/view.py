"""Finished run folders as the report sees them (DESIGN.md: the report reads run folders only).

A :class:`RunView` is one folder's config, summary and per-item records, plus a short
label for tables and plot legends. Loading checks the files as the report will read them
(UTF-8 JSON, objects where objects are read, numbers where numbers are computed with), so
a damaged folder is one :class:`~biasatlas.errors.DataError` naming file, line and field.
What a benchmark's report reads (its typed summary, its item columns) comes as a
:class:`RunContract`, looked up by the summary's ``benchmark`` name: this module names no
benchmark. Nothing here loads a model.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, Protocol, TypeVar

from ..errors import DataError, MissingInput, UsageError
from .format import renamed_config
from ..textfiles import json_lines, read_text
from .subset import SHARED_SUBSET, SubsetKey, subset_part
from .checks import FieldCheck, check_fields, describe, number, obj, required_number, required_string, string

#: Benchmark settings that decide which items were scored or how their text was prepared,
#: as (config key, label). Shown in the provenance table and the leaderboards, because two
#: numbers read side by side mean little when one came from 80 pairs or from cased text.
#: Older runs lack the newer keys (``identifiers``, ``causal_reading``; ``bias_types`` is recorded only
#: when set): read with ``.get``.
SETTINGS: tuple[tuple[str, str], ...] = (("limit", "limit"), ("sample", "sample"), ("bias_types", "bias-type"),
                                         ("lowercase", "lowercase"),
                                         ("strip_whitespace", "strip-whitespace"), ("unicode_nfc", "unicode-nfc"),
                                         ("identifiers", "identifiers"), ("causal_reading", "causal-reading"))


class _Readable(Protocol):
    @classmethod
    def read(cls: type[S], data: Mapping[str, Any], path: Path) -> S: ...


S = TypeVar("S", bound=_Readable)


@dataclass(frozen=True)
class RunView:
    """One finished run folder: what it measured, its numbers and its items."""

    path: Path
    config: Mapping[str, Any]
    summary: Mapping[str, Any]
    records: Sequence[Mapping[str, Any]]
    skipped: Sequence[Mapping[str, Any]] = field(default_factory=tuple)
    label: str = ""
    #: The summary keys whose values follow the model in its label (its benchmark's contract).
    label_keys: tuple[str, ...] = ("variant",)
    #: The options that choose its items (its benchmark's contract).
    subset_keys: tuple[SubsetKey, ...] = SHARED_SUBSET
    #: A control flags one of its headlines (set by the report, which reads the controls): its
    #: leaderboard row carries the warning mark, and no other run's row does.
    flagged: bool = field(default=False, compare=False)
    #: The benchmark's typed summary, as its spec read it on load (``None`` for other benchmarks).
    typed_summary: object = field(default=None, compare=False, repr=False)

    def typed(self, kind: type[S]) -> S:
        """The summary as ``kind`` (a benchmark's typed summary): as its spec read it on
        load, or read now, for a view built by hand."""
        if isinstance(self.typed_summary, kind):
            return self.typed_summary
        return kind.read(self.summary, self.path / "summary.json")

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
    def subset(self) -> str:
        """Which items the run scored, in words: ``"all items"``, or each subset option it set
        (``"scenarios 2 (seed 0)"``, ``"limit 80; category Age"``), so no table shows a number
        of a subset as if it were of the whole dataset."""
        bench = self.benchmark_config
        parts = [subset_part(k, bench[k.key], bench.get("seed")) for k in self.subset_keys
                 if bench.get(k.key, k.default) not in (k.default, None)]
        return "; ".join(parts) or "all items"

    @property
    def group(self) -> tuple[str, str, str]:
        """Runs in one group read the same data file, so their items can be paired."""
        return self.benchmark, self.dataset, self.data_sha256 or ""

    def skip_reasons(self) -> Counter[str]:
        return Counter(str(s.get("reason", "unknown")) for s in self.skipped)


#: How an item column is typed: a number or a string, ``?`` where null is allowed, or unchecked.
ColumnType = Literal["number", "number?", "string", "string?", "any"]
_COLUMN_CHECKS: dict[ColumnType, FieldCheck] = {"number": required_number, "number?": number,
                                                "string": required_string, "string?": string}


@dataclass(frozen=True)
class Column:
    """An ``items.jsonl`` field a benchmark's report reads: whether every item must have it, and its type."""

    name: str
    type: ColumnType = "any"
    required: bool = True


@dataclass(frozen=True)
class RunContract:
    """What a benchmark's report reads from its run folders, checked once on load.

    ``read_summary`` reads summary.json back typed (raising :class:`DataError` naming file
    and field); ``columns`` are the item fields, checked on every line of items.jsonl.
    ``renamed_config`` are the benchmark's config keys renamed since an older run folder
    recorded them, as (old, new): the view reads its config under the new names.
    """

    read_summary: Callable[[Mapping[str, Any], Path], object]
    columns: tuple[Column, ...] = ()
    #: The summary's settings that follow the model in a run's label, e.g. CrowS-Pairs' variant.
    label_keys: tuple[str, ...] = ()
    renamed_config: tuple[tuple[str, str], ...] = ()
    subset_keys: tuple[SubsetKey, ...] = SHARED_SUBSET


#: The contract of a benchmark name, ``None`` for a benchmark the caller does not know.
ContractOf = Callable[[str], RunContract | None]


def _no_contract(name: str) -> RunContract | None:
    return None


def read_run_view(folder: Path | str, contract_of: ContractOf = _no_contract) -> RunView:
    """Read one finished run folder; raises :class:`DataError` naming the file and what is wrong.

    A folder without ``summary.json`` raises :class:`UnfinishedRun`. Every file is read
    here (not through :func:`biasatlas.runs.folder.read_run`) so that a bad byte, a bad line or
    a value of the wrong type is reported by file, line and field, never as a traceback
    from deep inside a table or a plot.
    """
    folder = Path(folder)
    if not folder.exists():
        raise MissingInput("no such run folder", path=folder)  # a typo: a usage mistake (exit 2)
    if not folder.is_dir():
        raise DataError("is a file, not a run folder (give the folder that holds summary.json)", path=folder)
    if not (folder / "summary.json").exists():
        raise UnfinishedRun(folder)
    summary = _json_object(folder / "summary.json")
    config = _json_object(folder / "config.json")
    records = _jsonl_objects(folder / "items.jsonl")
    skipped = _jsonl_objects(folder / "skipped.jsonl") if (folder / "skipped.jsonl").exists() else []
    view = RunView(folder, config, summary, records, tuple(skipped))
    view = _check_run(view, contract_of(view.benchmark))
    return with_labels([view])[0]


class UnfinishedRun(DataError):
    """A folder without ``summary.json``: a run still going or interrupted, or not a run at all."""

    def __init__(self, folder: Path) -> None:
        started = any((folder / name).exists() for name in ("config.json", "items.jsonl", ".biasatlas-run.json"))
        what = ("unfinished run (no summary.json: still running, or interrupted)" if started
                else "not a run folder (no summary.json)")
        self.folder, self.reason = folder, what
        super().__init__(what, path=folder)


def read_run_views(folders: Sequence[Path | str], contract_of: ContractOf = _no_contract, *,
                   skip_unfinished: bool = False, warn: Callable[[str], None] | None = None) -> list[RunView]:
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
            views.append(read_run_view(folder, contract_of))
        except UnfinishedRun as exc:
            if not skip_unfinished:
                raise
            unfinished.append(exc)
    if not views:
        raise unfinished[0]
    for left_out in unfinished:
        if warn is not None:
            warn(f"skipped {left_out.folder}: {left_out.reason}")
    return with_labels(views)


# -- reading -------------------------------------------------------------------------------------
def _text(path: Path) -> str:
    """A run file as text, under the one text-file policy (:mod:`biasatlas.textfiles`)."""
    if not path.exists():
        raise DataError(f"missing {path.name}: not a complete run folder", path=path.parent)
    return read_text(path)


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
        raise DataError(f"expected a JSON object, got {describe(value)}", path=path)
    return value


def _jsonl_objects(path: Path) -> list[dict[str, Any]]:
    out = []
    for line, text in json_lines(_text(path)):  # split on \n only, as written
        if not text.strip():
            continue
        value = _parse(text, path, line)
        if not isinstance(value, dict):
            raise DataError(f"expected one JSON object per line, got {describe(value)}", path=path, line=line)
        out.append(value)
    return out


# -- types: what the report reads, checked once on load ---------------------------------------------
#: Fields every summary and config may have, read as objects or strings.
COMMON_TYPES: dict[str, FieldCheck] = {"benchmark": string, "dataset": string, "model": string, "variant": string,
                                       "label": string,
                                       "provenance": obj({"scorer": obj({})})}
CONFIG_TYPES: dict[str, FieldCheck] = {"benchmark": obj({}), "scorer": obj({})}
#: The summary fields every run has written since the first version (``pipeline.run_benchmark``): a
#: summary without them (``{}``, another program's JSON) is no run's, and is refused.
NAMED_BY_EVERY_RUN: tuple[str, ...] = ("benchmark", "model")


def _check_run(view: RunView, contract: RunContract | None) -> RunView:
    """Fail on load, naming file, line and field, rather than deep inside a table or a plot;
    the view comes back with its benchmark's typed summary."""
    summary_path = view.path / "summary.json"
    check_fields(view.summary, COMMON_TYPES, summary_path)
    for key in NAMED_BY_EVERY_RUN:  # without them a folder reads as "unknown · unknown model", exit 0
        if not view.summary.get(key):
            raise DataError("missing: not a biasatlas run summary (every run records its benchmark and model)",
                            path=summary_path, field=key)
    typed = contract.read_summary(view.summary, summary_path) if contract is not None else None
    check_fields(view.config, CONFIG_TYPES, view.path / "config.json")
    columns = contract.columns if contract is not None else ()
    needed = [c.name for c in columns if c.required]
    types = {c.name: _COLUMN_CHECKS[c.type] for c in columns if c.type != "any"}
    items = view.path / "items.jsonl"
    for line, record in enumerate(view.records, start=1):
        for name in needed:
            if name not in record:
                raise DataError(f"{view.benchmark} item lacks {name!r}", path=items, line=line, field=name)
        check_fields(record, types, items, line)
    if contract is None:
        return replace(view, typed_summary=typed)
    return replace(view, typed_summary=typed, label_keys=contract.label_keys, subset_keys=contract.subset_keys,
                   config=_upgraded_config(view.config, contract.renamed_config))


def _upgraded_config(config: Mapping[str, Any], renames: tuple[tuple[str, str], ...]) -> Mapping[str, Any]:
    """config.json with the benchmark's settings under today's names (an older folder's
    census ``variant`` is its ``method``), so pairing, provenance and labels read one name."""
    bench = config.get("benchmark")
    if not renames or not isinstance(bench, Mapping):
        return config
    return {**config, "benchmark": renamed_config(bench, renames)}


def with_labels(views: Sequence[RunView]) -> list[RunView]:
    """Label runs by the label they were given (``--label``), else by model, a local folder by its
    base name, followed by the settings their benchmark names (``label_keys``: CrowS-Pairs'
    variant; none for zh-neutral); the run folder's name follows where two would read alike."""
    own = [run_label(v) for v in views]
    counts = Counter((v.benchmark, v.dataset, label) for v, label in zip(views, own))
    labelled = []
    for v, label in zip(views, own):
        if counts[(v.benchmark, v.dataset, label)] > 1:
            label = f"{label} [{v.path.name}]"
        labelled.append(replace(v, label=label))
    return labelled


def relabel(views: Sequence[RunView], labels: Sequence[str]) -> list[RunView]:
    """``views`` with the labels ``DIR=NAME`` give (``report --label``): each DIR one of the
    run folders (as typed, or the same folder by another path); a DIR that names none of them
    is an error, not a label silently unused, and so is a name two runs would share."""
    named: dict[Path, str] = {}
    for text in labels:
        folder, sep, name = text.partition("=")  # a name may hold "=" ("lr=1e-5"); a folder rarely does
        if not sep or not folder or not name.strip():
            raise UsageError(f"--label takes DIR=NAME (a run folder and its name), not {text!r}")
        if Path(folder).resolve() in named:
            raise UsageError(f"--label names the run folder {folder} twice: give each run folder one name")
        named[Path(folder).resolve()] = name.strip()
    given = set(named.values())
    out = []
    for view in views:
        where = view.path.resolve()
        out.append(replace(view, label=named.pop(where)) if where in named else view)
    if named:
        raise UsageError(f"--label names {', '.join(str(p) for p in named)}: not one of the run folders given")
    _distinct(out, given)
    return out


def _distinct(views: Sequence[RunView], given: set[str]) -> None:
    """Refuse a ``--label`` name that two runs of one benchmark and dataset would share ("X vs X")."""
    seen: dict[tuple[str, str, str], RunView] = {}
    for view in views:
        key = (view.benchmark, view.dataset, view.label)
        if key in seen and view.label in given and seen[key].path.resolve() != view.path.resolve():
            raise UsageError(f"--label gives two runs the name {view.label!r} ({seen[key].path} and {view.path}): "
                             "give each run its own name")
        seen.setdefault(key, view)


def run_label(view: RunView) -> str:
    """``view``'s own label: the one it was given, or its model's name and its benchmark's settings
    (and "clean subset" for a run that scored only the items the lint found nothing on)."""
    given = view.summary.get("label")
    if given:
        return str(given)
    settings = [str(value) for key in view.label_keys if (value := view.summary.get(key)) not in (None, "", "default")]
    if view.benchmark_config.get("exclude_flagged"):  # --exclude-flagged: its row beside the full run's
        settings.append("clean subset")
    name = model_name(view.model)
    return f"{name} ({', '.join(settings)})" if settings else name


def model_name(model: str) -> str:
    """A model as a table shows it: a hub id as written, a local folder by its base name (an
    absolute path in every table, plot and BibTeX key says where it was, not what it is); a served
    model by its served name (``smollm2 @ http://127.0.0.1:8000/v1`` → ``smollm2 (served)``: the
    address is the run's provenance, not the model's name)."""
    served, at, url = model.partition(" @ ")
    if at and url.startswith(("http://", "https://")) and served:
        return f"{served} (served)"
    if model.startswith(("/", "./", "../", "~")) or Path(model).is_absolute():
        return Path(model).name or model
    if re.match(r"[A-Za-z]:[\\/]", model):  # a Windows folder, read anywhere: C:\models\bert
        return re.split(r"[\\/]", model.rstrip("\\/"))[-1]
    return model
