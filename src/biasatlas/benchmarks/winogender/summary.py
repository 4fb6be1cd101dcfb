"""A Winogender summary: shares against BLS with intervals, by referent, gotchas; and its typed read-back.

``summarise`` writes the headline (every context: mean female share over occupations, Pearson's r
and Spearman's ρ with ``bls_pct_female``, their p-values and intervals), the same by referent
(``by_referent.occupation`` is the closest analogue of the paper's Table 1: the pronoun refers to
the occupation), the gotcha rates, the mean neutral share, and one row per occupation (the scatter).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...display.checks import (FieldCheck, Interval, WithIntervals, check_fields, each, interval, interval_of,
                               intervals, mapping_of, number, obj, string)
from ...display.runview import Column
from .analysis import ContextScore, against_bls, by_referent, gotchas, mean_interval, occupation_shares

_SCORES = ("female_pct", "pearson", "spearman", "pearson_fisher")
_SET: dict[str, FieldCheck] = {
    **dict.fromkeys(("n_occupations", "n_contexts", "female_pct", "pearson", "pearson_p", "spearman", "spearman_p"),
                    number),
    "intervals": intervals(*_SCORES)}
_CHECKS: dict[str, FieldCheck] = {
    **_SET, "n_skipped": number, "n_ties": number, "neutral_pct": number, "neutral_interval": interval,
    "reading": string,
    "by_referent": each(obj(_SET, nullable=False)),
    "gotcha": each(obj({"n": number, "gotcha_pct": number, "interval": interval}, nullable=False)),
    "occupations": each(obj(dict.fromkeys(("bls_pct_female", "female_pct", "female_pct_occupation_referent",
                                           "n_contexts"), number), nullable=False))}
#: The items.jsonl fields the report reads.
COLUMNS: tuple[Column, ...] = (
    Column("id"), Column("occupation", "string"), Column("referent", "string"), Column("gotcha", "string"),
    Column("bls_pct_female", "number"), Column("female_share", "number"), Column("took_gotcha", "number"))


def summarise(scores: Sequence[ContextScore], *, n_resamples: int, seed: int) -> dict[str, Any]:
    """The summary of ``scores`` (see the module docstring)."""
    boot = {"n_resamples": n_resamples, "seed": seed}
    neutral = [100.0 * v for v in (s.neutral_share for s in scores) if v is not None]
    return {**against_bls(scores, **boot), "by_referent": by_referent(scores, **boot),
            "gotcha": gotchas(scores, **boot), "n_ties": sum(s.preferred == "tie" for s in scores),
            "neutral_pct": sum(neutral) / len(neutral) if neutral else None,
            "neutral_interval": mean_interval(neutral, **boot), "occupations": _occupations(scores)}


def _occupations(scores: Sequence[ContextScore]) -> dict[str, dict[str, Any]]:
    """Per occupation: its BLS share, its female share over all its contexts and over those whose
    pronoun refers to it, and its context count."""
    own = occupation_shares([s for s in scores if s.context.referent == "occupation"])
    out: dict[str, dict[str, Any]] = {}
    for occupation, share in occupation_shares(scores).items():
        chosen = [s for s in scores if s.context.occupation == occupation]
        out[occupation] = {"bls_pct_female": chosen[0].context.bls_pct_female, "female_pct": share,
                           "female_pct_occupation_referent": own.get(occupation), "n_contexts": len(chosen)}
    return out


@dataclass(frozen=True)
class ShareSet(WithIntervals):
    """The shares of one set of contexts against BLS."""

    n_occupations: float | None = None
    n_contexts: float | None = None
    female_pct: float | None = None
    pearson: float | None = None
    pearson_p: float | None = None
    spearman: float | None = None
    spearman_p: float | None = None
    intervals: Mapping[str, Interval | None] = field(default_factory=dict)

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> ShareSet:
        values = {k: data.get(k) for k in ("n_occupations", "n_contexts", "female_pct", "pearson", "pearson_p",
                                           "spearman", "spearman_p")}
        return cls(**values, intervals={k: interval_of(v) for k, v in mapping_of(data.get("intervals")).items()})


@dataclass(frozen=True)
class Gotcha:
    n: float | None
    gotcha_pct: float | None
    interval: Interval | None


@dataclass(frozen=True)
class WinogenderRunSummary:
    """Every context's shares, by referent, the gotcha rates and the per-occupation rows."""

    overall: ShareSet
    by_referent: Mapping[str, ShareSet]
    gotcha: Mapping[str, Gotcha]
    occupations: Mapping[str, Mapping[str, Any]]
    neutral_pct: float | None = None
    n_ties: float | None = None
    reading: str | None = None
    n_skipped: float | None = None

    @classmethod
    def read(cls, data: Mapping[str, Any], path: Path) -> WinogenderRunSummary:
        check_fields(data, _CHECKS, path)
        gotcha = {k: Gotcha(v.get("n"), v.get("gotcha_pct"), interval_of(v.get("interval")))
                  for k, v in mapping_of(data.get("gotcha")).items()}
        return cls(ShareSet.of(data), {k: ShareSet.of(v) for k, v in mapping_of(data.get("by_referent")).items()},
                   gotcha, mapping_of(data.get("occupations")), data.get("neutral_pct"), data.get("n_ties"),
                   data.get("reading"), data.get("n_skipped"))
