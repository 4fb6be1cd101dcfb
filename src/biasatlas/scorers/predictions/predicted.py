"""One shape for every predictions file: an :class:`Answer` per id and the :class:`FileAnswers`
around them (:mod:`.files` reads the formats into it)."""

from __future__ import annotations

import csv
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Callable
from typing import Any, Literal, Protocol, TypeVar

from ...errors import DataError

Row = TypeVar("Row", covariant=True)


class CsvReader(Protocol[Row]):
    """What :func:`csv_rows` reads: a ``csv.reader`` or ``csv.DictReader`` (rows, and the line reached)."""

    line_num: int

    def __iter__(self) -> Iterator[Row]: ...

    def __next__(self) -> Row: ...


PredictionsFormat = Literal["stereoset", "bbq-unifiedqa", "bbq-scores", "lm-eval", "crows-results", "plain", "gest"]
"""The predictions formats :mod:`.files` reads."""
FORMATS: tuple[str, ...] = ("stereoset", "bbq-unifiedqa", "bbq-scores", "lm-eval", "crows-results", "plain", "gest")


@dataclass(frozen=True)
class Answer:
    """One id's answer: the options' scores in the benchmark's order (``texts``, where the file
    names them, the text each score belongs to), or the index of the option ``chosen``, or the text
    a model ``generated`` (for a benchmark's generated reading to parse), or, when it cannot be read,
    ``why``; ``line``, where it is in the file."""

    values: tuple[float, ...] = ()
    texts: tuple[str, ...] = ()
    why: str | None = None
    line: int | None = None
    chosen: int | None = None
    generated: str | None = None

    def value(self, option: int | None) -> float | None:
        """The score of ``option`` (None: the answer's only value): a chosen option scores 1, the
        others 0; None when the answer has no such option."""
        if self.chosen is not None:
            return None if option is None else float(option == self.chosen)
        if option is None:
            return self.values[0] if len(self.values) == 1 else None
        return self.values[option] if 0 <= option < len(self.values) else None


@dataclass(frozen=True)
class FileAnswers:
    """A predictions file read: ``answers`` by id (readable or not), and where it came from:
    its ``sha256``, ``format``, the ``field`` read (a file with several models' answers),
    the ``model`` that made them, the ``harness`` and its ``harness_version`` where the file says,
    and ``dtype``, the precision the model ran in where known. ``keys``: what the answers are keyed
    by, the items' ids, or (``row``) their positions in a file that has no ids (a results file
    indexed by pandas: :func:`~.crows_results.rows_to_ids`)."""

    path: Path
    sha256: str
    format: str
    answers: Mapping[str, Answer]
    model: str
    field: str | None = None
    harness: str | None = None
    harness_version: str | None = None
    dtype: str = "unknown"
    task: str | None = None
    keys: Literal["id", "row"] = "id"
    #: The numbers the harness printed for the task (its results file's, stderr left out), so a run
    #: that computes another number from the same answers shows the harness's beside its own.
    harness_printed: Mapping[str, float] | None = None

    def describe(self) -> dict[str, Any]:
        """Provenance as the run records it (``harness_printed`` where the harness's results file gave any)."""
        return {"predictions": str(self.path), "predictions_sha256": self.sha256, "predictions_format": self.format,
                "predictions_field": self.field, "model": self.model, "harness": self.harness,
                "harness_version": self.harness_version, "task": self.task, "dtype": self.dtype,
                **({"harness_printed": dict(self.harness_printed)} if self.harness_printed else {})}


class Collect:
    """Answers as they are read: a second answer for an id makes it unreadable (both lines named)."""

    def __init__(self) -> None:
        self.answers: dict[str, Answer] = {}

    def add(self, key: str, answer: Answer) -> None:
        first = self.answers.get(key)
        if first is not None:
            answer = Answer(why=f"the id appears twice (lines {first.line} and {answer.line})", line=answer.line)
        self.answers[key] = answer


def finite(values: tuple[float, ...], line: int | None) -> Answer:
    if not values or not all(math.isfinite(v) for v in values):
        return Answer(why=f"scores {list(values)} are not all finite numbers", line=line)
    return Answer(values=values, line=line)


def csv_rows(reader: CsvReader[Row], path: Path) -> Iterator[Row]:
    """The rows of a CSV reader, where the csv module's own refusal (a quoted field running past its size
    limit: a quote never closed in a damaged file) is a DataError naming the file and the line reached."""
    try:
        yield from reader
    except csv.Error as exc:
        inner = getattr(reader, "reader", reader)  # a DictReader's line_num is its last row's; its reader's moves on
        raise DataError(f"not CSV: {exc}", path=path, line=inner.line_num) from None


Reader = Callable[[Path, str, "str | None"], "tuple[dict[str, Answer], dict[str, Any]]"]
"""A format's reader: the file's path, its text and ``--predictions-field`` → the answers by id, and
what the file says of itself (``model``, ``task``, ``harness``, ``dtype`` …)."""


@dataclass(frozen=True)
class PredictionFormat:
    """A predictions format a benchmark declares in its spec (``BenchmarkSpec.prediction_formats``) and
    owns the reader of: ``name`` is its ``--predictions-format`` value, ``read`` its :data:`Reader`, and
    ``looks_like`` tells it from a file's text when no format is named (asked after the generic shapes)."""

    name: str
    read: Reader
    looks_like: Callable[[str], bool]


@dataclass(frozen=True)
class LmEvalDocs:
    """A benchmark's documents in lm-evaluation-harness's samples files, declared in its spec
    (``BenchmarkSpec.lm_eval_docs``) and read by it: ``matches(doc)`` tells its ``doc`` from the others',
    ``read(record, doc, line)`` gives the (id, answer) pairs of one line, ids by the benchmark's own rule."""

    name: str
    matches: Callable[[Mapping[str, Any]], bool]
    read: Callable[[Mapping[str, Any], Mapping[str, Any], int], list[tuple[str, Answer]]]
