"""File checksums: the sha256 recorded for data files, model files and corpora."""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path

#: The files of a model folder whose hashes say which weights it holds (weights, config, tokenizer).
MODEL_FILE_SUFFIXES = (".safetensors", ".bin", ".pt", ".gguf", ".model", ".json", ".txt")
#: The record biasatlas writes into a packaged model's converted folder (which package, which version).
PACKAGED_RECORD = "biasatlas-packaged.json"


def sha256_file(path: Path | str) -> str:
    """Hex sha256 of a file, read in 1 MiB blocks so large weights never sit in memory."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def file_hashes(location: str | Path) -> dict[str, str]:
    """sha256 of every weight, config and tokenizer file in a local model folder ({} for no folder):
    what an in-process run records of the weights it read, and a served run of the folder its
    server says it serves, where that folder is readable here."""
    folder = Path(location)
    if not folder.is_dir():
        return {}
    return {
        p.name: _sha256_unchanged(str(p), p.stat().st_size, p.stat().st_mtime_ns)
        for p in sorted(folder.iterdir())
        if p.is_file() and p.suffix in MODEL_FILE_SUFFIXES and p.name != PACKAGED_RECORD
    }


@functools.lru_cache(maxsize=256)
def _sha256_unchanged(path: str, size: int, mtime_ns: int) -> str:
    """A file's sha256, computed once per (path, size, mtime): ``describe()`` and the cache
    fingerprint both ask for the hashes, and a gigabyte of weights takes seconds to read."""
    return sha256_file(path)


def packaged_record(folder: str | Path) -> dict[str, object] | None:
    """The record of a packaged model's converted folder (its ``name``, package version …), or
    None where ``folder`` holds none (not a folder, not converted by biasatlas, unreadable)."""
    try:
        record = json.loads((Path(folder) / PACKAGED_RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None
