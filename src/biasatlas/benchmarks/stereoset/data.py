"""StereoSet's two splits, read into typed records (Nadeem, Bethke & Reddy, ACL 2021).

A split file is ``{"version": …, "data": {"intrasentence": [...], "intersentence": [...]}}``;
each example has an ``id``, a ``target`` term, a ``bias_type`` (the domain), a ``context``
(intrasentence: a sentence holding ``BLANK``; intersentence: the sentence before the
candidates) and exactly three ``sentences``, one per gold label. Examples are kept in file
order, intrasentence first (the order of the original's ``evaluation.py``), and checked as
they are read: a bad one is a :class:`~biasatlas.errors.DataError` naming the file, the line
its ``id`` is on, and the field.

The filler of an intrasentence candidate (:func:`filler`) follows the original
``dataloader.py``: the context split on single spaces, the last word holding ``BLANK`` gives
the index, and the candidate's word at that index with every ASCII punctuation character
deleted is the filler.
"""

from __future__ import annotations

import json
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ...compressed import GZIP_MAGIC, gunzip
from ...errors import DataError
from ...textfiles import decode_text
from ..fetch import DataFile

Task = Literal["intrasentence", "intersentence"]
TASKS: tuple[Task, ...] = ("intrasentence", "intersentence")
DOMAINS: tuple[str, ...] = ("gender", "profession", "race", "religion")
LABELS: tuple[str, ...] = ("stereotype", "anti-stereotype", "unrelated")
#: The canonical copies, each at a pinned commit (a branch may move; the sha256 would then refuse
#: it): dev from the authors' repository, test (with gold labels) from bias-bench, which the
#: authors' README points to; sha256 of the uncompressed JSON.
SPLITS: dict[str, DataFile] = {
    "dev": DataFile("dev.json", "https://raw.githubusercontent.com/moinnadeem/StereoSet/ead7d086a64a192a1eca88e0dd2fd163de375218/"
                    "data/dev.json",
                    "73a0f31b711688112602e4c3ac6ab1e1a7cadcdd67df6c6fd55501c889676c90"),
    "test": DataFile("test.json",
                     "https://raw.githubusercontent.com/McGill-NLP/bias-bench/291426aab926f78ecfc7bd040b531429ee8123e0/"
                     "data/stereoset/test.json",
                     "f3f70d1880b443388744958d192c25364d68c2b8ae7aeb9174903bcf415c394e"),
}
_DELETE_PUNCTUATION = str.maketrans("", "", string.punctuation)


@dataclass(frozen=True)
class Candidate:
    """One of an example's three sentences: its id (the key of the published predictions),
    text and gold label."""

    id: str
    sentence: str
    gold_label: str


@dataclass(frozen=True)
class Example:
    """One StereoSet example: three candidates for one context, one of each gold label."""

    id: str
    task: Task
    target: str
    bias_type: str
    context: str
    candidates: tuple[Candidate, ...]

    def by_label(self, label: str) -> Candidate:
        """The candidate whose gold label is ``label`` (each occurs exactly once)."""
        return next(c for c in self.candidates if c.gold_label == label)


def read_split(path: Path) -> list[Example]:
    """Every example of a split file (``.json``, or ``.json.gz`` as the shared copy of test),
    intrasentence then intersentence, each in file order."""
    raw = Path(path).read_bytes() if Path(path).is_file() else None
    if raw is None:
        raise DataError("file not found", path=path)
    if raw[:2] == GZIP_MAGIC or str(path).endswith(".gz"):  # gzip by its magic number, or by its name
        raw = gunzip(raw, path)
    text = decode_text(raw, path=path)
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError(f"not JSON: {exc.msg}", path=path, line=exc.lineno) from None
    data = document.get("data") if isinstance(document, dict) else None
    if not isinstance(data, dict):
        raise DataError("expected an object with a 'data' object (a StereoSet split file)", path=path,
                        line=1, field="data")
    examples: list[Example] = []
    seen: dict[str, str] = {}
    for task in TASKS:
        rows = data.get(task)
        if not isinstance(rows, list):
            raise DataError(f"expected a list of {task} examples", path=path, line=_line(text, task),
                            field=f"data.{task}")
        for index, row in enumerate(rows):
            example = _example(row, task, f"data.{task}[{index}]", text, path)
            for key in (example.id, *(c.id for c in example.candidates)):
                if key in seen:
                    raise DataError(f"duplicate id {key!r} (first in {seen[key]})", path=path,
                                    line=_line(text, key), field=f"data.{task}[{index}].id")
                seen[key] = f"data.{task}[{index}]"
            examples.append(example)
    if not examples:  # else a run of nothing: "SS – · not computed", exit 0
        raise DataError("no examples in the file (data.intrasentence and data.intersentence are empty)", path=path)
    return examples


def _example(row: Any, task: Task, where: str, text: str, path: Path) -> Example:
    if not isinstance(row, dict):
        raise DataError("expected an example object", path=path, field=where)
    def fail(message: str, field: str) -> DataError:
        # the line is looked up only for the error: a search of the text per example would be quadratic
        return DataError(message, path=path, line=_line(text, str(row.get("id", ""))), field=f"{where}.{field}")

    for key in ("id", "target", "bias_type", "context"):
        if not isinstance(row.get(key), str) or not row[key]:
            raise fail("expected a non-empty string", key)
    if row["bias_type"] not in DOMAINS:
        raise fail(f"unknown domain {row['bias_type']!r}; known: {', '.join(DOMAINS)}", "bias_type")
    if task == "intrasentence" and not any("BLANK" in w for w in row["context"].split(" ")):
        raise fail("an intrasentence context holds BLANK", "context")
    sentences = row.get("sentences")
    if not isinstance(sentences, list) or len(sentences) != 3:
        raise fail("expected three sentences", "sentences")
    candidates = []
    for i, s in enumerate(sentences):
        if not isinstance(s, dict):
            raise fail("expected a sentence object", f"sentences[{i}]")
        for key in ("id", "sentence", "gold_label"):
            if not isinstance(s.get(key), str) or not s[key]:
                raise fail("expected a non-empty string", f"sentences[{i}].{key}")
        candidates.append(Candidate(s["id"], s["sentence"], s["gold_label"]))
    if sorted(c.gold_label for c in candidates) != sorted(LABELS):
        raise fail(f"expected one sentence of each gold label {', '.join(LABELS)}, got "
                   f"{', '.join(c.gold_label for c in candidates)}", "sentences")
    return Example(row["id"], task, row["target"], row["bias_type"], row["context"], tuple(candidates))


def _line(text: str, key: str) -> int | None:
    """The line of the first ``"key"`` in ``text`` (an error's location; json gives none)."""
    at = text.find(f'"{key}"') if key else -1
    return text.count("\n", 0, at) + 1 if at >= 0 else None


def blank_index(context: str) -> int:
    """Index of the last space-separated word of ``context`` holding ``BLANK`` (the original's loop
    keeps the last match: two BLANKs give the second's index)."""
    index = -1
    for i, word in enumerate(context.split(" ")):
        if "BLANK" in word:
            index = i
    return index


def filler(example: Example, candidate: Candidate) -> str:
    """The word the candidate puts in the ``BLANK``, as the original reads it: the candidate's word
    at :func:`blank_index`, every ASCII punctuation character deleted (``senior-aged`` →
    ``senioraged``); empty where the candidate has fewer words."""
    words = candidate.sentence.split(" ")
    index = blank_index(example.context)
    return words[index].translate(_DELETE_PUNCTUATION) if 0 <= index < len(words) else ""


def predictions(path: Path) -> dict[str, float]:
    """Sentence id → score from a predictions file in the original's format
    (``{"intrasentence": [{"id", "score"}…], "intersentence": […]}``)."""
    try:
        document = json.loads(decode_text(Path(path).read_bytes(), path=path))
    except json.JSONDecodeError as exc:
        raise DataError(f"not JSON: {exc.msg}", path=path, line=exc.lineno) from None
    scores: dict[str, float] = {}
    for task in TASKS:
        for i, row in enumerate(document.get(task, []) if isinstance(document, Mapping) else []):
            if not (isinstance(row, Mapping) and isinstance(row.get("id"), str)
                    and isinstance(row.get("score"), (int, float))):
                raise DataError("expected {'id': string, 'score': number}", path=path, field=f"{task}[{i}]")
            scores[row["id"]] = float(row["score"])
    return scores


def terms(examples: Sequence[Example]) -> list[str]:
    """The target terms of ``examples``, in order of first appearance."""
    return list(dict.fromkeys(e.target for e in examples))
