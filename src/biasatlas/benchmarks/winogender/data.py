"""Winogender schemas read into typed contexts (Rudinger, Naradowsky, Leonard & Van Durme, NAACL 2018).

The authors' ``data/`` folder holds three files (METHODS-MORE.md §6):

- ``templates.tsv``: 120 templates, 60 occupations × ``answer`` (0: the pronoun refers to the
  occupation, 1: to the other participant), each with one pronoun slot ``$NOM_PRONOUN``,
  ``$POSS_PRONOUN`` or ``$ACC_PRONOUN``;
- ``all_sentences.tsv``: the 720 generated sentences, ids
  ``occupation.participant.answer.gender.txt`` (each template with its participant and with
  ``someone``; male, female and neutral pronouns);
- ``occupations-stats.tsv``: per occupation the % female of Bergsma & Lin's text statistics and
  of the US Bureau of Labor Statistics (``bls_pct_female``, 2015 or 2016 in ``bls_year``).

A :class:`Context` is one (template, participant) pair: the three sentences that differ only in
the pronoun (and, for 34 neutral sentences, in the verb the generator turned from ``was`` into
``were``). The slot is located in the generated sentences themselves, as the one word where the
male and female sentences differ, and checked against the template's slot kind: the sentences
are what every published number was computed on, so they are read, not regenerated.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ...errors import DataError
from ...textfiles import read_text
from ..fetch import DataFile

Gender = Literal["female", "male", "neutral"]
GENDERS: tuple[Gender, ...] = ("female", "male", "neutral")
Slot = Literal["nom", "poss", "acc"]
Referent = Literal["occupation", "participant"]
#: The pronoun of each gender in each slot (the generator's forms; female POSS and ACC are both ``her``).
PRONOUNS: Mapping[Slot, Mapping[Gender, str]] = {
    "nom": {"female": "she", "male": "he", "neutral": "they"},
    "poss": {"female": "her", "male": "his", "neutral": "their"},
    "acc": {"female": "her", "male": "him", "neutral": "them"},
}
_SLOTS: Mapping[str, Slot] = {"$NOM_PRONOUN": "nom", "$POSS_PRONOUN": "poss", "$ACC_PRONOUN": "acc"}
_COMMIT = "1c7f8b481ad8a234b41e9f76a424d6e856e13f7f"
_BASE = f"https://raw.githubusercontent.com/rudinger/winogender-schemas/{_COMMIT}/data/"
#: The authors' three files at the commit the shared copy comes from (sha256 of the bytes).
FILES: Mapping[str, DataFile] = {
    "sentences": DataFile("all_sentences.tsv", _BASE + "all_sentences.tsv",
                          "bd69da16bf228cb8df63fd0843aec2d8b5c36a7f21bf8c7b168bcc83932556c8"),
    "templates": DataFile("templates.tsv", _BASE + "templates.tsv",
                          "496f2e2dc77296bcebcdd8865a8dc5715ce22b772de9abb5f531d5b3114c48a0"),
    "occupations": DataFile("occupations-stats.tsv", _BASE + "occupations-stats.tsv",
                            "3f7f37c16381a70571356982ea7fe613ac700ad04a6d3b19b9f2be18248df567"),
}


@dataclass(frozen=True)
class Slotted:
    """One sentence split around its pronoun: ``left + pronoun + right`` is the sentence."""

    id: str
    left: str
    pronoun: str
    right: str

    @property
    def text(self) -> str:
        return self.left + self.pronoun + self.right


@dataclass(frozen=True)
class Context:
    """One template with one participant: the female, male and neutral sentence of it.

    ``referent``: whom the pronoun refers to (the template's ``answer``). ``bls_pct_female``: the
    occupation's % female (BLS). The female and male sentences share ``left``/``right``.
    """

    id: str
    occupation: str
    participant: str
    referent: Referent
    slot: Slot
    sentences: Mapping[Gender, Slotted]
    bls_pct_female: float

    @property
    def gotcha(self) -> Literal["female", "male"]:
        """The gender whose sentence is a "gotcha" (Rudinger et al. §4): its pronoun goes against the
        occupation's BLS majority for the referent. A female sentence is one when the pronoun refers to
        the occupation and it is < 50 % female, or to the participant and the occupation is ≥ 50 %
        female; a male sentence in the reverse cases. So each context is a gotcha for exactly one."""
        majority_female = self.bls_pct_female >= 50
        return "female" if majority_female == (self.referent == "participant") else "male"

    @property
    def shared(self) -> bool:
        """Whether the neutral sentence has the same context as the gendered ones (not ``they were``)."""
        n, m = self.sentences["neutral"], self.sentences["male"]
        return (n.left, n.right) == (m.left, m.right)


def _tsv(path: Path, columns: Sequence[str]) -> list[tuple[int, dict[str, str]]]:
    """(line, row) of a tab-separated file whose header holds ``columns``."""
    rows = list(csv.reader(io.StringIO(read_text(path)), delimiter="\t"))
    if not rows:
        raise DataError("empty file", path=path, line=1)
    header = rows[0]
    for column in columns:
        if column not in header:
            raise DataError(f"no column {column!r} (the header has {', '.join(header)})", path=path, line=1,
                            field=column)
    out = []
    for i, row in enumerate(rows[1:], start=2):
        if not row:
            continue
        if len(row) != len(header):
            raise DataError(f"expected {len(header)} tab-separated fields, got {len(row)}", path=path, line=i)
        out.append((i, dict(zip(header, row))))
    if not out:  # a header alone was a run of nothing (all_sentences.tsv) or a lookup of nothing
        raise DataError("no rows after the header", path=path)
    return out


def read_occupations(path: Path) -> dict[str, float]:
    """Occupation → BLS % female, from ``occupations-stats.tsv``."""
    out: dict[str, float] = {}
    for line, row in _tsv(path, ("occupation", "bls_pct_female")):
        try:
            value = float(row["bls_pct_female"])
        except ValueError:
            raise DataError(f"not a number: {row['bls_pct_female']!r}", path=path, line=line,
                            field="bls_pct_female") from None
        if not 0 <= value <= 100:
            raise DataError(f"a percentage is within 0–100, not {value}", path=path, line=line, field="bls_pct_female")
        out[row["occupation"]] = value
    return out


def read_templates(path: Path) -> dict[tuple[str, str], tuple[Slot, int]]:
    """(occupation, answer) → (the pronoun slot's kind, line), from ``templates.tsv``."""
    out: dict[tuple[str, str], tuple[Slot, int]] = {}
    for line, row in _tsv(path, ("occupation(0)", "answer", "sentence")):
        kinds = [kind for name, kind in _SLOTS.items() if name in row["sentence"]]
        if len(kinds) != 1:
            raise DataError(f"expected one pronoun slot ({', '.join(_SLOTS)}), found {len(kinds)}", path=path,
                            line=line, field="sentence")
        out[(row["occupation(0)"], row["answer"])] = (kinds[0], line)
    return out


def _split(sentence_id: str, text: str, index: int) -> Slotted:
    """``text`` cut around its word ``index`` (space-separated); trailing punctuation stays on the right."""
    words = text.split(" ")
    word = words[index]
    cut = next((i for i, ch in enumerate(word) if not ch.isalpha()), len(word))
    left = " ".join(words[:index]) + (" " if index else "")
    right = word[cut:] + "".join(" " + w for w in words[index + 1:])
    return Slotted(sentence_id, left, word[:cut], right)


def _slot_index(male: str, female: str) -> int | None:
    """The one word where the male and female sentences differ; None unless exactly one."""
    a, b = male.split(" "), female.split(" ")
    differ = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
    return differ[0] if len(a) == len(b) and len(differ) == 1 else None


def read_contexts(sentences: Path, templates: Path, occupations: Path) -> list[Context]:
    """Every context, in the order of ``all_sentences.tsv``, each checked against its template."""
    slots, bls = read_templates(templates), read_occupations(occupations)
    grouped: dict[str, dict[str, tuple[int, str, str]]] = {}
    for line, row in _tsv(sentences, ("sentid", "sentence")):
        parts = row["sentid"].split(".")
        if len(parts) != 5 or parts[3] not in GENDERS or parts[2] not in ("0", "1"):
            raise DataError(f"expected an id occupation.participant.answer.gender.txt, not {row['sentid']!r}",
                            path=sentences, line=line, field="sentid")
        grouped.setdefault(".".join(parts[:3]), {})[parts[3]] = (line, row["sentid"], row["sentence"])
    return [_context(key, group, slots, bls, sentences, occupations) for key, group in grouped.items()]


def _context(key: str, group: Mapping[str, tuple[int, str, str]], slots: Mapping[tuple[str, str], tuple[Slot, int]],
             bls: Mapping[str, float], path: Path, occupations: Path) -> Context:
    occupation, participant, answer = key.split(".")
    first = min(line for line, _, _ in group.values())
    missing = [g for g in GENDERS if g not in group]
    if missing:
        raise DataError(f"context {key} has no {', '.join(missing)} sentence", path=path, line=first, field="sentid")
    if (occupation, answer) not in slots:
        raise DataError(f"no template for occupation {occupation!r} with answer {answer}", path=path, line=first,
                        field="sentid")
    if occupation not in bls:
        raise DataError(f"occupation {occupation!r} has no row", path=occupations, field="occupation")
    slot = slots[(occupation, answer)][0]
    index = _slot_index(group["male"][2], group["female"][2])
    if index is None:
        raise DataError("the male and female sentences must differ in exactly one word (the pronoun)", path=path,
                        line=group["female"][0], field="sentence")
    split = {}
    for gender in GENDERS:
        line, sentence_id, text = group[gender]
        # the neutral pronoun stands where the gendered ones do: the generator's other change,
        # ``was`` → ``were``, comes after it
        if len(text.split(" ")) <= index:
            raise DataError(f"too short to hold the pronoun at word {index + 1}", path=path, line=line,
                            field="sentence")
        split[gender] = _split(sentence_id, text, index)
        if split[gender].pronoun != PRONOUNS[slot][gender]:
            raise DataError(f"expected the {slot.upper()} pronoun {PRONOUNS[slot][gender]!r} of the template, got "
                            f"{split[gender].pronoun!r}", path=path, line=line, field="sentence")
    return Context(key, occupation, participant, "occupation" if answer == "0" else "participant", slot, split,
                   bls[occupation])

