"""Corpus sources: plan shards over plain-text or JSONL files, stream their documents,
and convert traditional to simplified characters (OpenCC ``t2s``).

A shard is a byte range that starts and ends on a line boundary, so any file, however
large, is read in pieces by independent workers and never held in memory. The planner
counts newlines once (chunked ``bytes.count``) to know each shard's first line number,
which keeps ``source = file:line`` exact whatever the number of workers.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from biasatlas.errors import DataError
from biasatlas.mining.records import Document
from biasatlas.textfiles import decode_line

Format = Literal["text", "jsonl"]
_CHUNK = 1 << 22


@dataclass(frozen=True, slots=True)
class Shard:
    """Lines of ``path`` whose first byte lies in ``[start, end)``; the first is ``first_line``."""

    path: str
    start: int
    end: int
    first_line: int

    def identity(self) -> dict:
        """What the shard's content depends on (size and mtime stand in for a full hash)."""
        stat = os.stat(self.path)
        return {"path": os.path.abspath(self.path), "size": stat.st_size,
                "mtime_ns": stat.st_mtime_ns, "start": self.start, "end": self.end}


def _count_newlines(handle, start: int, end: int) -> int:
    handle.seek(start)
    count, left = 0, end - start
    while left > 0:
        chunk = handle.read(min(_CHUNK, left))
        if not chunk:
            break
        count += chunk.count(b"\n")
        left -= len(chunk)
    return count


def plan_file(path: str, shard_bytes: int) -> list[Shard]:
    """Cut one file into shards of about ``shard_bytes``, each ending just after a newline."""
    size = os.path.getsize(path)
    shards: list[Shard] = []
    with open(path, "rb") as handle:
        start, line = 0, 1
        while start < size:
            # End the shard with the line that holds its last wanted byte.
            handle.seek(min(start + shard_bytes, size) - 1)
            handle.readline()
            end = handle.tell()
            shards.append(Shard(path, start, end, line))
            line += _count_newlines(handle, start, end)
            start = end
    return shards


def plan_shards(paths: list[str], shard_bytes: int) -> tuple[Shard, ...]:
    """Shards of all corpus files in order; a missing file is a DataError."""
    if shard_bytes < 1:
        raise ValueError(f"shard_bytes must be positive, got {shard_bytes}")
    out: list[Shard] = []
    for path in paths:
        if not os.path.isfile(path):
            raise DataError("corpus file not found", path=path)
        out.extend(plan_file(path, shard_bytes))
    return tuple(out)


def _lines(shard: Shard) -> Iterator[tuple[int, str]]:
    """(line number, decoded line) of the shard. The corpus must be UTF-8, as every text
    file (:mod:`biasatlas.textfiles`): a byte that is not stops the run with its line and
    offset, rather than turning into U+FFFD in the mined sentences."""
    with open(shard.path, "rb") as handle:
        handle.seek(shard.start)
        position, number = shard.start, shard.first_line
        while position < shard.end:
            raw = handle.readline()
            if not raw:
                break
            text = decode_line(raw, path=shard.path, line=number, offset=position)
            position += len(raw)
            yield number, text.strip()
            number += 1


def read_documents(shard: Shard, fmt: Format = "text", field: str = "text") -> Iterator[Document]:
    """Stream the documents of a shard: each non-empty line, or each JSONL row's ``field``."""
    source = shard.path
    for number, text in _lines(shard):
        if not text:
            continue
        if fmt == "text":
            yield Document(source, number, text)
            continue
        try:
            row = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DataError(f"not JSON: {exc.msg}", path=source, line=number) from exc
        value = row.get(field) if isinstance(row, dict) else None
        if not isinstance(value, str):
            raise DataError("missing or not a string", path=source, line=number, field=field)
        if value.strip():
            yield Document(source, number, value)


class Simplifier:
    """OpenCC ``t2s`` that skips text with no convertible character.

    The pure-Python OpenCC is slow, and a simplified corpus needs no conversion. For every
    dictionary entry that changes its key, the trigger set holds the key's characters at
    the positions that change (keys and values have equal length in the t2s tables; where
    not, all the key's characters). A text that holds none of them cannot contain any
    changing key, so ``t2s`` would return it unchanged: skipping is exact.
    """

    def __init__(self) -> None:
        from opencc import OpenCC

        self._converter = OpenCC("t2s")
        self._triggers = frozenset(self._trigger_chars())

    @staticmethod
    def _trigger_chars() -> set[str]:
        import opencc

        folder = Path(opencc.__file__).parent / "dictionary"
        chars: set[str] = set()
        for name in ("TSCharacters.txt", "TSPhrases.txt"):
            for raw in (folder / name).read_text(encoding="utf-8").splitlines():
                key, _, values = raw.partition("\t")
                value = values.split(" ")[0]
                if not key or value == key:
                    continue
                if len(value) != len(key):
                    chars.update(key)
                else:
                    chars.update(k for k, v in zip(key, value) if k != v)
        return chars

    def __call__(self, text: str) -> str:
        if self._triggers.isdisjoint(text):
            return text
        return self._converter.convert(text)
