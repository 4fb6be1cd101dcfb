"""A WinoBias summary: the pro/anti preference per set and pooled, the occupations against their BLS
majority, and its typed read-back.

``summarise`` writes the pooled preference (every pair scored) at the top, ``sets`` (``type1-test``,
…) each with the same numbers, ``by_majority`` (the shares against the BLS 2017 majority) and one row
per occupation (its majority, female %, pairs).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...display.checks import (FieldCheck, Interval, WithIntervals, check_fields, each, interval_of, intervals,
                               mapping_of, number, obj, string)
from ...display.runview import Column
from .analysis import PairScore, against_majority, occupation_shares, preference

_PREFERENCE = ("n", "n_ties", "pro_pct", "diff", "diff_p", "mean_log_ratio")
_SET: dict[str, FieldCheck] = {**dict.fromkeys(_PREFERENCE, number),
                               "intervals": intervals("pro_pct", "diff", "mean_log_ratio")}
_MAJORITY: dict[str, FieldCheck] = {
    **dict.fromkeys(("n_occupations", "female_majority_pct", "male_majority_pct", "gap", "agreement_pct"), number),
    "intervals": intervals("gap", "agreement_pct")}
_CHECKS: dict[str, FieldCheck] = {
    **_SET, "n_skipped": number, "reading": string, "sets": each(obj(_SET, nullable=False)),
    "by_majority": obj(_MAJORITY),
    "occupations": each(obj({"majority": string, "female_pct": number, "n_pairs": number}, nullable=False))}
#: The items.jsonl fields the report reads.
COLUMNS: tuple[Column, ...] = (
    Column("id"), Column("set", "string"), Column("occupation", "string"), Column("majority", "string"),
    Column("pro_preferred", "number"), Column("log_ratio", "number"), Column("female_share", "number"))


def summarise(scores: Sequence[PairScore], sets: Sequence[tuple[str, str]], *, n_resamples: int,
              seed: int) -> dict[str, Any]:
    """The summary of ``scores`` over the chosen (type, split) ``sets`` (module docstring)."""
    boot = {"n_resamples": n_resamples, "seed": seed}
    shares = occupation_shares(scores)
    by_set = {f"type{k}-{s}": preference([x for x in scores if (x.pair.kind, x.pair.split) == (k, s)], **boot)
              for k, s in sets}
    return {**preference(scores, **boot), "sets": by_set, "by_majority": against_majority(shares, **boot),
            "occupations": shares}


@dataclass(frozen=True)
class Preference(WithIntervals):
    """The pro/anti preference of one set of pairs."""

    n: float | None = None
    n_ties: float | None = None
    pro_pct: float | None = None
    diff: float | None = None
    diff_p: float | None = None
    mean_log_ratio: float | None = None
    intervals: Mapping[str, Interval | None] = field(default_factory=dict)

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> Preference:
        return cls(**{k: data.get(k) for k in _PREFERENCE},
                   intervals={k: interval_of(v) for k, v in mapping_of(data.get("intervals")).items()})


@dataclass(frozen=True)
class ByMajority(WithIntervals):
    """The occupations' female shares against their BLS 2017 majority."""

    n_occupations: float | None = None
    female_majority_pct: float | None = None
    male_majority_pct: float | None = None
    gap: float | None = None
    agreement_pct: float | None = None
    intervals: Mapping[str, Interval | None] = field(default_factory=dict)


@dataclass(frozen=True)
class WinoBiasRunSummary:
    """The pooled preference, each set's, the occupations against their majority, and their rows."""

    overall: Preference
    sets: Mapping[str, Preference]
    by_majority: ByMajority
    occupations: Mapping[str, Mapping[str, Any]]
    reading: str | None = None
    n_skipped: float | None = None

    @classmethod
    def read(cls, data: Mapping[str, Any], path: Path) -> WinoBiasRunSummary:
        check_fields(data, _CHECKS, path)
        m = mapping_of(data.get("by_majority"))
        majority = ByMajority(**{k: m.get(k) for k in ("n_occupations", "female_majority_pct", "male_majority_pct",
                                                       "gap", "agreement_pct")},
                              intervals={k: interval_of(v) for k, v in mapping_of(m.get("intervals")).items()})
        return cls(Preference.of(data), {k: Preference.of(v) for k, v in mapping_of(data.get("sets")).items()},
                   majority, mapping_of(data.get("occupations")), data.get("reading"), data.get("n_skipped"))
