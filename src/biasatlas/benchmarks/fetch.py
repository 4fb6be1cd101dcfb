"""Data files: canonical URL, sha256, a local cache, and local overrides.

Lookup order: an explicit path; ``$BIASATLAS_DATA_DIR`` (searched recursively by file
name, symlinked folders followed, so a copy of the shared data tree works as is); the user cache; finally a download
from the canonical URL, verified against the sha256 before it is kept. Nothing is
fetched at import time.
"""

from __future__ import annotations

import hashlib
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
            found = _search(Path(data_dir), name)
            if found is not None:
                return found
    cached = cache_dir() / "data" / spec.sha256[:12] / spec.name
    if cached.is_file():
        return cached
    return _download(spec, cached)


def _search(root: Path, name: str) -> Path | None:
    """The first file called ``name`` under ``root``, in sorted path order, sub-folders searched
    and symlinked folders followed (a data tree of links to copies elsewhere), each real folder
    once, so a link back up the tree ends the walk instead of looping."""
    found, seen = [], set()
    for folder, subfolders, files in os.walk(root, followlinks=True):
        real = os.path.realpath(folder)
        if real in seen:
            subfolders[:] = []
            continue
        seen.add(real)
        if name in files:
            found.append(Path(folder) / name)
    return min(found) if found else None


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
    return target
