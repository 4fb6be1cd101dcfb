"""Run folders: write atomically, read back for reports.

``config.json``, ``items.jsonl`` (one record per item), ``skipped.jsonl`` and
``timing.json`` (seconds, cache hits: what differs between equivalent runs) are written
first, each to a temporary file renamed into place; ``summary.json`` is written last, so
a folder without it is an unfinished run and is never read as a finished one.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any

from .errors import DataError
from .pipeline import Run


def _clean(value: Any) -> Any:
    """JSON has no NaN/inf: write null rather than an invalid file."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=path.parent, delete=False,
                                     prefix=f".{path.name}.") as tmp:
        tmp.write(text)
    os.replace(tmp.name, path)


def _jsonl(records: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(_clean(r), ensure_ascii=False) + "\n" for r in records)


def write_run(run: Run, out: Path) -> Path:
    out = Path(out)
    (out / "summary.json").unlink(missing_ok=True)  # the folder is unfinished until the end
    atomic_write(out / "config.json", json.dumps(_clean(run.config), indent=2, ensure_ascii=False))
    atomic_write(out / "items.jsonl", _jsonl(run.records))
    atomic_write(out / "skipped.jsonl", _jsonl(run.skipped))
    atomic_write(out / "timing.json", json.dumps(_clean(run.timing), indent=2))
    atomic_write(out / "summary.json", json.dumps(_clean(run.summary), indent=2, ensure_ascii=False))
    return out


def read_run(folder: Path) -> Run:
    folder = Path(folder)
    summary_path = folder / "summary.json"
    if not summary_path.is_file():
        raise DataError("not a finished run folder (no summary.json)", path=folder)
    records = [json.loads(line) for line in (folder / "items.jsonl").read_text(encoding="utf-8").splitlines()
               if line.strip()]
    skipped_path = folder / "skipped.jsonl"
    skipped = [json.loads(x) for x in skipped_path.read_text(encoding="utf-8").splitlines() if x.strip()] \
        if skipped_path.is_file() else []
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    return Run(config, json.loads(summary_path.read_text(encoding="utf-8")), records, skipped)
