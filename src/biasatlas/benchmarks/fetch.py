"""Data files: canonical URL, sha256, a local cache, and local overrides.

Lookup order: an explicit path; ``$BIASATLAS_DATA_DIR`` (searched recursively by file
name, symlinked folders followed, so a copy of the shared data tree works as is); the user cache; finally a download
from the canonical URL, verified against the sha256 before it is kept. Nothing is
fetched at import time.

The pin is checked whenever the cached copy is read, not only when it is downloaded (issue 34
item 4: a dev copy edited in the cache, in the folder named after its pin, ran silently, SS
33.3 where the published file gives 66.7). Hashing a file at every run would cost seconds on
BBQ's 58 MB, so a verified copy gets a stamp beside it (``.NAME.verified``: size, mtime_ns,
inode and the sha256 they were checked against); while its ``stat`` matches the stamp the
bytes are the verified ones, and any write, copy or replacement changes one of the three and
makes the next read hash the file again. A copy whose bytes differ from the pin is refused,
naming the file and both digests. A ``$BIASATLAS_DATA_DIR`` or ``--data`` copy is the user's
own (the shared WinoBias copy has CRLF line ends, the pinned bytes LF) and is read as given:
the run records its sha256.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from ..atomic import atomic_write
from ..errors import DataError, MissingInput
from ..paths import cache_dir


K = TypeVar("K")


@dataclass(frozen=True)
class DataFile:
    name: str
    url: str
    sha256: str


def locate(spec: DataFile, *, gzip_ok: bool = False) -> Path:
    """A local path holding ``spec``'s bytes, downloading and verifying it if needed.

    ``gzip_ok``: the caller's reader also reads gzip, so a ``name.gz`` under
    ``$BIASATLAS_DATA_DIR`` serves when the plain name is not there (the shared copy of
    StereoSet's test split is ``test.json.gz``); the plain name is always looked for first.
    """
    data_dir = os.environ.get("BIASATLAS_DATA_DIR")
    if data_dir:
        for name in (spec.name, spec.name + ".gz") if gzip_ok else (spec.name,):
            found = _search(Path(data_dir), name, spec.sha256)
            if found is not None:
                return found
    cached = cache_dir() / "data" / spec.sha256[:12] / spec.name
    if cached.is_file():
        return verified(cached, spec.sha256)
    return _download(spec, cached)


def _search(root: Path, name: str, sha256: str) -> Path | None:
    """The file called ``name`` under ``root``, sub-folders searched and symlinked folders followed
    (a data tree of links to copies elsewhere), each real folder once, so a link back up the tree
    ends the walk instead of looping. Where several folders hold that name (two datasets naming
    their files alike, as EsBBQ and CaBBQ do), the one with the pinned bytes
    wins; else, as with one, the first in sorted path order (a user's own copy, changed or
    compressed, is still read, as ``$BIASATLAS_DATA_DIR`` promises)."""
    found, seen = [], set()
    for folder, subfolders, files in os.walk(root, followlinks=True):
        real = os.path.realpath(folder)
        if real in seen:
            subfolders[:] = []
            continue
        seen.add(real)
        if name in files:
            found.append(Path(folder) / name)
    if len(found) > 1:
        pinned = [path for path in sorted(found) if _sha256_of(path) == sha256]
        return pinned[0] if pinned else min(found)
    return found[0] if found else None


def verified(path: Path, sha256: str) -> Path:
    """``path``, once its bytes are known to have ``sha256``: from its stamp when the file's
    size, mtime_ns and inode are the ones stamped, else by hashing it (and stamping it)."""
    stamp = path.with_name(f".{path.name}.verified")
    if _stamp_of(path, sha256) == _read_stamp(stamp):
        return path
    got = _sha256_of(path)
    if got != sha256:
        raise DataError(f"the cached data file does not have the bytes its pin names (expected sha256 "
                        f"{sha256}, got {got}): it was changed after it was downloaded; delete it to "
                        "download it again, or set BIASATLAS_DATA_DIR to a folder holding your copy", path=path)
    with contextlib.suppress(OSError):  # a read-only cache still reads: it hashes again next time
        atomic_write(stamp, json.dumps(_stamp_of(path, sha256)).encode())
    return path


def _stamp_of(path: Path, sha256: str) -> dict[str, object]:
    info = path.stat()
    return {"size": info.st_size, "mtime_ns": info.st_mtime_ns, "inode": info.st_ino, "sha256": sha256}


def _read_stamp(stamp: Path) -> object:
    try:
        return json.loads(stamp.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # none yet, unreadable or damaged: hash the file
        return None


def _sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def locate_all(specs: Mapping[K, DataFile], folder: Path | str | None, holding: str) -> dict[K, Path]:
    """Each of ``specs`` by key: through :func:`locate`, or, when the user names a ``folder``
    (``--data``), the file of that name in it, which must exist (``holding`` says what the
    folder should hold, in the error)."""
    if folder is None:
        return {key: locate(spec) for key, spec in specs.items()}
    out = {key: Path(folder) / spec.name for key, spec in specs.items()}
    for path in out.values():
        if not path.is_file():
            raise MissingInput(f"no such file (--data names a folder holding {holding})", path=path)
    return out


def _download(spec: DataFile, target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        with urllib.request.urlopen(spec.url, timeout=60) as response:  # noqa: S310 (fixed URL)
            payload = response.read()
    except OSError as exc:
        raise DataError(f"cannot download {spec.url} ({exc}); set BIASATLAS_DATA_DIR to a folder "
                        f"holding {spec.name}, or pass the file path", path=spec.name) from exc
    got = hashlib.sha256(payload).hexdigest()
    if got != spec.sha256:
        raise DataError(f"checksum mismatch for {spec.url}: expected {spec.sha256}, got {got}",
                        path=spec.name)
    atomic_write(target, payload)  # a half-written file is never found, and others may read it
    return verified(target, spec.sha256)  # stamps it
