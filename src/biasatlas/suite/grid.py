"""Suites: a grid of benchmarks × models, read from one TOML file, run into one folder.

A suite file (docs/suites.md; docs/example-suite.toml)::

    out = "runs/suite"                       # optional; relative to this file
    [defaults]                               # scorer options for every model
    batch_size = 32
    [[benchmark]]
    name = "crows-pairs"
    dataset = "fr"
    lowercase = true
    [[benchmark]]
    name = "census"
    country = "no"
    sample = 12
    [[model]]
    id = "gemma-3-270m"
    [[model]]
    id = "./my-model"                        # a path: relative to this file
    label = "mine"
    dtype = "float32"

Each cell (benchmark × model) is one run folder ``<out>/<benchmark>[-<dataset or
country>]__<model>`` written by :func:`biasatlas.api.execute` through the score cache; a
``[[benchmark]]`` with ``sensitivity = "KIND"`` or ``exclude_flagged = true`` runs its cells as
``run --sensitivity`` / ``--exclude-flagged`` do (:mod:`biasatlas.suite.sensitivity`). The
whole file is checked before any model loads (keys, benchmark options and their types and
choices, scorer options, that each benchmark's data loads and each model can be found), so
a mistake in the last cell fails in a second. A rerun skips the cells already finished with
the same settings and resumes the others from the score cache: a killed suite, run again,
ends with the same run folders. The suite ends with ``report.html`` and ``leaderboard.md``
(:mod:`biasatlas.report`) over all its cells.
"""

from __future__ import annotations

import os
import re
import tomllib
import typing
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from ..atomic import atomic_write
from ..cache import ScoreCache, default_cache_path
from ..display.tables import to_markdown
from ..errors import BiasAtlasError, DataError, MissingInput, UsageError, did_you_mean
from ..registry import BENCHMARKS, benchmark_spec, load_benchmark
from ..report import build_report, leaderboard, load_runs, render_html
from ..request import EngineOptions, ModelOptions, RunRequest, benchmark_options, check_label
from ..sensitivity import run as sensitivity_run
from ..textfiles import read_text
from ..values import CHECKS
from .cell import Cell, CellRun
from .folder import LEADERBOARD_FILE, REPORT_FILE, SUITE_COPY, claim_suite_folder
from .sensitivity import CELL_KEYS, cell_run, claims, finished, planned, report_folder, write_stability
from .values import Mismatch, coerce, relative_to

__all__ = ["Cell", "Suite", "SuiteError", "SuiteResult", "grid_suite", "read_suite", "run_suite"]

TOP_KEYS: tuple[str, ...] = ("out", "defaults", "benchmark", "model")
#: What a ``[defaults]`` or ``[[model]]`` table may set: every model and engine option of a
#: run (the fields of :class:`~biasatlas.request.ModelOptions` but the model itself, which is
#: ``id``, and of :class:`~biasatlas.request.EngineOptions`), typed by their annotations.
RUN_OPTIONS: tuple[str, ...] = (*(f.name for f in fields(ModelOptions) if f.name != "model"),
                                *(f.name for f in fields(EngineOptions)))
MODEL_KEYS: tuple[str, ...] = ("id", "label", *RUN_OPTIONS)
#: The longest file name, in bytes, of the file systems a suite writes to (ext4, APFS, NTFS's UTF-16 aside).
NAME_MAX = 255
#: Benchmark options used to name a cell's folder, first found first.
NAMING_OPTIONS: tuple[str, ...] = ("dataset", "country")


class SuiteError(DataError):
    """A mistake in a suite file, named by file, table and key (``[[benchmark]] 2 (census), key 'method'``)."""

    exit_code = 2

    def __init__(self, path: Path, where: str, message: str) -> None:
        super().__init__(f"{path}: {where}: {message}" if where else f"{path}: {message}")
        self.path, self.where = path, where


@dataclass(frozen=True)
class Suite:
    """A checked suite file: where it writes (``out``, ``None`` if the file names none) and its cells."""

    path: Path
    out: Path | None
    cells: tuple[Cell, ...]
    #: The suite's TOML when it is not a file at ``path`` (a grid from the command line: ``path`` is
    #: then the copy in its folder, which names the suite's owner).
    text: str | None = None


@dataclass(frozen=True)
class SuiteResult:
    """What a finished suite wrote: its folder, which cells ran and which were already done,
    the report, the Markdown leaderboard and its tables (to print)."""

    out: Path
    ran: tuple[str, ...]
    skipped: tuple[str, ...]
    report: Path
    leaderboard: Path
    tables: tuple[Any, ...]


# -- reading and checking ---------------------------------------------------------------------------
def read_suite(path: Path | str) -> Suite:
    """Read and check a suite file; every benchmark is built and its data loaded, no model is.

    Raises :class:`SuiteError` naming the file, the table (``[[benchmark]] 2``) and the key.
    """
    path = Path(path)
    return _checked(path, _parse(path), path.parent)


def grid_suite(benchmarks: Sequence[str], models: Sequence[str], defaults: Mapping[str, Any], out: Path) -> Suite:
    """The suite of every benchmark (at its default options) × every model, given on the command
    line (``biasatlas run crows-pairs,census -m a,b --out DIR``; lm-eval's ``--tasks a,b``), checked
    as a suite file is, with ``defaults`` (model and engine options) for every model. Its TOML is
    written to ``DIR/suite.toml``, so ``biasatlas suite DIR/suite.toml`` reruns or extends it."""
    data = {"out": ".", "defaults": dict(defaults), "benchmark": [{"name": b} for b in benchmarks],
            "model": [{"id": _absolute(m)} for m in models]}
    copy = Path(os.path.abspath(Path(out) / SUITE_COPY))
    checked = _checked(copy, data, Path.cwd())
    return Suite(copy, Path(out), checked.cells, _toml(data))


def _absolute(model: str) -> str:
    """A model given as a path, made absolute (the suite's copy lives elsewhere than the command ran)."""
    return os.path.abspath(model) if model.startswith(("./", "../", "~", "/")) or Path(model).is_dir() else model


def _toml(data: Mapping[str, Any]) -> str:
    """``data`` (a grid: strings, numbers and booleans in ``[defaults]``, ``[[benchmark]]``, ``[[model]]``) as TOML."""
    import json

    def line(key: str, value: Any) -> str:
        text = ("true" if value else "false") if isinstance(value, bool) else json.dumps(value, ensure_ascii=False)
        return f"{key} = {text}"

    parts = ["# written by biasatlas run from its command line", line("out", data["out"]), "", "[defaults]",
             *(line(k, v) for k, v in data["defaults"].items())]
    for table in ("benchmark", "model"):
        for entry in data[table]:
            parts += ["", f"[[{table}]]", *(line(k, v) for k, v in entry.items())]
    return "\n".join(parts) + "\n"


def _checked(path: Path, data: Mapping[str, Any], base: Path) -> Suite:
    """A suite's content (a parsed file's, or a grid's) checked; paths in it relative to ``base``."""
    _known_keys(path, "", data, TOP_KEYS, "top-level key")
    out = _out(path, data.get("out"))
    defaults = _table(path, "[defaults]", data.get("defaults", {}))
    _known_keys(path, "[defaults]", defaults, RUN_OPTIONS, "model or engine option")
    benchmarks = [_benchmark(path, i, entry, base) for i, entry in enumerate(_array(path, "benchmark", data), 1)]
    models = [_model(path, i, entry, defaults, base) for i, entry in enumerate(_array(path, "model", data), 1)]
    cells = tuple(_cell(path, f"{prefix}__{slug}", bench, model, how)
                  for prefix, bench, how in benchmarks for slug, model in models)
    _distinct(path, cells)
    return Suite(path, out, cells)


def _cell(path: Path, folder: str, bench: Any, run: tuple[ModelOptions, EngineOptions, str, str | None],
          how: CellRun) -> Cell:
    """The cell of ``bench`` on a checked model, once the benchmark accepts that model's scorer
    (census refuses an explicit causal reading of a masked LM before any model loads) and the
    cell's sensitivity kind and ``exclude_flagged`` pass the checks ``run`` makes of them."""
    model, engine, kind, label = run
    if len(os.fsencode(folder)) > NAME_MAX:  # else [Errno 36] once the cell's turn comes
        raise SuiteError(path, f"cell {folder[:40]}…", f"the folder name is {len(os.fsencode(folder))} bytes, over "
                         f"the {NAME_MAX} a file name may have: give the [[benchmark]] or [[model]] a shorter label")
    request = RunRequest(bench, {}, model, engine, how.exclude_flagged)
    try:
        request.scorer_options.check_fits(bench, kind)
        runs = planned(request, how)
    except BiasAtlasError as exc:
        raise SuiteError(path, f"cell {folder}", str(exc)) from None
    return Cell(folder, request, kind, label, how, runs)


def _parse(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise MissingInput("no such suite file", path=path)
    try:
        return tomllib.loads(read_text(path))
    except tomllib.TOMLDecodeError as exc:
        raise SuiteError(path, "", f"not valid TOML: {exc}") from None


def _known_keys(path: Path, where: str, table: Mapping[str, Any], known: Sequence[str], kind: str) -> None:
    for key in table:
        if key not in known:
            raise SuiteError(path, where, str(did_you_mean(kind, key, known)))


def _table(path: Path, where: str, value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise SuiteError(path, where, f"expected a table, got {type(value).__name__}")
    return value


def _array(path: Path, key: str, data: Mapping[str, Any]) -> list[dict[str, Any]]:
    entries = data.get(key)
    if entries is None:
        raise SuiteError(path, "", f"no [[{key}]] table: a suite needs at least one")
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise SuiteError(path, key, f"write each {key} as a [[{key}]] table")
    return entries


def _out(path: Path, value: Any) -> Path | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise SuiteError(path, "key 'out'", "expected a folder name (a string)")
    return relative_to(path.parent, value)


def _benchmark(path: Path, index: int, entry: dict[str, Any], base: Path) -> tuple[str, Any, CellRun]:
    """The folder prefix, the built, loaded benchmark of ``[[benchmark]] index`` and how its cells
    run (:class:`~.cell.CellRun`)."""
    name = entry.get("name")
    where = f"[[benchmark]] {index}"
    if not isinstance(name, str):
        raise SuiteError(path, where, "needs name = \"<benchmark>\" (" + ", ".join(BENCHMARKS) + ")")
    if name not in BENCHMARKS:
        raise SuiteError(path, where, str(did_you_mean("benchmark", name, BENCHMARKS)))
    where = f"{where} ({name})"
    spec = benchmark_spec(name)
    known = benchmark_options(spec.factory)
    hints = typing.get_type_hints(spec.factory)
    options: dict[str, Any] = {}
    label = entry.get("label")
    for key, value in entry.items():
        if key in ("name", "label", *CELL_KEYS):
            continue
        if key not in known:
            raise SuiteError(path, where, str(did_you_mean(f"{name} option", key, [*known, "label", *CELL_KEYS])))
        try:
            options[key] = coerce(value, hints.get(key, Any), base)
        except Mismatch as exc:
            raise SuiteError(path, f"{where}, key {key!r}", str(exc)) from None
    try:
        bench = load_benchmark(name, **options)
        bench.load()  # a missing or malformed data file fails now, before any model loads
    except (BiasAtlasError, ValueError, TypeError) as exc:
        raise SuiteError(path, where, str(exc)) from None
    if label is not None and not isinstance(label, str):
        raise SuiteError(path, f"{where}, key 'label'", "expected a string")
    how, bad, wrong = cell_run(entry)
    if bad is not None:
        raise SuiteError(path, f"{where}, key {bad!r}", str(wrong))
    naming = next((str(entry[k]) for k in NAMING_OPTIONS if k in entry), None)
    return _slug(label or (f"{name}-{naming}" if naming else name) + how.suffix), bench, how


def _model(path: Path, index: int, entry: dict[str, Any], defaults: Mapping[str, Any],
           base: Path) -> tuple[str, tuple[ModelOptions, EngineOptions, str, str | None]]:
    """The folder slug, the model and engine options of ``[[model]] index`` (over
    ``[defaults]``), checked by the request's own checks, the scorer kind they resolve to, and
    its ``label`` (the runs' name in reports; None: the model's own)."""
    where = f"[[model]] {index}"
    model_id = entry.get("id")
    if not isinstance(model_id, str) or not model_id:
        raise SuiteError(path, where, "needs id = \"<hub id, folder, packaged name or fake>\"")
    where = f"{where} ({model_id})"
    _known_keys(path, where, entry, MODEL_KEYS, "model key")
    label = entry.get("label")
    if label is not None and not isinstance(label, str):
        raise SuiteError(path, f"{where}, key 'label'", "expected a string")
    if label is not None:
        try:
            label = check_label(label)
        except BiasAtlasError as exc:
            raise SuiteError(path, f"{where}, key 'label'", str(exc)) from None
    hints = {**typing.get_type_hints(ModelOptions), **typing.get_type_hints(EngineOptions)}
    settings: dict[str, Any] = {}
    for key, value in {**defaults, **{k: v for k, v in entry.items() if k in RUN_OPTIONS}}.items():
        try:  # batch size, dtype, device: the one check each (biasatlas.values), as the command line's
            settings[key] = CHECKS[key](value) if key in CHECKS else coerce(value, hints[key], base)
        except (Mismatch, UsageError) as exc:
            raise SuiteError(path, f"{where if key in entry else '[defaults]'}, key {key!r}", str(exc)) from None
    is_path = model_id.startswith(("./", "../", "~", "/"))
    model = str(relative_to(base, model_id)) if is_path else model_id
    engine_keys = {f.name for f in fields(EngineOptions)}
    try:
        model_options = ModelOptions(model=model, **{k: v for k, v in settings.items() if k not in engine_keys})
        engine = EngineOptions(**{k: v for k, v in settings.items() if k in engine_keys})
        kind = model_options.preflight()
        engine.build(model_options).preflight()  # Ray's address and resources, Ray not started
    except BiasAtlasError as exc:
        raise SuiteError(path, where, str(exc)) from None
    return _slug(label or (Path(model).name if is_path else model_id)), (model_options, engine, kind, label)


def _slug(text: str) -> str:
    """A folder-name-safe form: letters and digits of any script (NFC), ``.``, ``_``, ``+``, ``-``;
    the rest (separators, punctuation, controls) become ``-``. Non-ASCII letters are kept, so
    that ``日本語`` and ``中文`` are two folders, not both ``run``."""
    slug = re.sub(r"[^\w.+-]+", "-", unicodedata.normalize("NFC", text)).strip("-.")
    return slug or "run"


def _distinct(path: Path, cells: Sequence[Cell]) -> None:
    seen: set[str] = set()
    for cell in cells:
        if cell.folder in seen:
            raise SuiteError(path, "", f"two cells would share the folder {cell.folder!r}: give one of the "
                                       "[[benchmark]] or [[model]] tables a distinct label")
        seen.add(cell.folder)


# -- running ----------------------------------------------------------------------------------------------
def run_suite(suite: Suite, out: Path | str | None = None, *, force: bool = False, progress: bool = True,
              log: Callable[[str], None] | None = None) -> SuiteResult:
    """Run every cell into ``out`` (else the suite file's ``out``), then write the report.

    A cell whose folder already holds a finished run of the same request is skipped (and
    logged); any other cell's request runs through :func:`biasatlas.api.execute` with the score cache,
    so an interrupted cell resumes. ``force`` replaces cell folders holding other runs.
    """
    from ..api import execute

    folder = Path(out) if out is not None else suite.out
    if folder is None:
        raise SuiteError(suite.path, "", "no output folder: pass --out DIR or write out = \"DIR\" in the file")
    say = log or (lambda _: None)
    # Every check before the first write: the folder is this suite's, no cell's folder holds another run.
    claim_suite_folder(folder, suite.path, claims(suite.cells), force=force, text=suite.text)
    atomic_write(folder / SUITE_COPY, suite.text if suite.text is not None else suite.path.read_text(encoding="utf-8"))
    ran, skipped = [], []
    cache = ScoreCache(default_cache_path())
    scorers: dict[ModelOptions, Any] = {}  # a model's cells run one after another, on one load of it
    try:
        for number, cell in enumerate(_by_model(suite.cells), 1):
            where = f"[{number}/{len(suite.cells)}] {cell.folder}"
            if finished(folder, cell):
                say(f"{where}: finished earlier with the same settings, skipped")
                skipped.append(cell.folder)
                continue
            say(where)
            if cell.run.sensitivity is None:
                execute(cell.request, out=folder / cell.folder, force=force, cache=cache, progress=progress, log=say,
                        label=cell.label, scorers=scorers)
            else:  # what run --sensitivity writes, into the cell's folder
                sensitivity_run(cell.request, cell.run.sensitivity, out=folder / cell.folder, cache=cache, force=force,
                                progress=progress, log=say, label=cell.label)
            ran.append(cell.folder)
    finally:
        cache.close()
    report, board, tables = write_report(folder, [report_folder(c) for c in suite.cells],
                                         title=f"biasatlas suite · {suite.path.name}")
    return SuiteResult(folder, tuple(ran), tuple(skipped), report, board, tables + write_stability(folder, suite.cells))


def _by_model(cells: Sequence[Cell]) -> list[Cell]:
    """The cells in the order they run: each model's together (in the order the models first come),
    so that it loads once; within a model, the file's order. The report keeps the file's order."""
    first: dict[ModelOptions, int] = {}
    for i, cell in enumerate(cells):
        first.setdefault(cell.request.model, i)
    return sorted(cells, key=lambda c: first[c.request.model])


def write_report(folder: Path, cells: Sequence[str], *, title: str) -> tuple[Path, Path, tuple[Any, ...]]:
    """``report.html`` and ``leaderboard.md`` over the cells' run folders (:mod:`biasatlas.report`);
    returns their paths and the leaderboard tables."""
    views = load_runs([folder / c for c in cells])
    tables = tuple(leaderboard(views))
    report_path, board_path = folder / REPORT_FILE, folder / LEADERBOARD_FILE
    atomic_write(report_path, render_html(build_report(views), title))
    atomic_write(board_path, "\n".join(to_markdown(t) for t in tables))
    return report_path, board_path, tables
