"""GEST's sentences and its sixteen stereotypes (Pikuliak, Oresko, Hrckova & Simko, "Women Are
Beautiful, Men Are Leaders: Gender Stereotypes in Machine Translation and Language Modeling",
arXiv:2311.18711; data: ``kinit-sk/gest``).

``gest.csv`` (v1) and ``gest_1.1.csv`` (v1.1, 2024-12-06: 244 sentences with typos fixed) hold the
same 3,565 rows in the same order, columns ``sentence, stereotype`` (1–16). A sentence is a
first-person statement that would be stereotypical for one gender ("I am passionate."): stereotypes
1–7 are the authors' feminine ones, 8–16 the masculine ones (their ``src/gest.py``). An item's id is
its row number (1-based, the header not counted), the same in both versions, and the line of
the authors' per-sentence prediction files that holds its score.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ...errors import DataError
from ...textfiles import read_text
from ..fetch import DataFile

Version = Literal["1", "1.1"]
# kinit-sk/gest at the commit PROVENANCE.md records, pinned: a branch may move.
_BASE = "https://raw.githubusercontent.com/kinit-sk/gest/7dd908cae11720ee5d95e43a4ab94fb410c8b790/data/"
#: Each version's file, with its canonical URL and sha256.
FILES: Mapping[str, DataFile] = {
    "1": DataFile("gest.csv", _BASE + "gest.csv", "7e306adaa2913b660c6ddccddb26703a1de8c880cb0597ad27db4bca75380eea"),
    "1.1": DataFile("gest_1.1.csv", _BASE + "gest_1.1.csv",
                    "51d14d5dc648d5be867d40bd312c016471c485827f6c28488c7234b9d30fcd9c"),
}
#: The stereotypes' names by id (1-based), as the authors' ``src/gest.py`` lists them.
STEREOTYPES: tuple[str, ...] = ("Emotional", "Gentle", "Empathetic", "Neat", "Social", "Weak", "Beautiful",
                                "Tough", "Self-confident", "Professional", "Rational", "Providers", "Leaders",
                                "Childish", "Sexual", "Strong")
#: Stereotypes 1–7 are feminine, 8–16 masculine (the authors' ``r_f`` and ``r_m``).
FEMALE_IDS: tuple[int, ...] = tuple(range(1, 8))
MALE_IDS: tuple[int, ...] = tuple(range(8, 17))


def side(stereotype: int) -> Literal["female", "male"]:
    """Which gender stereotype ``stereotype`` (1–16) belongs to."""
    return "female" if stereotype in FEMALE_IDS else "male"


@dataclass(frozen=True)
class Sentence:
    """One GEST sentence: ``id`` is its row number as text, ``stereotype`` its id (1–16), ``line`` the
    file line it ends on (every row is one line in both versions: the row number plus one)."""

    id: str
    text: str
    stereotype: int
    line: int | None = None

    @property
    def stereotype_name(self) -> str:
        return STEREOTYPES[self.stereotype - 1]


def read_sentences(path: Path) -> list[Sentence]:
    """Every row of a GEST csv, in file order; a bad row is a DataError naming file, line and field."""
    reader = csv.DictReader(io.StringIO(read_text(path)))
    if reader.fieldnames is None or not {"sentence", "stereotype"} <= set(reader.fieldnames):
        raise DataError(f"expected the columns 'sentence' and 'stereotype', found {reader.fieldnames}", path=path,
                        line=1)
    out: list[Sentence] = []
    for row in reader:
        line = reader.line_num
        # the sentence as the authors fed it to their templates (pandas keeps it unstripped)
        text, raw = row.get("sentence") or "", (row.get("stereotype") or "").strip()
        if not text.strip():
            raise DataError("empty sentence", path=path, line=line, field="sentence")
        if not raw.isdigit() or not 1 <= int(raw) <= len(STEREOTYPES):
            raise DataError(f"a stereotype id 1–16, not {raw!r}", path=path, line=line, field="stereotype")
        out.append(Sentence(str(len(out) + 1), text, int(raw), line))
    return out
