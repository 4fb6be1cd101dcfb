"""Plain predictions: CSV or JSON Lines of ``id`` and an answer, for any benchmark.

An answer is either ``answer``, the index of the option chosen (0-based, in the order the
benchmark's probes ask: BBQ's ``ans0..ans2``), or the options' scores, higher preferred: CSV
columns ``score_0``, ``score_1``, … (as many as the options), JSON ``"scores": [...]``. A
JSON record may name the text each score belongs to (``"texts"``), so a pair's scores are read
whichever way round the file lists them (CrowS-Pairs: ``[sent_more, sent_less]``); a model name
in a ``model`` column (the same on every row) names the run. A value that is no number, an index
out of range, or a second row for an id is an unreadable answer, kept with its line.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...errors import DataError
from ...textfiles import json_objects, refuse_duplicate_columns
from .predicted import Answer, Collect, csv_rows, finite


def read_plain(path: Path, text: str, field: str | None) -> tuple[dict[str, Answer], dict[str, Any]]:
    """Id → the answer of each row (module docstring)."""
    rows = _json_rows(path, text) if text.lstrip().startswith("{") else _csv_rows(path, text)
    out = Collect()
    models: set[str] = set()
    for line, row in rows:
        key = row.get("id")
        if key is None or str(key) == "":
            raise DataError("no id", path=path, line=line, field="id")
        if row.get("model"):
            models.add(str(row["model"]))
        out.add(str(key), _answer(row, line))
    return out.answers, {"model": models.pop() if len(models) == 1 else None, "harness": None}


def _json_rows(path: Path, text: str) -> list[tuple[int, dict[str, Any]]]:
    return list(json_objects(text, path))


def _csv_rows(path: Path, text: str) -> list[tuple[int, dict[str, Any]]]:
    reader = csv.DictReader(io.StringIO(text))
    scores = _score_columns(_header(reader, path), path)
    out = []
    for row in csv_rows(reader, path):
        line = reader.line_num
        record: dict[str, Any] = {k: v for k, v in row.items() if k is not None}
        if scores:
            record["scores"] = [row.get(c) for c in scores]
        out.append((line, record))
    return out


def _header(reader: csv.DictReader[str], path: Path) -> list[str]:
    """The CSV's column names: an ``id`` among them, none twice (the reader would keep the last's cells)."""
    try:
        names = reader.fieldnames
    except csv.Error as exc:
        raise DataError(f"not CSV: {exc}", path=path, line=1) from None
    if names is None or "id" not in names:
        raise DataError("no 'id' column", path=path, line=1)
    refuse_duplicate_columns(names, path=path)
    return list(names)


def _score_columns(header: list[str], path: Path) -> list[str]:
    """The option scores' columns in option order, ``score_0`` to ``score_<n-1>``; any other ``score_``
    column (``score_a``, ``score_``, a gap in the numbers, ``score_01``) is refused, naming it, since no
    option order can be read from it."""
    given = [c for c in header if c.startswith("score_")]
    expected = [f"score_{k}" for k in range(len(given))]
    for column in given:
        if column not in expected:
            raise DataError(f"option scores are columns score_0, score_1, … numbering the options from 0 without a "
                            f"gap; {column!r} is not one (score columns: {', '.join(given)})", path=path, line=1,
                            field=column)
    return expected


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _answer(row: Mapping[str, Any], line: int) -> Answer:
    if row.get("scores") not in (None, ""):
        scores = row["scores"]
        values = [_number(v) for v in scores] if isinstance(scores, list) else [None]
        if any(v is None for v in values):
            return Answer(why=f"scores {scores!r} are not all finite numbers", line=line)
        texts = row.get("texts")
        answer = finite(tuple(v for v in values if v is not None), line)
        named = tuple(str(t) for t in texts) if isinstance(texts, list) and len(texts) == len(values) else ()
        return Answer(answer.values, named, answer.why, line)
    chosen = row.get("answer")
    index = _number(chosen)
    if index is None or index != int(index) or index < 0:
        return Answer(why=f"answer {chosen!r} is not an option's index", line=line)
    return Answer(chosen=int(index), line=line)
