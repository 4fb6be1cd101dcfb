"""A suite's output folder, claimed as a run folder is (:func:`biasatlas.runs.folder.claim_run_folder`).

A suite writes ``suite.toml``, ``report.html`` and ``leaderboard.md`` into its folder and
one run folder per cell below it. Before any of that, :func:`claim_suite_folder` checks the
folder and every cell's folder, and writes nothing if one is refused:

- a missing or empty folder is claimed (``.biasatlas-suite.json`` records the suite file);
- a folder claimed by this suite file is this suite's (a rerun, or the file edited);
- a folder claimed by another suite file is refused unless ``force``: its report,
  leaderboard and copy would be replaced;
- a folder without the record (written before suites claimed folders) is this suite's when
  it holds nothing but what a suite writes and its ``suite.toml`` is this file's text; the
  same files of another text are refused unless ``force``; and anything a suite never
  writes (a model folder, a paper draft, a dot-file) makes it someone else's folder,
  refused even with ``force``, as ``run --out`` refuses a folder that is not a run's.

So another suite's report, a model folder or a draft is never replaced silently, and a
suite refused at any cell (a cell folder holding another run) has not replaced the
folder's ``suite.toml``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..atomic import TEMP_SUFFIX, atomic_write
from ..outputs import check_output
from ..registry import renamed_config
from ..runs.folder import OWNER_FILE, RunFolderError, check_run_folder, same_request

__all__ = ["LEADERBOARD_FILE", "REPORT_FILE", "SUITE_COPY", "SUITE_OWNER", "claim_suite_folder", "finished_cell"]

REPORT_FILE = "report.html"
LEADERBOARD_FILE = "leaderboard.md"
SUITE_COPY = "suite.toml"
SUITE_OWNER = ".biasatlas-suite.json"
SUITE_FILES = (SUITE_COPY, REPORT_FILE, LEADERBOARD_FILE, SUITE_OWNER, "sensitivity.md", "sensitivity.html")


def claim_suite_folder(folder: Path, suite_file: Path, cells: Sequence[tuple[str, Mapping[str, Any]]], *,
                       force: bool = False, text: str | None = None) -> None:
    """Claim ``folder`` for the suite read from ``suite_file``, whose cells are (folder name,
    recorded request) pairs; raises :class:`~biasatlas.runs.folder.RunFolderError` before
    anything is written when the folder or a cell's folder is not this suite's to write.
    ``text``: a grid's suite (``run A,B``), which has no file of its own but the copy it writes
    into ``folder``: that path names every grid into ``folder``, so a grid's folder is known by
    its copy's text instead, and a suite.toml of other text there is refused unless ``force``."""
    owner = str(suite_file.resolve())
    check_output(folder, "suite", inputs=(suite_file,), writes=(REPORT_FILE, LEADERBOARD_FILE))
    if text is not None:
        _check_grid_copy(folder, text, force)
    _check_suite_target(folder, owner, force)
    for name, request in cells:
        check_run_folder(folder / name, dict(request), force=force, renamed=_renamed(request))
    try:
        folder.mkdir(parents=True, exist_ok=True)
        atomic_write(folder / SUITE_OWNER, json.dumps({"suite": owner}, indent=2, ensure_ascii=False))
    except OSError as exc:
        raise RunFolderError(f"cannot write the suite folder {folder}: {exc.strerror or exc}") from None


def _check_suite_target(folder: Path, owner: str, force: bool) -> None:
    if folder.exists() and not folder.is_dir():
        raise RunFolderError(f"--out {folder} is a file: the suite's output must be a folder")
    if not folder.is_dir():
        return
    names = sorted(p.name for p in folder.iterdir())
    if not names:
        return
    recorded = _recorded_owner(folder)
    if recorded is not None:
        if recorded == owner or force:
            return
        raise RunFolderError(f"--out {folder} holds the suite of {recorded}: choose another folder, or pass "
                             "--force to replace its suite.toml, report.html and leaderboard.md")
    foreign = [n for n in names if not _a_suites(folder, n)]
    if foreign:
        shown = ", ".join(foreign[:3]) + (" …" if len(foreign) > 3 else "")
        raise RunFolderError(f"--out {folder} holds files that are not a biasatlas suite's ({shown}): choose an "
                             "empty or new folder (this is never overwritten)")
    if _copy_is(folder / SUITE_COPY, Path(owner)) or force:
        return
    raise RunFolderError(f"--out {folder} holds another suite ({', '.join(names[:3])}; its suite.toml is not "
                         "this file): choose another folder, or pass --force to replace it")


def _check_grid_copy(folder: Path, text: str, force: bool) -> None:
    copy = folder / SUITE_COPY
    if force or not copy.is_file():
        return
    try:
        same = copy.read_text(encoding="utf-8") == text
    except (OSError, ValueError):
        same = False
    if not same:
        raise RunFolderError(f"--out {folder} holds a suite.toml that is not this grid's (another grid, or a suite "
                             "file written or edited by hand): choose another folder, run it with biasatlas suite, "
                             "or pass --force to replace it")


def _recorded_owner(folder: Path) -> str | None:
    try:
        record = json.loads((folder / SUITE_OWNER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    owner = record.get("suite") if isinstance(record, dict) else None
    return owner if isinstance(owner, str) else None


def _a_suites(folder: Path, name: str) -> bool:
    """Whether ``name`` in ``folder`` is something a suite writes: its files, their
    temporaries (a killed write), or a run folder (a cell; a sensitivity cell holds sensitivity.json)."""
    if name in SUITE_FILES:
        return True
    if name.endswith(TEMP_SUFFIX) and any(name.startswith(f".{own}.") for own in SUITE_FILES):
        return True
    cell = folder / name
    return cell.is_dir() and ((cell / OWNER_FILE).is_file() or (cell / "sensitivity.json").is_file())


def _copy_is(copy: Path, suite_file: Path) -> bool:
    try:
        return copy.read_text(encoding="utf-8") == suite_file.read_text(encoding="utf-8")
    except (OSError, ValueError):
        return False


def finished_cell(folder: Path, request: Mapping[str, Any]) -> bool:
    """Whether ``folder`` holds a finished run (summary.json) of exactly ``request``."""
    if not (folder / "summary.json").is_file():
        return False
    try:
        recorded = json.loads((folder / OWNER_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return same_request(recorded, dict(request), _renamed(request), where=folder / OWNER_FILE)


def _renamed(request: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """The config keys the cell's benchmark renamed since format 1, found by the benchmark
    name its recorded config holds."""
    bench = request.get("benchmark")
    return renamed_config(str(bench.get("benchmark"))) if isinstance(bench, Mapping) else ()
