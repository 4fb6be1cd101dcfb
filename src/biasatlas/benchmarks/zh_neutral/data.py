"""Sentence sets of the ``zh-neutral`` benchmark (Zhao et al. 2021, SlguSet, §3).

Two formats carry the same fields:

* JSON lines, one object per line: the ``candidates.jsonl`` that the mining pipeline
  writes (``id, sentence, keyword, offset, pair, source``); ``id`` and ``source`` may be
  left out of hand-made files.
* CSV with a header: ``sentence, keyword, offset, pair`` and optional ``id, source``.

``offset`` is the character (code point) offset of ``keyword`` in ``sentence``, and
``pair`` is written ``male/female`` (``男/女``, ``爸爸/妈妈``). Every row is checked: the
keyword must really sit at its offset and be one side of a well-formed pair; a bad row
is a :class:`~biasatlas.errors.DataError` naming the file, line and field.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from ...errors import DataError
from ...textfiles import input_file, json_objects, read_text, refuse_duplicate_columns

Gender = Literal["male", "female"]
REQUIRED_FIELDS = ("sentence", "keyword", "offset", "pair")
DEMO_NAME = "zh_neutral_demo.jsonl"


@dataclass(frozen=True)
class ZhItem:
    """One gender-neutral sentence with its keyword located.

    ``line`` is the line of the file the item came from (for messages only).
    """

    id: str
    sentence: str
    keyword: str
    offset: int
    pair: str
    source: str = ""
    line: int = 0

    @property
    def male(self) -> str:
        return self.pair.split("/")[0]

    @property
    def female(self) -> str:
        return self.pair.split("/")[1]

    @property
    def gender(self) -> Gender:
        """The gender of the keyword the sentence was found with."""
        return "male" if self.keyword == self.male else "female"

    @property
    def left(self) -> str:
        return self.sentence[: self.offset]

    @property
    def right(self) -> str:
        return self.sentence[self.offset + len(self.keyword):]


def demo_path() -> Path:
    """The demonstration set shipped in the package (our sentences, not SlguSet)."""
    return Path(str(resources.files("biasatlas.benchmarks") / "data" / DEMO_NAME))


def read_items(path: Path) -> list[ZhItem]:
    """Read a JSONL or CSV sentence set, validating every row; ids must be unique."""
    path = input_file(path)
    text = read_text(path)  # UTF-8 only: a GBK file is refused, naming line and byte
    rows = _csv_rows(text, path) if _is_csv(path, text) else json_objects(text, path)
    items = [_item(row, path, line) for line, row in rows]
    if not items:
        raise DataError("no sentences in the file", path=path)
    seen: dict[str, int] = {}
    for item in items:
        if item.id in seen:
            raise DataError(f"duplicate id {item.id!r} (first on line {seen[item.id]})",
                            path=path, line=item.line, field="id")
        seen[item.id] = item.line
    return items


def _is_csv(path: Path, text: str) -> bool:
    """By extension; otherwise a file whose first non-blank character is ``{`` is JSONL."""
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".json", ".ndjson"):
        return False
    if suffix in (".csv", ".tsv"):
        return True
    return not text.lstrip().startswith("{")


def _csv_rows(text: str, path: Path) -> Iterator[tuple[int, Mapping[str, Any]]]:
    delimiter = "\t" if path.suffix.lower() == ".tsv" else ","
    reader = csv.DictReader(io.StringIO(text), delimiter=delimiter)
    header = reader.fieldnames or []
    refuse_duplicate_columns(header, path=path)
    missing = [name for name in REQUIRED_FIELDS if name not in header]
    if missing:
        raise DataError(f"missing column(s) {', '.join(missing)}; found {header}", path=path,
                        line=1, field=missing[0])
    for row in reader:
        line = reader.line_num  # where the row ends: its line, unless a quoted cell spans lines
        if None in row:  # csv files surplus fields under the key None
            raise DataError(f"{len(row[None])} field(s) more than the header has", path=path,
                            line=line)
        if any((value or "").strip() for value in row.values()):
            yield line, row


def _item(row: Mapping[str, Any], path: Path, line: int) -> ZhItem:
    def fail(message: str, field: str) -> DataError:
        return DataError(message, path=path, line=line, field=field)

    for name in ("sentence", "keyword", "pair"):
        if not isinstance(row.get(name), str) or not row[name]:
            raise fail("missing, empty or not a string", name)
        if any("\ud800" <= c <= "\udfff" for c in row[name]):  # JSON "\ud800": no character
            raise fail("a lone surrogate (an escape that encodes no character)", name)
    sentence, keyword, pair = row["sentence"], row["keyword"], row["pair"].strip()
    offset = _offset(row.get("offset"), fail)
    sides = pair.split("/")
    if len(sides) != 2 or not all(sides) or sides[0] == sides[1] \
            or any(c.isspace() for c in pair):
        raise fail(f"expected 'male/female' with two different words, got {pair!r}", "pair")
    if keyword not in sides:
        raise fail(f"keyword {keyword!r} is neither side of the pair {pair!r}", "keyword")
    found = sentence[offset: offset + len(keyword)]
    if found != keyword:
        where = sentence.find(keyword)
        hint = f" (it occurs at {where})" if where >= 0 else " (it does not occur)"
        raise fail(f"keyword {keyword!r} is not at offset {offset} of {sentence!r}: "
                   f"found {found!r}{hint}", "offset")
    item_id = _cell(row, "id").strip() or f"line-{line}"
    return ZhItem(item_id, sentence, keyword, offset, pair, _cell(row, "source"), line)


def _cell(row: Mapping[str, Any], name: str) -> str:
    """A row's value as text, "" only when absent: a JSON ``"id": 0`` is the id ``"0"``, not a missing one."""
    value = row.get(name)
    return "" if value is None else str(value)


def _offset(value: Any, fail: Any) -> int:
    """A non-negative integer: a JSON int or a CSV cell of digits (``True`` is no offset)."""
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        return int(value.strip())  # ASCII only: "²" is a digit to str.isdigit, not to int()
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    raise fail(f"expected a non-negative integer character offset, got {value!r}", "offset")
