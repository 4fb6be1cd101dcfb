"""Stage checkpoints: an output file plus a JSON manifest, both written atomically.

A step is *done* when its manifest says so and names the same stage, version, input
identity and parameters as the step about to run, and the output still has the recorded
size. Anything else (no manifest, other parameters, a crash between writing the output
and the manifest) makes the step run again. The manifest is removed before a step
starts, so an interrupted step can never be mistaken for a finished one.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

MANIFEST_SUFFIX = ".manifest.json"


@dataclass(frozen=True)
class Step:
    """One unit of resumable work: a stage (or one shard of it) and what it depends on."""

    stage: str
    version: int
    output: Path
    identity: Any
    params: dict = field(default_factory=dict)

    @property
    def manifest(self) -> Path:
        return self.output.with_name(self.output.name + MANIFEST_SUFFIX)


class _HashingWriter:
    """A text handle that hashes and counts the UTF-8 bytes written through it."""

    def __init__(self, handle: IO[str]) -> None:
        self._handle, self._hash, self.size = handle, hashlib.sha256(), 0

    def write(self, text: str) -> None:
        data = text.encode("utf-8")
        self._hash.update(data)
        self.size += len(data)
        self._handle.write(text)

    def hexdigest(self) -> str:
        return self._hash.hexdigest()


def atomic_write_text(path: Path, text: str) -> None:
    """Write through a temporary file in the same folder, then rename over ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def load_done(step: Step) -> dict | None:
    """The step's manifest if the step is finished with the same inputs, else None."""
    try:
        manifest = json.loads(step.manifest.read_text(encoding="utf-8"))
    except (FileNotFoundError, json.JSONDecodeError):
        return None
    expected = {"stage": step.stage, "version": step.version,
                "identity": _jsonable(step.identity), "params": _jsonable(step.params)}
    if not manifest.get("done") or any(manifest.get(k) != v for k, v in expected.items()):
        return None
    try:
        if step.output.stat().st_size != manifest["output"]["size"]:
            return None
    except (FileNotFoundError, KeyError, TypeError):
        return None
    return manifest


def run_step(step: Step, produce: Callable[[Any], dict]) -> dict:
    """Run ``produce(writer)`` into a temporary output, rename it, then write the manifest.

    ``produce`` writes text lines and returns the step's counts.
    """
    step.manifest.unlink(missing_ok=True)
    step.output.parent.mkdir(parents=True, exist_ok=True)
    tmp = step.output.with_name(step.output.name + ".tmp")
    with open(tmp, "w", encoding="utf-8", newline="\n") as handle:
        writer = _HashingWriter(handle)
        counts = produce(writer)
    os.replace(tmp, step.output)
    manifest = {"stage": step.stage, "version": step.version,
                "identity": _jsonable(step.identity), "params": _jsonable(step.params),
                "output": {"path": step.output.name, "size": writer.size,
                           "sha256": writer.hexdigest()},
                "counts": counts, "done": True}
    atomic_write_text(step.manifest, json.dumps(manifest, ensure_ascii=False, indent=1))
    return manifest


def _jsonable(value: Any) -> Any:
    """Round-trip through JSON so tuples compare equal to the lists read back from disk."""
    return json.loads(json.dumps(value, ensure_ascii=False, default=str))
