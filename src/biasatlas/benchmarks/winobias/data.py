"""WinoBias pro/anti sentence pairs, read into typed records (Zhao et al., NAACL 2018; METHODS-MORE.md §7).

Eight files ``{pro,anti}_stereotyped_type{1,2}.txt.{dev,test}``, 396 lines each, CRLF, every line
``id sentence`` with the gold antecedent and the pronoun(s) in brackets. Line i of the pro file and
line i of the anti file are one :class:`Pair`: the same sentence with the pronoun gender swapped.
``male_occupations.txt`` / ``female_occupations.txt`` are the 40 occupations (20 + 20) whose BLS 2017
majority decides which version is "pro".

A pair's text is read with its id and brackets removed. Its antecedent occupation is the first
bracketed mention without its determiner, matched to the two lists in any case (``CEO``). The pair
is a **minimal pair** when the two sentences differ only in pronoun words; 20 pairs also differ
elsewhere (``needed a desk`` / ``needed one``, ``to won`` / ``to win``), and :attr:`Pair.minimal`
says which. ``the [the chief]`` (type 2 dev 176, test 3) is kept as the data has it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ...errors import DataError
from ...textfiles import read_text
from ..fetch import DataFile

Majority = Literal["female", "male"]
TYPES: tuple[str, ...] = ("1", "2")
SPLITS: tuple[str, ...] = ("dev", "test")
#: Pronoun word → gender (``her`` is both possessive and object; ``-self`` forms occur in type 1 test).
PRONOUN_GENDER: Mapping[str, Majority] = {
    "he": "male", "him": "male", "his": "male", "himself": "male",
    "she": "female", "her": "female", "hers": "female", "herself": "female"}
_SPAN = re.compile(r"\[([^\]]*)\]")
_DETERMINER = re.compile(r"^(the|a|an)\s+", re.IGNORECASE)
# uclanlp/corefBias at the commit METHODS-MORE.md §7 read (0bce984), pinned: a branch may move. The
# sha256 are of those bytes (LF line ends). The shared copy comes from a compilation with CRLF line
# ends, the same lines otherwise (checked file by file against that commit); either reads alike.
_BASE = ("https://raw.githubusercontent.com/uclanlp/corefBias/0bce984dd081bbc10b0622f326727a024c607895/"
         "WinoBias/wino/data/")
_SHA256 = {
    "pro_stereotyped_type1.txt.dev": "dd55a0d220fe4c0ceb63dd4648223fb4fe1a58d5ad95c116a002ad24b0e292a5",
    "pro_stereotyped_type1.txt.test": "db7838907238a758eeb5779e48f38c013b892910d6fe864456c59f04245c6689",
    "pro_stereotyped_type2.txt.dev": "8f0250de723cea9328e3eaf7169e07936f01aa5909ce7aa580db66eb803f4e86",
    "pro_stereotyped_type2.txt.test": "ea1c1fd94fa612e3cc44d7fa3cc4cb76021bb63fdf94f9826f430051e9052438",
    "anti_stereotyped_type1.txt.dev": "a4e0ebae344e78b56f657a42e8ae684b9db7747d177c5e7149c0907ebb7f3bf6",
    "anti_stereotyped_type1.txt.test": "331db5bd74bfefebf146a60b67645152a4a1991570d2a56f57154103ac361dd2",
    "anti_stereotyped_type2.txt.dev": "763ad829ad724f9a85ead689ba8ca69072020cb1238def6210f0fc6a47b97e59",
    "anti_stereotyped_type2.txt.test": "336571ac1ea8c06cd2aba8e5dd2bd98e00acc0c48da3e4ec5ec7e54eb2633a8f",
    "male_occupations.txt": "6b82d88847b69d56d207a0c396e9830b031890de585e916e6b4e9bc50672657e",
    "female_occupations.txt": "693bff12286c2c1d46c7d4d45a44a631574710c30b39c1a3001bb7bdebb44ed8",
}
#: Every file, by name, with its canonical URL and sha256 (the bytes at that URL).
FILES: Mapping[str, DataFile] = {name: DataFile(name, _BASE + name, digest) for name, digest in _SHA256.items()}


def pair_files(kind: str, split: str) -> tuple[str, str]:
    """The (pro, anti) file names of type ``kind`` and ``split``."""
    return f"pro_stereotyped_type{kind}.txt.{split}", f"anti_stereotyped_type{kind}.txt.{split}"


@dataclass(frozen=True)
class Pair:
    """Line ``line`` of one type and split: the pro- and anti-stereotypical sentence.

    ``slot`` is (left, pro pronoun, anti pronoun, right) around the one pronoun word where the two
    differ, when there is exactly one (the masked reading's slot), else ``None``. ``minimal``: they
    differ in pronoun words only. The pro version's pronoun gender is ``majority``, the occupation's
    BLS 2017 majority.
    """

    id: str
    kind: str
    split: str
    line: int
    occupation: str
    majority: Majority
    pro: str
    anti: str
    minimal: bool
    slot: tuple[str, str, str, str] | None  # (left, pro pronoun, anti pronoun, right)


def read_occupations(male: Path, female: Path) -> dict[str, Majority]:
    """Occupation (lower case) → its BLS 2017 majority."""
    out: dict[str, Majority] = {}
    lists: tuple[tuple[Path, Majority], ...] = ((male, "male"), (female, "female"))
    for path, majority in lists:
        names = [name.strip().lower() for name in read_text(path).splitlines() if name.strip()]
        if not names:
            raise DataError("no occupations in the file", path=path)
        out |= dict.fromkeys(names, majority)
    return out


def _lines(path: Path) -> list[tuple[int, str, list[str]]]:
    """(line, text without id and brackets, bracketed spans) of one file."""
    out = []
    for number, raw in enumerate(read_text(path).splitlines(), start=1):
        if not raw.strip():
            continue
        first, _, text = raw.strip().partition(" ")
        if not first.isdigit() or not text:
            raise DataError("expected 'id sentence'", path=path, line=number, field="id")
        spans = _SPAN.findall(text)
        if len(spans) < 2:
            raise DataError("expected the antecedent and a pronoun in brackets", path=path, line=number,
                            field="sentence")
        out.append((number, text.replace("[", "").replace("]", ""), spans))
    if not out:  # two empty files of a type were zero pairs, and a run of none exited 0
        raise DataError("no sentences in the file", path=path)
    return out


def _word(word: str) -> tuple[str, str]:
    """A word split into its letters and what follows them (``him.`` → ``him``, ``.``)."""
    cut = next((i for i, ch in enumerate(word) if not ch.isalpha()), len(word))
    return word[:cut], word[cut:]


def _slot(pro: str, anti: str) -> tuple[bool, tuple[str, str, str, str] | None]:
    """(pronoun words only differ, the one slot when exactly one word differs)."""
    a, b = pro.split(" "), anti.split(" ")
    if len(a) != len(b):
        return False, None
    differ = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
    split = {i: (_word(a[i]), _word(b[i])) for i in differ}
    minimal = bool(differ) and all(x[0].lower() in PRONOUN_GENDER and y[0].lower() in PRONOUN_GENDER and x[1] == y[1]
                                   for x, y in split.values())
    if not minimal or len(differ) != 1:
        return minimal, None
    i = differ[0]
    (p, tail), (q, _) = split[i]
    left = " ".join(a[:i]) + (" " if i else "")
    return True, (left, p, q, tail + "".join(" " + w for w in a[i + 1:]))


def read_pairs(folder_files: Mapping[str, Path], kind: str, split: str,
               occupations: Mapping[str, Majority]) -> list[Pair]:
    """Every pair of type ``kind`` and ``split``, in file order."""
    pro_name, anti_name = pair_files(kind, split)
    pro, anti = _lines(folder_files[pro_name]), _lines(folder_files[anti_name])
    if len(pro) != len(anti):
        raise DataError(f"{len(pro)} lines, but {anti_name} has {len(anti)}: line i of each is one pair",
                        path=folder_files[pro_name])
    pairs = []
    for (line, pro_text, spans), (_, anti_text, _) in zip(pro, anti):
        occupation = _DETERMINER.sub("", spans[0].strip()).lower()
        if occupation not in occupations:
            raise DataError(f"antecedent {spans[0]!r} is none of the {len(occupations)} occupations",
                            path=folder_files[pro_name], line=line, field="antecedent")
        minimal, slot = _slot(pro_text, anti_text)
        pairs.append(Pair(f"type{kind}.{split}.{line}", kind, split, line, occupation, occupations[occupation],
                          pro_text, anti_text, minimal, slot))
    return pairs


def read_all(files: Mapping[str, Path], kinds: Sequence[str], splits: Sequence[str]) -> list[Pair]:
    """The pairs of every chosen type and split (type-major order)."""
    occupations = read_occupations(files["male_occupations.txt"], files["female_occupations.txt"])
    return [p for kind in kinds for split in splits for p in read_pairs(files, kind, split, occupations)]
