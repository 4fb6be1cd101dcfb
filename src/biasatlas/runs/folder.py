"""Run folders: write atomically, read back for reports.

``config.json``, ``items.jsonl`` (one record per item), ``skipped.jsonl`` and
``timing.json`` (seconds, cache hits: what differs between equivalent runs) are written
first, each to a temporary file renamed into place; ``summary.json`` is written last, so
a folder without it is an unfinished run and is never read as a finished one. Where
pyarrow is installed, ``items.parquet`` holds the same records as ``items.jsonl``
(:func:`items_parquet`: one type per column, the same bytes for the same records).

Run folders are *owned* (:func:`claim_run_folder`, before the model loads): a run writes
only into a folder that is missing, empty, or holds a run of the same request (same
benchmark configuration and model options: rerunning it resumes from the score cache and
rewrites the same files). A folder holding another run is refused unless ``force``; a
folder that is not a run folder (a model folder, a home directory) is always refused, so
``--out`` can never overwrite someone's ``config.json``. ``.biasatlas-run.json`` records
the request and its ``format_version`` (:mod:`biasatlas.runs.format`: a folder of an older
format is upgraded before the comparison, one of a newer format refused);
``.biasatlas.lock`` is held (``flock``, released by the kernel if the process dies) for
the whole run, so a second writer fails at once instead of interleaving files.
"""

from __future__ import annotations

import contextlib

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..atomic import atomic_write
from ..errors import DataError, OutputRefused
from ..outputs import check_output
from .format import FORMAT_VERSION, Renames, renamed_config
from ..textfiles import json_lines, json_lines_text

OWNER_FILE = ".biasatlas-run.json"
LOCK_FILE = ".biasatlas.lock"
PARQUET_FILE = "items.parquet"
RUN_FILES = frozenset({"config.json", "items.jsonl", PARQUET_FILE, "skipped.jsonl", "timing.json", "summary.json",
                       OWNER_FILE, LOCK_FILE})


@dataclass(frozen=True)
class Run:
    """Everything a run folder holds: config, summary (with provenance), per-item records."""

    config: dict[str, Any]
    summary: dict[str, Any]
    records: list[dict[str, Any]]
    skipped: list[dict[str, Any]] = field(default_factory=list)
    timing: dict[str, Any] = field(default_factory=dict)


#: ``--out`` names a place this run may not write: another run, a non-run folder, a file. The one
#: error of every output refusal (:mod:`biasatlas.outputs`), under the name run folders gave it first.
RunFolderError = OutputRefused


def _clean(value: Any) -> Any:
    """JSON has no NaN/inf: write null rather than an invalid file."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def _jsonl(records: list[dict[str, Any]]) -> str:
    return json_lines_text(_clean(r) for r in records)  # U+2028 escaped: see biasatlas.textfiles


def write_run(run: Run, out: Path) -> Path:
    out = Path(out)
    (out / "summary.json").unlink(missing_ok=True)  # the folder is unfinished until the end
    atomic_write(out / "config.json", json.dumps(_clean(run.config), indent=2, ensure_ascii=False))
    atomic_write(out / "items.jsonl", _jsonl(run.records))
    parquet = items_parquet(run.records)
    if parquet is None:
        (out / PARQUET_FILE).unlink(missing_ok=True)  # never a stale copy beside new items
    else:
        atomic_write(out / PARQUET_FILE, parquet)
    atomic_write(out / "skipped.jsonl", _jsonl(run.skipped))
    atomic_write(out / "timing.json", json.dumps(_clean(run.timing), indent=2))
    atomic_write(out / "summary.json", json.dumps(_clean(run.summary), indent=2, ensure_ascii=False))
    return out


def items_parquet(records: list[dict[str, Any]]) -> bytes | None:
    """The records as a Parquet file, or ``None`` when pyarrow is not installed.

    Columns in order of first appearance, a missing field null. Each column gets one type
    from its values: booleans, integers, numbers (integers and floats mixed become
    floats), strings; any other mix (objects, lists, strings beside numbers) is written as
    the JSON text of each value, so no record is refused and none changes type silently.
    NaN is null, as in ``items.jsonl``. Deterministic: the same records give the same
    bytes (a resumed run's folder equals an uninterrupted one's).
    """
    import importlib
    import importlib.util
    import io

    if importlib.util.find_spec("pyarrow") is None:
        return None
    pa: Any = importlib.import_module("pyarrow")
    pq: Any = importlib.import_module("pyarrow.parquet")
    rows = [_clean(r) for r in records]
    names = list(dict.fromkeys(name for row in rows for name in row))
    columns = {name: _parquet_column(pa, [row.get(name) for row in rows]) for name in names}
    buffer = io.BytesIO()
    pq.write_table(pa.table(columns) if columns else pa.table({}), buffer)
    return buffer.getvalue()


def _parquet_column(pa: Any, values: list[Any]) -> Any:
    """One column as a pyarrow array of a single type (see :func:`items_parquet`)."""
    present = [v for v in values if v is not None]
    kinds = {bool if isinstance(v, bool) else int if isinstance(v, int) else type(v) for v in present}
    try:
        if kinds <= {bool} and present:
            return pa.array(values, type=pa.bool_())
        if kinds <= {int} and present:
            return pa.array(values, type=pa.int64())
        if kinds <= {int, float}:
            return pa.array([None if v is None else float(v) for v in values], type=pa.float64())
        if kinds <= {str}:
            return pa.array(values, type=pa.string())
    except (OverflowError, pa.lib.ArrowException):  # an integer beyond 64 bits: kept exact, as text
        pass
    return pa.array([None if v is None else json.dumps(v, ensure_ascii=False, sort_keys=True) for v in values],
                    type=pa.string())


def claim_run_folder(out: Path, request: dict[str, Any], *, force: bool = False, renamed: Renames = ()) -> Any:
    """Lock ``out`` for this run and record its request; refuse what is not ours to write.

    Returns the held lock (release it when the run folder is written). Raises
    :class:`RunFolderError` before anything is written when ``out`` is a file, a folder
    with files no run writes, a run folder of a different request (unless ``force``), or
    a run folder another process is writing now. ``renamed`` are the benchmark's config
    keys renamed since format 1 (:func:`same_request`).
    """
    from filelock import FileLock, Timeout

    out = Path(out)
    check_run_folder(out, request, force=force, renamed=renamed)
    lock = FileLock(str(out / LOCK_FILE), timeout=0)
    try:
        out.mkdir(parents=True, exist_ok=True)
        lock.acquire()
    except Timeout as exc:
        raise RunFolderError(f"run folder {out} is being written by another biasatlas run "
                             f"(lock {out / LOCK_FILE}); wait for it or choose another --out") from exc
    except OSError as exc:
        raise RunFolderError(f"cannot write run folder {out}: {exc.strerror or exc}") from exc
    try:
        record = {**request, "format_version": FORMAT_VERSION}
        atomic_write(out / OWNER_FILE, json.dumps(_clean(record), indent=2, sort_keys=True))
    except OSError as exc:
        lock.release()
        raise RunFolderError(f"cannot write run folder {out}: {exc.strerror or exc}") from exc
    return lock


def unclaim_run_folder(out: Path, *, created: bool) -> None:
    """Undo :func:`claim_run_folder` for a run refused before it wrote anything (a predictions file
    that does not answer the run's items, a model that does not load): the owner record and the lock
    go, and the folder too where the claim ``created`` it, so the corrected command runs without
    ``--force``. A folder holding anything else is left as it is. Call after releasing the lock."""
    out = Path(out)
    try:
        entries = {p.name for p in out.iterdir()}
    except OSError:
        return
    if not entries <= {OWNER_FILE, LOCK_FILE}:
        return
    for name in entries:
        (out / name).unlink(missing_ok=True)
    if created:
        with contextlib.suppress(OSError):
            out.rmdir()


def check_run_folder(out: Path, request: dict[str, Any], *, force: bool = False, renamed: Renames = ()) -> None:
    """What :func:`claim_run_folder` refuses, checked without writing anything (a suite checks
    every cell's folder before it writes a file). Dot-files are tolerated only in a folder
    that is already a run's (it holds :data:`OWNER_FILE`: a viewer's ``.DS_Store``): a folder
    of nothing but dot-files (``.git``, ``.env``) is someone's, not empty. First the rule every
    writing command follows (:func:`biasatlas.outputs.check_output`): never an input's path (the
    request's data files), never inside or over another kind of output."""
    inputs = [*recorded_inputs(request.get("benchmark")), *recorded_inputs(request.get("model"))]  # --predictions too
    check_output(out, "run", inputs=inputs, writes=RUN_FILES)
    if not out.is_dir():
        return
    names = {p.name for p in out.iterdir()}
    owned = OWNER_FILE in names
    foreign = {n for n in names - RUN_FILES if not (n.startswith(".") and (owned or _temporary(n)))}
    if "config.json" in names and not _is_run_config(out / "config.json"):
        foreign.add("config.json")  # a model's config, not a run's
    if foreign:
        shown = ", ".join(sorted(foreign)[:3]) + (" …" if len(foreign) > 3 else "")
        raise RunFolderError(f"--out {out} holds files that are not a biasatlas run ({shown}): "
                             "choose an empty or new folder (this is never overwritten)")
    if not names & (RUN_FILES - {LOCK_FILE}):
        return  # empty, or only a stale lock
    if force:
        return
    recorded = _recorded_request(out)
    if same_request(recorded, request, renamed, where=out / OWNER_FILE):
        return
    what = "another run" if recorded is not None else "a run of unknown settings"
    raise RunFolderError(f"--out {out} holds {what} ({_difference(upgraded(recorded, renamed), request)}): "
                         "choose another folder, or pass --force to replace it")


def _temporary(name: str) -> bool:
    """An :func:`~biasatlas.atomic.atomic_write` temporary of a run file (``.items.jsonl.<random>.tmp``),
    left by a killed write: the run's own, so a rerun is not refused over it."""
    return name.endswith(".tmp") and any(name.startswith(f".{run_file}.") for run_file in RUN_FILES)


#: Benchmark settings that say where a data file is, not what it holds: its ``data_sha256`` says that.
LOCATION_KEYS: tuple[str, ...] = ("data", "census")


def same_request(recorded: Any, request: dict[str, Any], renamed: Renames = (), *,
                 where: Path = Path(OWNER_FILE)) -> bool:
    """Whether a folder's recorded request is ``request``: the same settings, where a data file
    that hashes the same (``data_sha256``) is the same data wherever it lies. Its path is
    recorded as typed (``--data pairs.csv``), so the same run resumed from another working
    folder, or with the data folder moved, names it otherwise; the scores depend on its bytes
    only. Comparing the hash rather than recording a resolved path keeps every folder already
    written comparable, byte for byte. A record of format 1 is read as today's first
    (:func:`upgraded`, with the benchmark's ``renamed`` config keys); one of a newer format
    raises :class:`RunFolderError` naming ``where``."""
    new = _clean(json.loads(json.dumps(request, default=str)))
    return bool(_located_by_content(upgraded(recorded, renamed, where=where)) == _located_by_content(new))


def upgraded(recorded: Any, renamed: Renames = (), *, where: Path = Path(OWNER_FILE)) -> Any:
    """An owner file's record as the request it holds, in today's format (:mod:`~biasatlas.runs.format`):
    without its ``format_version``, and a format-1 record's benchmark config with the keys
    ``renamed`` since under their new names. A record this version cannot read (a newer
    format) is refused, naming ``where``: comparing it would call a rerun another run."""
    if not isinstance(recorded, dict):
        return recorded
    version = recorded.get("format_version", 1)
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise RunFolderError(f"{where} records an unknown format_version {version!r}: choose another --out, "
                             "or pass --force to replace the run")
    if version > FORMAT_VERSION:
        raise RunFolderError(f"{where} was written by a newer biasatlas (format_version {version}; this one "
                             f"reads 1 to {FORMAT_VERSION}): upgrade biasatlas, or choose another --out")
    request = {k: v for k, v in recorded.items() if k != "format_version"}
    bench = request.get("benchmark")
    if version == 1 and isinstance(bench, dict):
        request["benchmark"] = renamed_config(bench, renamed)
    return request


def recorded_inputs(bench: Any) -> list[Path]:
    """The input files a benchmark config records (``--data``, ``--census``, ``--predicates``: each
    setting hashed beside it, :func:`_located_by_content`), as paths; a run never writes over them."""
    if not isinstance(bench, dict):
        return []
    keys = _located_keys(bench)
    return [Path(bench[k]) for k in sorted(keys) if isinstance(bench.get(k), str) and bench[k]]


def _located_keys(bench: dict[str, Any]) -> set[str]:
    located = {k for k in bench if bench.get(f"{k}_sha256")}
    if bench.get("data_sha256"):
        located |= set(LOCATION_KEYS)
    return located


def _located_by_content(request: Any) -> Any:
    """The request without the settings that only say where a hashed file lies: the data's
    (:data:`LOCATION_KEYS`, hashed by ``data_sha256``) and any other file setting ``KEY``
    recorded beside its ``KEY_sha256``, in the benchmark's settings (census's ``--predicates``)
    or the model's (``--predictions``)."""
    if not isinstance(request, dict):
        return request
    out = dict(request)
    for part in ("benchmark", "model"):
        settings = request.get(part)
        if not isinstance(settings, dict):
            continue
        located = _located_keys(settings)
        if located:
            out[part] = {k: v for k, v in settings.items() if k not in located}
    return out


def _is_run_config(path: Path) -> bool:
    """A run's config.json is ``{"benchmark": {...}, "scorer": {...}}`` (see :func:`write_run`)."""
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(config, dict) and isinstance(config.get("benchmark"), dict) \
        and isinstance(config.get("scorer"), dict)


def _recorded_request(out: Path) -> Any:
    try:
        return json.loads((out / OWNER_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _difference(recorded: Any, request: dict[str, Any]) -> str:
    """The first few settings that differ, for the refusal message."""
    if not isinstance(recorded, dict):
        return "no record of its settings"
    new = json.loads(json.dumps(request, default=str))
    diffs = [f"{section}.{key}: {old.get(key)!r} → {fresh.get(key)!r}"
             for section in sorted(set(recorded) | set(new))
             for old, fresh in [(recorded.get(section) or {}, new.get(section) or {})]
             if isinstance(old, dict) and isinstance(fresh, dict)
             for key in sorted(set(old) | set(fresh)) if old.get(key) != fresh.get(key)]
    return "; ".join(diffs[:3]) + (" …" if len(diffs) > 3 else "") if diffs else "other settings"


def _read_jsonl(path: Path) -> list[Any]:
    """A JSON Lines file's records, split as they are written (:func:`~biasatlas.textfiles.json_lines`:
    on ``\\n`` only): a sentence holding U+2028 in an older run folder stays one record."""
    return [json.loads(line) for _, line in json_lines(path.read_text(encoding="utf-8"))]


def read_run(folder: Path) -> Run:
    folder = Path(folder)
    summary_path = folder / "summary.json"
    if not summary_path.is_file():
        raise DataError("not a finished run folder (no summary.json)", path=folder)
    records = _read_jsonl(folder / "items.jsonl")
    skipped_path = folder / "skipped.jsonl"
    skipped = _read_jsonl(skipped_path) if skipped_path.is_file() else []
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    return Run(config, json.loads(summary_path.read_text(encoding="utf-8")), records, skipped)
