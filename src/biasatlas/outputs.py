"""The one rule every command that writes follows before it writes (issue 34): nothing is overwritten
that is not this command's own output of the same kind.

biasatlas writes seven kinds of thing (:data:`KINDS`): four folders, each known by a marker
file, and three plain files, known by the folder's ledger:

============  ======================================  ========================================
kind          written by                              recognised by
============  ======================================  ========================================
run           ``run NAME --out DIR``                  ``DIR/.biasatlas-run.json`` (or summary + items)
suite         ``suite FILE --out DIR``                ``DIR/.biasatlas-suite.json``
sensitivity   ``run NAME --sensitivity KIND --out``   ``DIR/sensitivity.json``
mining        ``mine --out DIR``                      ``DIR/dataset_card.json`` or ``DIR/stages/match``
report        ``report --out FILE``                   the ledger of FILE's folder
lint          ``lint NAME --out FILE``                the ledger of FILE's folder
comparison    ``compare --out FILE``                  the ledger of FILE's folder
============  ======================================  ========================================

:func:`check_output` refuses, before anything is computed or written:

1. an input of the same command: ``--out`` *is* an input (compared by resolved path, so also
   through symbolic links), lies inside an input folder, or an input lies at a path the
   command writes (``mine --corpus mined/candidates.jsonl --out mined``);
2. a place inside a folder of another kind (a report inside a run folder would make the run's
   own rerun refuse its folder); a run folder may lie inside a sensitivity set or a suite
   folder, a sensitivity set inside a suite folder (:attr:`OutputKind.inside`);
3. a folder of another kind (a run folder is no sensitivity set), and a folder holding files
   a folder of this kind never holds (:attr:`OutputKind.files`; run and suite folders check
   their own contents further, :mod:`biasatlas.runs.folder`, :mod:`biasatlas.suite.folder`);
4. a file biasatlas did not write as this kind, or changed since: each folder a report, lint
   or comparison file is written to keeps a ledger, ``.biasatlas-outputs.json``, of the
   files written there (name → kind and sha256, :func:`record_output`). Rewriting the same
   kind over its own unchanged earlier output (a report rerun) is allowed; anything else
   (a user's CSV, a run's summary.json, a report edited by hand since) is refused.

Every refusal is one :class:`~biasatlas.errors.OutputRefused` line: what is there, and how
to choose another path. No ``--force`` overrides it: ``run --force`` replaces only another
*run*.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from .atomic import TEMP_SUFFIX, atomic_write
from .errors import OutputRefused
from .hashing import sha256_file

__all__ = ["KINDS", "LEDGER", "Kind", "OutputKind", "check_output", "folder_kind", "record_output"]

Kind = Literal["run", "suite", "sensitivity", "mining", "report", "lint", "comparison"]
#: The ledger of the plain files biasatlas wrote into a folder (module docstring, rule 4).
LEDGER = ".biasatlas-outputs.json"


@dataclass(frozen=True)
class OutputKind:
    """One kind of output: how it is named in messages, whether it is a folder, the marker files
    that make a folder this kind, the folder kinds it may lie inside, and (for folders whose
    contents are checked here) every name such a folder holds, folders of ``inner`` kinds aside."""

    name: Kind
    what: str
    folder: bool
    markers: tuple[str, ...] = ()
    inside: tuple[Kind, ...] = ()
    files: frozenset[str] | None = None
    inner: tuple[Kind, ...] = ()


KINDS: dict[Kind, OutputKind] = {k.name: k for k in (
    OutputKind("suite", "a biasatlas suite folder", True, (".biasatlas-suite.json",)),
    OutputKind("sensitivity", "a biasatlas sensitivity set", True, ("sensitivity.json",), inside=("suite",),
               files=frozenset({"sensitivity.json", "sensitivity.md"}), inner=("run",)),
    OutputKind("run", "a biasatlas run folder", True, (".biasatlas-run.json",), inside=("suite", "sensitivity")),
    OutputKind("mining", "a biasatlas mining folder", True, ("dataset_card.json", "stages/match"),
               files=frozenset({"stages", "annotation", "candidates.jsonl", "dataset_card.json", "dataset_card.md"})),
    OutputKind("report", "a biasatlas report", False),
    OutputKind("lint", "biasatlas lint findings", False),
    OutputKind("comparison", "a biasatlas comparison", False),
)}


def folder_kind(folder: Path) -> Kind | None:
    """The kind of output ``folder`` is, by its marker files; ``None`` for any other folder. A run
    folder written before run folders had an owner file is known by summary.json beside items.jsonl."""
    if not folder.is_dir():
        return None
    for kind in KINDS.values():
        if any((folder / marker).exists() for marker in kind.markers):
            return kind.name
    if (folder / "summary.json").is_file() and (folder / "items.jsonl").is_file():
        return "run"
    return None


def check_output(out: Path, kind: Kind, *, inputs: Iterable[Path] = (), writes: Iterable[str] = (),
                 flag: str = "--out") -> None:
    """Refuse ``out`` as a place to write ``kind`` (module docstring: rules 1 to 4), before anything
    is written. ``inputs`` are the command's input files and folders; ``writes`` the names a folder
    output writes into ``out`` (rule 1); ``flag`` names the option in the message."""
    out = Path(out)
    spec = KINDS[kind]
    _not_an_input(out, spec, [Path(p) for p in inputs], tuple(writes), flag)
    _not_inside_another(out, spec, flag)
    if spec.folder:
        _folder_of_this_kind(out, spec, flag)
    else:
        _file_of_this_kind(out, spec, flag)


def record_output(out: Path, kind: Kind) -> bool:
    """Record the file just written at ``out`` as biasatlas's ``kind`` in its folder's ledger, so
    the same command may replace it next time (:func:`check_output`, rule 4). False when the
    ledger cannot be written (the file stands; a rerun will refuse to replace it): the caller says so."""
    out = Path(out)
    ledger = _read_ledger(out.parent)
    ledger[out.name] = {"kind": kind, "sha256": sha256_file(out)}
    try:
        atomic_write(out.parent / LEDGER, json.dumps({"format": 1, "files": ledger}, indent=1, sort_keys=True) + "\n")
    except OSError:
        return False
    return True


# -- the rules -------------------------------------------------------------------------------------
def _not_an_input(out: Path, spec: OutputKind, inputs: list[Path], writes: tuple[str, ...], flag: str) -> None:
    where = out.resolve()
    written = [(where / name).resolve() for name in writes]
    for given in inputs:
        source = given.resolve()
        if where == source:
            same = "" if out == given else "the same file as "
            raise OutputRefused(f"{flag} {out} is {same}{given}, an input of this command: name another "
                                f"{'folder' if spec.folder else 'file'} for {spec.what}")
        if source.is_dir() and where.is_relative_to(source):
            raise OutputRefused(f"{flag} {out} lies inside {given}, an input of this command: name a place "
                                "outside it")
        if source in written:
            raise OutputRefused(f"{flag} {out} would replace {given}, an input of this command "
                                f"({source.name}): choose another folder")


def _not_inside_another(out: Path, spec: OutputKind, flag: str) -> None:
    for folder in out.resolve().parents:
        found = folder_kind(folder)
        if found is not None and found not in spec.inside:
            raise OutputRefused(f"{flag} {out} lies inside {folder}, {KINDS[found].what}, which holds only what "
                                f"biasatlas {found} writes there: choose a place outside it")


def _folder_of_this_kind(out: Path, spec: OutputKind, flag: str) -> None:
    if out.exists() and not out.is_dir():
        raise OutputRefused(f"{flag} {out} is a file, not a folder: choose a new or empty folder for {spec.what}")
    found = folder_kind(out)
    if found is not None and found != spec.name:
        raise OutputRefused(f"{flag} {out} holds {KINDS[found].what}, not {spec.what}: choose a new or empty "
                            "folder (this is never overwritten)")
    if spec.files is None or not out.is_dir():
        return
    foreign = sorted(p.name for p in out.iterdir() if not _belongs(p, spec))
    if foreign:
        shown = ", ".join(foreign[:3]) + (" …" if len(foreign) > 3 else "")
        raise OutputRefused(f"{flag} {out} holds files that are not {spec.what}'s ({shown}): choose a new or "
                            "empty folder (this is never overwritten)")
    if spec.name == "sensitivity":
        _sensitivity_files(out, flag)


def _sensitivity_files(out: Path, flag: str) -> None:
    """A sensitivity set's two files are biasatlas's: sensitivity.json reads as its record, and
    sensitivity.md (written after it) never stands without it."""
    record, table = out / "sensitivity.json", out / "sensitivity.md"
    if record.exists() and not _sensitivity_record(record):
        raise OutputRefused(f"{flag} {out} holds a sensitivity.json that biasatlas did not write (not a sensitivity "
                            "record): choose a new or empty folder (this is never overwritten)")
    if table.exists() and not record.exists():
        raise OutputRefused(f"{flag} {out} holds a sensitivity.md that biasatlas did not write (no sensitivity.json "
                            "beside it): choose a new or empty folder (this is never overwritten)")


def _belongs(path: Path, spec: OutputKind) -> bool:
    """Whether ``path`` in a folder of ``spec`` is one of its own: its files, their temporaries
    (a killed write), or a folder of an ``inner`` kind (or an empty one)."""
    name, own = path.name, spec.files or frozenset()
    if name in own:
        return True
    if name.endswith(TEMP_SUFFIX) and (name[:-len(TEMP_SUFFIX)] in own  # an older version's fixed name
                                       or any(name.startswith(f".{mine}.") for mine in own)):
        return True
    if not path.is_dir() or path.is_symlink():
        return False
    return folder_kind(path) in spec.inner or not any(path.iterdir())  # an empty one: a run claiming it was cut


def _sensitivity_record(path: Path) -> bool:
    """Whether ``path`` reads as a sensitivity.json biasatlas wrote: an object with its ``format``
    and its ``runs`` (:func:`biasatlas.sensitivity.read` checks it fully when it is reported)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and isinstance(data.get("format"), int) and isinstance(data.get("runs"), list)


def _file_of_this_kind(out: Path, spec: OutputKind, flag: str) -> None:
    if out.is_dir():
        example = {"report": "report.html", "lint": "findings.jsonl", "comparison": "report.html"}[spec.name]
        raise OutputRefused(f"{flag} {out} is a folder; name a file, e.g. {flag} {out / example}")
    if not out.exists():
        return
    entry = _read_ledger(out.parent).get(out.name)
    if not isinstance(entry, dict) or out.is_symlink():
        raise OutputRefused(f"{flag} {out} is a file biasatlas did not write: name a new file (or remove this one "
                            f"first) for {spec.what}")
    if entry.get("kind") != spec.name:
        what = next((k.what for k in KINDS.values() if k.name == entry.get("kind")), "another kind of file")
        raise OutputRefused(f"{flag} {out} holds {what}, not {spec.what}: name another file")
    if entry.get("sha256") != sha256_file(out):
        raise OutputRefused(f"{flag} {out} was changed since biasatlas wrote it: name a new file (or remove this "
                            f"one first) for {spec.what}")


def _read_ledger(folder: Path) -> dict[str, object]:
    try:
        data = json.loads((folder / LEDGER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    files = data.get("files") if isinstance(data, dict) else None
    return dict(files) if isinstance(files, dict) else {}
