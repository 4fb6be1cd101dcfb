"""A BBQ summary: the overall set's scores at the top, every reporting group under ``sets``,
MBBQ's control set under ``control``, and its typed read-back.

Each set holds the scores of :mod:`.evaluation` (accuracy, bias, diff-bias and abstention in
ambiguous and disambiguated contexts, ×100), its counts (examples, templates, ties), the
``degenerate`` reason or null, and 95 % intervals resampling templates.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...display.checks import (FieldCheck, Interval, WithIntervals, check_fields, each, interval_of, intervals,
                               mapping_of, number, obj, string)
from ...display.runview import Column
from .evaluation import HEADLINE

_COUNTS = ("n", "n_amb", "n_dis", "n_templates", "n_ties")
_SET_CHECKS: dict[str, FieldCheck] = {**dict.fromkeys((*HEADLINE, *_COUNTS), number), "degenerate": string,
                                      "intervals": intervals(*HEADLINE)}
_CHECKS: dict[str, FieldCheck] = {
    **_SET_CHECKS, "n_skipped": number, "rule": string, "reading": string, "dataset": string, "options": string,
    "sets": each(obj(_SET_CHECKS, nullable=False)), "control": each(obj(_SET_CHECKS, nullable=False))}
#: The items.jsonl fields the report reads.
COLUMNS: tuple[Column, ...] = (
    Column("id"), Column("category", "string"), Column("group", "string"),
    Column("context_condition", "string"), Column("answer", "string?", required=False),
    Column("correct", "any", required=False))


@dataclass(frozen=True)
class SetScores(WithIntervals):
    """One set's scores (None where undefined), counts and degenerate reason."""

    accuracy_amb: float | None = None
    accuracy_dis: float | None = None
    bias_amb: float | None = None
    bias_dis: float | None = None
    diff_bias_amb: float | None = None
    diff_bias_dis: float | None = None
    abstain_amb: float | None = None
    abstain_dis: float | None = None
    n: float | None = None
    n_amb: float | None = None
    n_dis: float | None = None
    n_templates: float | None = None
    n_ties: float | None = None
    degenerate: str | None = None
    intervals: Mapping[str, Interval | None] = field(default_factory=dict)

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> SetScores:
        values = {k: data.get(k) for k in (*HEADLINE, *_COUNTS, "degenerate")}
        return cls(**values, intervals={k: interval_of(v) for k, v in mapping_of(data.get("intervals")).items()})


@dataclass(frozen=True)
class BBQRunSummary:
    """The overall scores, each reporting group's, and the control set's (MBBQ)."""

    overall: SetScores
    sets: Mapping[str, SetScores]
    control: Mapping[str, SetScores]
    dataset: str | None = None
    rule: str | None = None
    reading: str | None = None
    options: str | None = None
    n_skipped: float | None = None

    @classmethod
    def read(cls, data: Mapping[str, Any], path: Path) -> BBQRunSummary:
        check_fields(data, _CHECKS, path)
        sets = {k: SetScores.of(v) for k, v in mapping_of(data.get("sets")).items()}
        control = {k: SetScores.of(v) for k, v in mapping_of(data.get("control")).items()}
        return cls(SetScores.of(data), sets, control, data.get("dataset"), data.get("rule"), data.get("reading"),
                   data.get("options"), data.get("n_skipped"))
