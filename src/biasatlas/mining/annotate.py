"""Annotation round trip: export candidates for the annotators, import their labels.

SlguSet kept a sentence only when all three annotators agreed that either gender fits
it equally (Zhao et al. 2021 §3). Each annotator gets their own CSV (UTF-8 with a byte
order mark, so Excel opens it as UTF-8) and fills the ``neutral`` column: 1 when either
gender fits equally, 0 when not.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path

from biasatlas.errors import DataError
from biasatlas.atomic import atomic_open
from biasatlas.mining.records import Candidate
from biasatlas.textfiles import read_text, refuse_duplicate_columns

COLUMNS = ("id", "pair", "keyword", "sentence", "neutral", "comment")
YES = frozenset({"1", "y", "yes", "true", "是", "中性"})
NO = frozenset({"0", "n", "no", "false", "否"})


def annotator_files(folder: Path, annotators: int) -> list[Path]:
    return [folder / f"annotator_{i}.csv" for i in range(1, annotators + 1)]


def _has_labels(path: Path) -> bool:
    rows = csv.DictReader(io.StringIO(read_text(path), newline=""))
    refuse_duplicate_columns(rows.fieldnames or (), path=path)
    return any((row.get("neutral") or "").strip() for row in rows)


def export_annotation(candidates: Sequence[Candidate], folder: Path,
                      annotators: int = 3) -> list[Path]:
    """Write one blank CSV per annotator; never overwrite a file that already holds labels."""
    paths = annotator_files(folder, annotators)
    for path in paths:
        if path.exists() and _has_labels(path):
            raise DataError("already holds labels; move it away before exporting again",
                            path=path, field="neutral")
    folder.mkdir(parents=True, exist_ok=True)
    for path in paths:
        with atomic_open(path, encoding="utf-8-sig", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(COLUMNS)
            for c in candidates:
                writer.writerow((c.id, c.pair, c.keyword, c.sentence, "", ""))
    return paths


def parse_label(value: str | None, path: Path, line: int) -> bool:
    text = (value or "").strip().lower()
    if text in YES:
        return True
    if text in NO:
        return False
    problem = "is empty" if not text else f"is {value!r}"
    raise DataError(f"label {problem}; use 1 (either gender fits) or 0", path=path,
                    line=line, field="neutral")


def import_labels(path: Path, expected_ids: Sequence[str]) -> dict[str, bool]:
    """One annotator's labels by candidate id, checked against the exported ids."""
    expected = set(expected_ids)
    labels: dict[str, bool] = {}
    reader = csv.DictReader(io.StringIO(read_text(path), newline=""))
    refuse_duplicate_columns(reader.fieldnames or (), path=path)
    for column in ("id", "neutral"):
        if column not in (reader.fieldnames or ()):
            raise DataError("missing column", path=path, line=1, field=column)
    for row in reader:
        line = reader.line_num
        cid = (row.get("id") or "").strip()
        if cid not in expected:
            raise DataError(f"unknown candidate id {cid!r}", path=path, line=line,
                            field="id")
        if cid in labels:
            raise DataError(f"candidate id {cid!r} labelled twice", path=path, line=line,
                            field="id")
        labels[cid] = parse_label(row.get("neutral"), path, line)
    missing = expected - labels.keys()
    if missing:
        raise DataError(f"{len(missing)} candidate(s) not labelled, e.g. {min(missing)!r}",
                        path=path, field="id")
    return labels


def import_annotations(paths: Sequence[Path], ids: Sequence[str]) -> list[dict[str, bool]]:
    """Every annotator's labels; at least two annotators are needed to measure agreement."""
    if len(paths) < 2:
        raise DataError(f"need at least two annotation files, got {len(paths)}",
                        field="annotations")
    return [import_labels(Path(p), ids) for p in paths]
