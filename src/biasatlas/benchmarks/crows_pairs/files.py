"""Reading a CrowS-Pairs file: comma, TAB or ``;``-separated text with a header, or JSON Lines.

The published files are CSV with a leading id column and the columns ``sent_more``,
``sent_less``, ``stereo_antistereo`` and ``bias_type`` (Nangia et al. 2020; the French
files of Névéol et al. 2022 are TAB-separated). A user's own file may name its columns
otherwise: a column mapping (``--columns sent_more=more,sent_less=less``) says which of its
columns holds each field. Every row is validated; an error names the file, the line and
the field as the file spells it.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ...errors import DataError, UsageError, did_you_mean
from ...textfiles import decode_text, json_objects, read_text, refuse_duplicate_columns
from .text import degenerate

CATEGORIES = ("race-color", "gender", "socioeconomic", "nationality", "religion", "age",
              "sexual-orientation", "physical-appearance", "disability", "autre")
# Row 1293 of the revised files carries its direction in the bias_type column; the
# original English file and the +210 files give its category: socioeconomic.
_CATEGORY_FIXES = {"1293": "socioeconomic"}
#: Other names of a category: bias-bench's ``--bias_type race`` is CrowS-Pairs' race-color.
_CATEGORY_ALIASES = {"race": "race-color"}
_REQUIRED = ("sent_more", "sent_less", "stereo_antistereo", "bias_type")
#: The fields a column mapping may name: the required four and the pair id.
FIELDS = ("id", *_REQUIRED)
#: Files read as JSON Lines whatever their first character.
JSONL_SUFFIXES = (".jsonl", ".ndjson")
Direction = Literal["stereo", "antistereo"]
#: One row of a file: its line, its values by the file's column names, and the id it gets
#: when its id cell is empty.
_Row = tuple[int, Mapping[str, Any], str]


@dataclass(frozen=True)
class CrowsPair:
    id: str
    sent_more: str
    sent_less: str
    direction: Direction
    bias_type: str
    line: int

    @property
    def degenerate(self) -> str | None:
        """Why the pair, as stored, cannot discriminate, if it cannot (:func:`.text.degenerate`)."""
        return degenerate(self.sent_more, self.sent_less)


def parse_bias_types(names: Sequence[str] | str) -> tuple[str, ...]:
    """Bias types as recorded: split at commas, lower-cased, aliases resolved, each once
    (``("Gender,race", "gender")`` → ``("gender", "race-color")``)."""
    given = [n.strip().lower() for name in ([names] if isinstance(names, str) else names) for n in name.split(",")]
    resolved = tuple(dict.fromkeys(_CATEGORY_ALIASES.get(n, n) for n in given if n))
    if not resolved:
        raise UsageError("--bias-type names no category; known: " + ", ".join(CATEGORIES))
    for name in resolved:
        if name not in CATEGORIES:
            raise did_you_mean("CrowS-Pairs bias type", name, CATEGORIES)
    return resolved


def parse_columns(entries: Sequence[str] | str) -> dict[str, str]:
    """``FIELD=COLUMN`` entries (each may hold several, comma-separated) as {field: column}:
    ``("sent_more=more,sent_less=less",)`` → ``{"sent_more": "more", "sent_less": "less"}``."""
    parts = [p.strip() for entry in ([entries] if isinstance(entries, str) else entries)
             for p in entry.split(",") if p.strip()]
    mapping: dict[str, str] = {}
    for part in parts:
        field, sep, column = (s.strip() for s in part.partition("="))
        if not sep or not field or not column:
            raise UsageError(f"column mapping {part!r}: expected FIELD=COLUMN, e.g. sent_more=more")
        if field not in FIELDS:
            raise did_you_mean("CrowS-Pairs field", field, FIELDS)
        if field in mapping:
            raise UsageError(f"column mapping names {field} twice ({mapping[field]!r} and {column!r})")
        mapping[field] = column
    return mapping


def read_pairs(path: Path, columns: Mapping[str, str] | None = None, *, encoding: str | None = None) -> list[CrowsPair]:
    """Parse a CrowS-Pairs file, validating every row; ``columns`` maps fields to the file's
    column names (default: each field's own name; the id is the leading column of a text
    file, ``id`` in JSON Lines, and the row's position where a row has none).

    JSON Lines are recognised by the suffix (``.jsonl``, ``.ndjson``) or a first ``{``; a
    text file's delimiter is the one of TAB, comma and ``;`` whose header holds the most of
    the required columns. Sentences are kept as stored; line ends are read as the
    originals' text-mode ``open()`` reads them (``newline=None``: ``\\r\\n`` and ``\\r``
    become ``\\n``, in quoted cells too). ``encoding``: the one a shipped file is declared to be
    stored in (:func:`decode_declared`); a file is UTF-8 otherwise.
    """
    text = read_text(path) if encoding is None else decode_declared(path, encoding)
    if not text.strip():
        raise DataError("the file is empty", path=path)
    columns = dict(columns or {})
    is_jsonl = Path(path).suffix.lower() in JSONL_SUFFIXES or text.lstrip().startswith("{")
    names, rows = _json_rows(text, path, columns) if is_jsonl else _text_rows(text, path, columns)
    pairs = []
    first_line: dict[str, int] = {}  # id → its line: one pass finds a duplicate at once
    for line, row, fallback_id in rows:
        pair = _pair(row, names, path, line, fallback_id)
        seen = first_line.setdefault(pair.id, line)
        if seen != line:
            raise DataError(f"duplicate pair id {pair.id!r} (first on line {seen})", path=path, line=line,
                            field=names["id"])
        pairs.append(pair)
    if not pairs:
        raise DataError("no pairs in the file" if is_jsonl else "no pairs after the header", path=path,
                        line=None if is_jsonl else 2)
    return pairs


def decode_declared(path: Path, encoding: str) -> str:
    """The text of a file declared to be in a single-byte ``encoding`` (Mac Roman for the Dutch set).

    Such an encoding maps every byte to a character, so decoding alone never fails and a wrong
    declaration would go unseen: a file whose non-ASCII bytes all read as UTF-8 is refused, since
    in a text of several accented words that is what a UTF-8 file (a converted copy) looks like,
    never a single-byte one (Mac Roman's ë is byte 0x91, a UTF-8 continuation byte with no lead).
    """
    try:
        data = Path(path).read_bytes()
    except OSError:
        return read_text(path)  # the DataError naming the file that every other read gives
    if not data.isascii():
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return decode_text(data, path=path, encoding=encoding)
        raise DataError(f"declared {encoding} but its non-ASCII bytes read as UTF-8: a converted copy? "
                        f"(the shipped file is {encoding}; give a UTF-8 copy with --data)", path=path)
    return decode_text(data, path=path, encoding=encoding)


def _field_names(columns: Mapping[str, str], id_column: str) -> dict[str, str]:
    """Each field's column in the file: the mapping's, else the field's own name."""
    return {"id": columns.get("id", id_column), **{f: columns.get(f, f) for f in _REQUIRED}}


def _delimiter(header: str, wanted: set[str]) -> str:
    """The delimiter whose header holds the most wanted columns (TAB, then comma, on a tie)."""
    candidates = [d for d in ("\t", ",", ";") if d in header] or [","]
    return max(candidates, key=lambda d: len(wanted & set(next(csv.reader([header], delimiter=d), []))))


def _text_rows(text: str, path: Path, columns: Mapping[str, str]) -> tuple[dict[str, str], Iterator[_Row]]:
    """The header checked, and the rows of a delimited file."""
    wanted = {columns.get(f, f) for f in FIELDS if f != "id" or f in columns}
    delimiter = _delimiter(text.split("\n", 1)[0].rstrip("\r"), wanted)
    reader = csv.DictReader(io.StringIO(text, newline=None), delimiter=delimiter)
    header = list(reader.fieldnames or [])
    refuse_duplicate_columns(header, path=path, blank_ok=False)  # the id column's name is blank
    names = _field_names(columns, header[0] if header else "")
    missing = [names[f] for f in FIELDS if (f != "id" or f in columns) and names[f] not in header]
    if missing:
        mapped = " (from the column mapping)" if any(m in columns.values() for m in missing) else ""
        raise DataError(f"missing column(s) {', '.join(missing)}{mapped}; found {header} "
                        f"(delimiter {delimiter!r}: is it the right file?)", path=path, line=1, field=missing[0])
    return names, _text_records(reader, path)


def _text_records(reader: csv.DictReader[str], path: Path) -> Iterator[_Row]:
    start = 2
    try:
        for row in reader:
            if any((v or "").strip() for v in row.values() if isinstance(v, str)):  # else a blank line
                if None in row:  # csv puts surplus fields under the key None
                    raise DataError(f"{len(row[None])} field(s) more than the header has", path=path, line=start)
                yield start, row, str(start - 2)
            start = reader.line_num + 1
    except csv.Error as exc:  # e.g. a stray carriage return or an unclosed quote
        raise DataError(f"unreadable row: {exc}", path=path, line=start) from exc


def _json_rows(text: str, path: Path, columns: Mapping[str, str]) -> tuple[dict[str, str], Iterator[_Row]]:
    return _field_names(columns, "id"), _json_records(text, path)


def _json_records(text: str, path: Path) -> Iterator[_Row]:
    """The file's objects (:func:`~biasatlas.textfiles.json_objects`); a pair without an id gets its position."""
    for position, (line, row) in enumerate(json_objects(text, path)):
        yield line, row, str(position)


def _cell(row: Mapping[str, Any], column: str, path: Path, line: int) -> str:
    """A text cell; an empty or null one is ``""`` (a short CSV row), a missing key an error."""
    if column not in row:
        raise DataError("missing field", path=path, line=line, field=column)
    value = row[column]
    if value is None:
        return ""
    if not isinstance(value, str):
        raise DataError(f"expected text, got {type(value).__name__} {value!r}", path=path, line=line,
                        field=column)
    return value


def _pair(row: Mapping[str, Any], names: Mapping[str, str], path: Path, line: int, fallback_id: str) -> CrowsPair:
    for field in ("stereo_antistereo", "bias_type"):
        if not _cell(row, names[field], path, line).strip():
            raise DataError("empty value", path=path, line=line, field=names[field])
    direction = _cell(row, names["stereo_antistereo"], path, line).strip()
    if direction not in ("stereo", "antistereo"):
        raise DataError(f"expected 'stereo' or 'antistereo', got {direction!r}", path=path,
                        line=line, field=names["stereo_antistereo"])
    raw_id = row.get(names["id"])
    pair_id = (str(raw_id).strip() if isinstance(raw_id, str | int) and not isinstance(raw_id, bool)
               else "") or fallback_id
    category = _cell(row, names["bias_type"], path, line).strip().lower()
    if category not in CATEGORIES:
        category = _CATEGORY_FIXES.get(pair_id, category)
    if category not in CATEGORIES:
        raise DataError(f"unknown bias category {category!r}; known: {', '.join(CATEGORIES)}",
                        path=path, line=line, field=names["bias_type"])
    # The sentences as stored: never trimmed, normalised or filtered (METHODS.md §4; .text)
    return CrowsPair(pair_id, _cell(row, names["sent_more"], path, line), _cell(row, names["sent_less"], path, line),
                     direction, category, line)  # type: ignore[arg-type]  # checked above
