"""Stage checkpoints: an output file plus a JSON manifest, both written atomically.

A step is *done* when its manifest says so and names the same stage, version, input
identity and parameters as the step about to run, and the output still has the recorded
size. Anything else (no manifest, other parameters, a crash between writing the output
and the manifest) makes the step run again. The manifest is removed before a step
starts, so an interrupted step can never be mistaken for a finished one.

Every file is written through :func:`biasatlas.atomic.atomic_open`: a temporary file with an unpredictable
name, created exclusively in the destination folder (``tempfile.mkstemp``: ``O_CREAT |
O_EXCL``, which refuses any existing name, a symlink included, so nothing planted in the
folder is written through), then renamed over the final path. ``rename`` replaces a
symlink at the final path with the new file rather than following it. Temporaries that a
killed run left beside a path are deleted the next time that path is written.

A *folder* link is another matter: ``mkdir`` and ``mkstemp`` go through a planted
``stages/dedupe -> /victim`` and the rename then replaces ``/victim/candidates.jsonl``.
:func:`refuse_links` checks the run's folders before the run writes anything, and
refuses a link to a folder anywhere there.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from ..atomic import atomic_open, atomic_write
from ..errors import UsageError

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


def refuse_links(out: Path, folders: Iterable[str]) -> None:
    """Refuse a symbolic link used as a folder of the run: ``out/NAME`` for each of
    ``folders``, or a link to a folder anywhere below one.

    ``out`` itself may be a link (the user named it). A link at a *file's* path is safe
    (the rename replaces it; see above) and is left to be replaced. ``os.walk`` does not
    follow links: a link to a folder is listed among the folders, and found, not entered.
    """
    for name in folders:
        top = Path(out) / name
        found = [top] if top.is_symlink() else []
        if not found and top.is_dir():
            found = [Path(here) / sub for here, subs, _ in os.walk(top) for sub in subs
                     if (Path(here) / sub).is_symlink()]
        if found:
            raise UsageError(f"{found[0]} is a symbolic link to a folder inside the output folder {out}: "
                             "mining never writes through links; remove it or choose another --out")


def load_done(step: Step) -> dict | None:
    """The step's manifest if the step is finished with the same inputs, else None."""
    try:
        manifest = json.loads(step.manifest.read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):  # also a half-written or non-UTF-8 file
        return None
    if not isinstance(manifest, dict):
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
    with atomic_open(step.output) as handle:
        writer = _HashingWriter(handle)
        counts = produce(writer)
    manifest = {"stage": step.stage, "version": step.version,
                "identity": _jsonable(step.identity), "params": _jsonable(step.params),
                "output": {"path": step.output.name, "size": writer.size,
                           "sha256": writer.hexdigest()},
                "counts": counts, "done": True}
    atomic_write(step.manifest, json.dumps(manifest, ensure_ascii=False, indent=1))
    return manifest


def _jsonable(value: Any) -> Any:
    """Round-trip through JSON so tuples compare equal to the lists read back from disk."""
    return json.loads(json.dumps(value, ensure_ascii=False, default=str))
