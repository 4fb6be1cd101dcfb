"""The ``word-vectors`` scorer: static word vectors from a file, for WEAT (Caliskan et al. 2017).

``model`` is a vectors file in one of the formats the WEAT literature uses:

- word2vec text (``.txt``/``.vec``): a first line ``<words> <dimensions>``, then one word and
  its numbers per line (the GoogleNews vectors of ``data/weat/weat_w2v.txt``);
- GloVe text: the same lines without the header (told apart by the first line's field count);
- word2vec binary (``.bin``): the header line, then each word, a space and ``dimensions``
  little-endian float32 values (Mikolov et al.'s ``word2vec.c`` format).

A ``.gz`` file (``vectors.bin.gz``, ``glove.txt.gz``) is read through gzip, as gensim reads it.

What a file may not hold is refused, naming file and line (issue 34 items 5 and 12): a number
that is not finite (NaN or infinity: a cosine of it is NaN, no word's association); fields
separated by tabs (the format separates by spaces; read so, every line was a word with no
number and every probe out of vocabulary); bytes left after the words a binary header counts
(a header whose width is wrong reads the vectors out of step, as garbage words, and only the
leftover bytes give it away). **A word listed twice keeps its first vector**, as gensim's
``load_word2vec_format`` does (it warns "duplicate word … ignoring all but first"); the rule is
recorded in :meth:`WordVectorScorer.describe` (``duplicates: first``), and each asked word met
twice is said once on stderr with both places. (Until issue 34 the last vector won, silently:
WEAT d −0.417 became 0.087 on a file with one word twice.)

An :class:`~biasatlas.probes.EmbeddingProbe`'s ``text`` is looked up exactly as written
(case matters: GoogleNews holds ``Amy`` and ``amy`` apart); a word the file lacks is left
unanswered with the reason ``out of vocabulary``, which the run records as a skip, so a
benchmark reports it rather than dropping it. The file is read once per call and only the
asked words are kept, so a 3.6 GB GoogleNews binary never sits in memory whole.
"""

from __future__ import annotations

import gzip
import math
import sys
import zlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO, cast

from ...errors import DataError, MissingInput, UnscorableProbe, UnsupportedProbe
from ...hashing import sha256_file
from ...probes import EmbeddingAnswer, EmbeddingProbe, Probe, ScorerInfo
from ..base import Progress, Scorer

OOV = "out of vocabulary"


class WordVectorScorer(Scorer):
    """Exact lookup in a vectors file (module docstring); the pooling of a probe is not read."""

    name = "word-vectors"

    def __init__(self, model: str, *, variant: str = "lookup", **_: Any) -> None:
        if variant != "lookup":
            raise UnsupportedProbe(f"word-vectors variant {variant!r} unknown; it has one: lookup")
        self.variant, self.path = variant, Path(model).expanduser()
        if not self.path.is_file():
            raise MissingInput("no such vectors file", path=self.path)
        self.binary = ".bin" in self.path.suffixes[-2:] and self.path.suffixes[-1] in (".bin", ".gz")
        self._read: tuple[frozenset[str], dict[str, tuple[float, ...]]] = (frozenset(), {})
        self._said: set[str] = set()  # duplicate words already warned of

    @property
    def info(self) -> ScorerInfo:
        return ScorerInfo(kind=self.name, reads="embedding", generates=False)

    def _refused(self, probes: Sequence[Probe]) -> dict[str, str]:
        """The words the file lacks, each with :data:`OOV`: one read of the file finds them (and
        keeps the vectors of the rest for :meth:`_embeddings`, the same call's next step)."""
        words = {p.text for p in probes if isinstance(p, EmbeddingProbe)}
        self._read = (frozenset(words), self._first_vectors(words))
        return {p.id: OOV for p in probes if isinstance(p, EmbeddingProbe) and p.text not in self._read[1]}

    def _embeddings(self, probes: list[EmbeddingProbe], tick: Progress) -> list[EmbeddingAnswer]:
        words = {p.text for p in probes}
        found = self._read[1] if words <= self._read[0] else self._first_vectors(words)
        missing = [p.text for p in probes if p.text not in found]
        if missing:
            raise UnscorableProbe(f"{missing[0]!r}: {OOV}")
        tick(len(probes))
        return [EmbeddingAnswer(p.id, found[p.text], 1) for p in probes]

    def _first_vectors(self, words: set[str]) -> dict[str, tuple[float, ...]]:
        """Each of ``words`` the file holds, with its first vector; a word met again is said once."""
        found: dict[str, tuple[float, ...]] = {}
        where: dict[str, str] = {}
        for word, vector, at in _words(self.path, words, self.binary):
            if word not in found:
                found[word], where[word] = vector, at
            elif word not in self._said:
                self._said.add(word)
                print(f"warning: {self.path}: {word!r} is listed twice ({where[word]} and {at}); its first "
                      "vector is used, as gensim does", file=sys.stderr, flush=True)
        return found

    def describe(self) -> dict[str, Any]:
        return {"scorer": self.name, "variant": self.variant, "model": str(self.path),
                "format": "word2vec-binary" if self.binary else "text", "duplicates": "first",
                "file_sha256": sha256_file(self.path)}


Found = Iterator[tuple[str, tuple[float, ...], str]]  # word, vector, where (line or word number)


def _words(path: Path, wanted: set[str], binary: bool) -> Found:
    try:
        with cast(BinaryIO, gzip.open(path, "rb") if path.suffix == ".gz" else path.open("rb")) as handle:
            yield from (_binary(handle, path, wanted) if binary else _text(handle, path, wanted))
    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise DataError(f"not a whole gzip file ({exc})", path=path) from exc


def _text(handle: BinaryIO, path: Path, wanted: set[str]) -> Found:
    """word2vec text (header ``N D``) or GloVe (no header): one word and its numbers per line."""
    width: int | None = None
    for number, raw in enumerate(handle, start=1):
        if b"\t" in raw:
            raise DataError("a tab in the line: word2vec and GloVe text separate the word and its numbers by "
                            "single spaces", path=path, line=number)
        # \r\n line ends too (the WEFE copy of the GoogleNews words has them) and a trailing space
        fields = raw.decode("utf-8", errors="replace").rstrip("\r\n").rstrip(" ").split(" ")
        if number == 1 and len(fields) == 2 and all(f.isdigit() for f in fields):
            width = int(fields[1])
            continue
        width = width or len(fields) - 1
        if width < 1:
            raise DataError("no number after the word: not a vectors file", path=path, line=number)
        if len(fields) != width + 1:
            raise DataError(f"{len(fields) - 1} numbers after the word, expected {width}", path=path, line=number)
        if fields[0] in wanted:
            yield fields[0], _floats(fields[1:], path, number), f"line {number}"


def _floats(fields: list[str], path: Path, number: int) -> tuple[float, ...]:
    try:
        values = tuple(float(f) for f in fields)
    except ValueError as exc:
        raise DataError(f"not a number ({exc})", path=path, line=number) from exc
    _finite_or_refused(values, path, f"line {number}")
    return values


def _finite_or_refused(values: tuple[float, ...], path: Path, where: str) -> None:
    if not all(map(math.isfinite, values)):
        raise DataError(f"a vector holds a number that is not finite (NaN or infinity), at {where}: its cosine "
                        "with any word is NaN", path=path)


def _binary(handle: BinaryIO, path: Path, wanted: set[str]) -> Found:
    """word2vec binary: ``N D\\n``, then per word its bytes, a space, D float32 values."""
    import numpy as np

    header = handle.readline().split()
    if len(header) != 2 or not all(h.isdigit() for h in header):
        raise DataError("a word2vec binary file starts with '<words> <dimensions>'", path=path, line=1)
    count, width = int(header[0]), int(header[1])
    for index in range(count):
        word = bytearray()
        while (byte := handle.read(1)) != b" ":
            if not byte:
                raise DataError(f"ends inside word {index + 1} of {count}", path=path)
            if byte != b"\n":  # word2vec.c ends each vector with a newline, read as the next word's start
                word += byte
        values = handle.read(4 * width)
        if len(values) != 4 * width:
            raise DataError(f"ends inside the vector of word {index + 1} of {count}{_WIDTH}", path=path)
        text = word.decode("utf-8", errors="replace")  # word2vec.c cuts long words inside a character
        if text in wanted:
            vector = tuple(float(v) for v in np.frombuffer(values, dtype="<f4"))
            _finite_or_refused(vector, path, f"word {index + 1} ({text!r})")
            yield text, vector, f"word {index + 1}"
    if handle.read(64).strip():  # a few bytes say it: a wrong width leaves the file's tail unread
        raise DataError(f"bytes are left after the {count} words the header counts{_WIDTH}", path=path)


_WIDTH = ": is the header's <dimensions> the vectors' width?"

