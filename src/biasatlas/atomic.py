"""The one way biasatlas writes a file: whole or not at all, with the permissions ``open`` gives.

Every file is written to a temporary beside its destination, named ``.NAME.<random>.tmp``
(``tempfile.mkstemp``: created exclusively, unpredictable), then renamed over it, so a
reader (or a killed run resumed) finds the old file or the new one, never half of one. The
temporary file module creates 0600 files; a run folder, a report or a downloaded data file
that only its writer can read is useless to colleagues, so the file is given what a plain
``open`` would give: 0666 less the process umask, read at each write (a caller may set it
after import). The file's data is fsynced before the rename and the folder after it, so a
crash (not only a kill) leaves the old file or the new one. Run folders, reports, suites,
mined corpora and downloads all go through :func:`atomic_open` (or :func:`atomic_write`).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

__all__ = ["TEMP_SUFFIX", "atomic_open", "atomic_write", "file_mode", "stale_temporaries"]

TEMP_SUFFIX = ".tmp"


def file_mode() -> int:
    """The permissions a new file gets from ``open``: 0666 less the umask (which can only be
    read by setting it, so it is set back at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def _temp_prefix(path: Path) -> str:
    return f".{path.name}."


def stale_temporaries(path: Path) -> list[Path]:
    """Temporaries of ``path`` that an interrupted write left in its folder.

    Only names :func:`atomic_open` makes for this very path match: ``.NAME.<random>.tmp``,
    where the random part holds no dot (so ``.x.jsonl.manifest.json.<random>.tmp``, a
    temporary of the manifest, is not taken for one of ``x.jsonl``).
    """
    prefix = _temp_prefix(path)
    try:
        names = os.listdir(path.parent)
    except FileNotFoundError:
        return []
    return [path.parent / name for name in names
            if name.startswith(prefix) and name.endswith(TEMP_SUFFIX)
            and "." not in name[len(prefix):-len(TEMP_SUFFIX)]]


@contextlib.contextmanager
def atomic_open(path: Path, *, binary: bool = False, encoding: str = "utf-8",
                newline: str | None = "\n") -> Iterator[IO[Any]]:
    """A handle on a new temporary file beside ``path``, renamed over ``path`` on success.

    Temporaries an earlier, interrupted write of ``path`` left are removed first (a symlink
    itself, never its target). On an exception the temporary is removed and ``path`` keeps
    its old content. ``binary`` gives a bytes handle (``encoding`` and ``newline`` unused).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    for stale in stale_temporaries(path):
        if stale.is_symlink() or not stale.is_dir():
            stale.unlink(missing_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=_temp_prefix(path), suffix=TEMP_SUFFIX, dir=path.parent)
    try:
        os.chmod(fd if os.chmod in os.supports_fd else tmp, file_mode())
        handle = open(fd, "wb") if binary else open(fd, "w", encoding=encoding, newline=newline)  # noqa: SIM115
        with handle:
            yield handle
            # On disk before the rename makes it the file: a power cut after the rename must
            # not leave an empty file under the final name (the rename is metadata, which
            # journalling filesystems may commit before the data).
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
        _sync_folder(path.parent)  # ... and the rename itself is on disk when we return
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _sync_folder(folder: Path) -> None:
    """fsync a folder, so that a rename into it survives a crash; a no-op where the system
    cannot open folders (Windows)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):  # some filesystems refuse it: the data is synced already
            os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(path: Path, data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8, or bytes) to ``path`` through :func:`atomic_open`."""
    if isinstance(data, bytes):
        with atomic_open(path, binary=True) as handle:
            handle.write(data)
    else:
        with atomic_open(path) as handle:
            handle.write(data)
