"""Frozen records that flow between the mining stages (Zhao et al. 2021, SlguSet, §3).

Each stage reads one record type and writes the next as JSON lines; ``to_row`` and
``from_row`` are the only places that know the on-disk field names, so a stage file and
the ``candidates.jsonl`` that the ``zh-neutral`` benchmark loads stay in step.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from biasatlas.errors import DataError
from biasatlas.textfiles import json_line


@dataclass(frozen=True, slots=True)
class Document:
    """One document of the raw corpus: a non-empty line of a text file or one JSONL row."""

    source: str
    line: int
    text: str


@dataclass(frozen=True, slots=True)
class Hit:
    """A keyword string found by the automaton at a character offset (not yet a whole word)."""

    keyword: str
    offset: int


@dataclass(frozen=True, slots=True)
class Sentence:
    """A sentence holding at least one keyword string; output of the match and rules stages."""

    source: str
    line: int
    text: str
    hits: tuple[Hit, ...]

    def to_row(self) -> dict:
        return {"source": self.source, "line": self.line, "text": self.text,
                "hits": [[h.keyword, h.offset] for h in self.hits]}

    @classmethod
    def from_row(cls, row: dict) -> Sentence:
        hits = tuple(Hit(k, o) for k, o in row["hits"])
        return cls(row["source"], row["line"], row["text"], hits)


@dataclass(frozen=True, slots=True)
class Segmented:
    """A sentence with exactly one whole-word keyword and its jieba words."""

    source: str
    line: int
    text: str
    keyword: str
    offset: int
    tokens: tuple[str, ...]

    def to_row(self) -> dict:
        return {"source": self.source, "line": self.line, "text": self.text,
                "keyword": self.keyword, "offset": self.offset, "tokens": list(self.tokens)}

    @classmethod
    def from_row(cls, row: dict) -> Segmented:
        return cls(row["source"], row["line"], row["text"], row["keyword"], row["offset"],
                   tuple(row["tokens"]))


CANDIDATE_FIELDS = ("id", "sentence", "keyword", "offset", "pair", "source")


@dataclass(frozen=True, slots=True)
class Candidate:
    """One line of ``candidates.jsonl``: a mined sentence and where its keyword sits.

    ``offset`` is the character (code point) offset of ``keyword`` in ``sentence``;
    ``pair`` is written ``male/female`` (e.g. ``他/她``); ``source`` is ``file:line``.
    """

    id: str
    sentence: str
    keyword: str
    offset: int
    pair: str
    source: str

    def __post_init__(self) -> None:
        if self.sentence[self.offset:self.offset + len(self.keyword)] != self.keyword:
            raise ValueError(f"candidate {self.id}: keyword {self.keyword!r} is not at "
                             f"offset {self.offset} of {self.sentence!r}")
        if self.pair.count("/") != 1 or self.keyword not in self.pair.split("/"):
            raise ValueError(f"candidate {self.id}: pair {self.pair!r} must be 'male/female' "
                             f"and contain the keyword {self.keyword!r}")

    def to_row(self) -> dict:
        return {name: getattr(self, name) for name in CANDIDATE_FIELDS}


def write_row(handle, row: dict) -> None:
    """One JSON object per line, UTF-8 kept readable, line breaks escaped (:func:`json_line`)."""
    handle.write(json_line(row, separators=(",", ":")))
    handle.write("\n")


def iter_rows(path: Path) -> Iterator[dict]:
    """Stream the JSON objects of a stage file; a corrupt line is a DataError, not a crash."""
    with open(path, encoding="utf-8") as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                yield json.loads(raw)
            except json.JSONDecodeError as exc:
                raise DataError(f"not JSON: {exc.msg}", path=path, line=number) from exc


def read_candidates(path: Path) -> list[Candidate]:
    """Load a ``candidates.jsonl`` file, naming the file, line and field of any bad row."""
    out: list[Candidate] = []
    for number, row in enumerate(iter_rows(Path(path)), start=1):
        for name in CANDIDATE_FIELDS:
            wanted = int if name == "offset" else str
            if not isinstance(row.get(name), wanted):
                raise DataError(f"missing or not a {wanted.__name__}", path=path, line=number,
                                field=name)
        try:
            out.append(Candidate(**{name: row[name] for name in CANDIDATE_FIELDS}))
        except ValueError as exc:
            raise DataError(str(exc), path=path, line=number, field="offset") from exc
    return out
