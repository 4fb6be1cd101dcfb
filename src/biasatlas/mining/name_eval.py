"""Sentence-level recall and precision of the person-name filter against gold BIO tags.

The question asked of each sentence is the filter's own: does it name a person? Gold
says yes when any character is tagged ``B-PER``; the filter says yes when
:func:`detect_person_name` returns a rule. Recall matters most (a missed name leaks a
non-neutral sentence), so it is reported first.
"""

from __future__ import annotations

import io
from dataclasses import asdict, dataclass
from pathlib import Path

from biasatlas.errors import DataError
from biasatlas.mining.names import detect_person_name, word_table
from biasatlas.mining.segment import tokenize
from biasatlas.textfiles import read_text


@dataclass(frozen=True, slots=True)
class GoldSentence:
    text: str
    has_person: bool


@dataclass(frozen=True, slots=True)
class NameFilterScore:
    sentences: int
    true_positive: int
    false_positive: int
    false_negative: int
    true_negative: int

    @property
    def recall(self) -> float:
        found = self.true_positive + self.false_negative
        return self.true_positive / found if found else float("nan")

    @property
    def precision(self) -> float:
        flagged = self.true_positive + self.false_positive
        return self.true_positive / flagged if flagged else float("nan")

    def to_dict(self) -> dict:
        return {**asdict(self), "recall": self.recall, "precision": self.precision}


def read_bio_sentences(path: Path) -> list[GoldSentence]:
    """Read a CoNLL file of ``<char> <tag>`` lines, blank lines between sentences."""
    out: list[GoldSentence] = []
    chars: list[str] = []
    person = False
    for number, raw in enumerate(io.StringIO(read_text(path), newline=None), start=1):
        line = raw.rstrip("\r\n")
        if not line.strip():
            if chars:
                out.append(GoldSentence("".join(chars), person))
            chars, person = [], False
            continue
        parts = line.split(" ")
        if len(parts) != 2 or len(parts[0]) != 1 or not parts[1]:
            raise DataError("expected '<one character> <BIO tag>'", path=path,
                            line=number, field="tag")
        chars.append(parts[0])
        person = person or parts[1] == "B-PER"
    if chars:
        out.append(GoldSentence("".join(chars), person))
    return out


def evaluate_name_filter(gold: list[GoldSentence], pos_tokenizer) -> NameFilterScore:
    """Confusion counts of the name filter over gold sentences."""
    words = word_table(pos_tokenizer)
    tp = fp = fn = tn = 0
    for sentence in gold:
        flagged = detect_person_name(sentence.text, tokenize(pos_tokenizer, sentence.text),
                                     words) is not None
        tp += flagged and sentence.has_person
        fp += flagged and not sentence.has_person
        fn += (not flagged) and sentence.has_person
        tn += (not flagged) and not sentence.has_person
    return NameFilterScore(len(gold), tp, fp, fn, tn)
