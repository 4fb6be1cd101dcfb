"""A WinoBias summary: the pro/anti preference per set and pooled, the occupations against their BLS
majority, and its typed read-back.

``summarise`` writes the pooled preference (every pair scored) at the top, ``sets`` (``type1-test``,
…) each with the same numbers, ``by_majority`` (the shares against the BLS 2017 majority) and one row
per occupation (its majority, female %, pairs).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypedDict, cast

from ...runs.checks import Interval, WithIntervals
from ...runs.view import Column
from ...runs.typed import Summary, same_object, when_set
from .analysis import PairScore, against_majority, occupation_shares, preference

_PREFERENCE = ("n", "n_ties", "pro_pct", "diff", "diff_p", "mean_log_ratio")
#: The items.jsonl fields the report reads.
COLUMNS: tuple[Column, ...] = (
    Column("id"), Column("set", "string"), Column("occupation", "string"), Column("majority", "string"),
    Column("pro_preferred", "number"), Column("log_ratio", "number"), Column("female_share", "number"))


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


@dataclass(frozen=True)
class ByMajority(WithIntervals):
    """The occupations' female shares against their BLS 2017 majority."""

    n_occupations: float | None = None
    female_majority_pct: float | None = None
    male_majority_pct: float | None = None
    gap: float | None = None
    agreement_pct: float | None = None
    intervals: Mapping[str, Interval | None] = field(default_factory=dict)


class OccupationRow(TypedDict, total=False):
    """One occupation's row: its BLS 2017 majority, its female share (%) and its pair count."""

    majority: str
    female_pct: float
    n_pairs: float


@dataclass(frozen=True)
class WinoBiasRunSummary(Summary):
    """The pooled preference, each set's, the occupations against their majority, and their rows."""

    overall: Preference = same_object(Preference)
    sets: Mapping[str, Preference] = field(default_factory=dict)
    by_majority: ByMajority = field(default_factory=ByMajority)
    occupations: Mapping[str, OccupationRow] = field(default_factory=dict)
    n_skipped: float | None = None
    reading: str | None = None
    dataset: str | None = when_set()


def summarise(scores: Sequence[PairScore], sets: Sequence[tuple[str, str]], *, n_resamples: int, seed: int,
              n_skipped: int, reading: str, dataset: str | None) -> WinoBiasRunSummary:
    """The summary of ``scores`` over the chosen (type, split) ``sets`` (module docstring)."""
    boot = {"n_resamples": n_resamples, "seed": seed}
    shares = occupation_shares(scores)
    by_set = {f"type{k}-{s}": Preference(**preference([x for x in scores if (x.pair.kind, x.pair.split) == (k, s)],
                                                      **boot)) for k, s in sets}
    rows = cast(Mapping[str, OccupationRow], shares)
    return WinoBiasRunSummary(Preference(**preference(scores, **boot)), by_set,
                              ByMajority(**against_majority(shares, **boot)), rows, n_skipped, reading, dataset)
