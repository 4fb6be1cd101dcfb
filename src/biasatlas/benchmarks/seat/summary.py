"""A SEAT/WEAT summary: one row per test (d, its interval, p and Holm's p), the headline, and its read-back.

The headline is bias-bench's "SEAT (overall)" form, the mean |d| over the tests that gave an
effect size; beside it the number of tests significant at Holm-adjusted p < 0.05 and the
words out of vocabulary (WEAT), so a test scored on fewer words than its file is never hidden.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from ...runs.view import Column
from ...runs.typed import Summary

#: The four word sets of a test, in the order the tables show them (X, Y, A, B).
ROLES = ("targ1", "targ2", "attr1", "attr2")
#: The items.jsonl fields the report reads.
COLUMNS: tuple[Column, ...] = (Column("id"), Column("test", "string"), Column("d", "number?", required=False),
                               Column("p", "number?", required=False), Column("p_holm", "number?", required=False))


@dataclass(frozen=True)
class TestRow:
    """One test as the report reads it (``name`` is its key in the summary's ``tests``)."""

    d: float | None = None
    d_low: float | None = None
    d_high: float | None = None
    p: float | None = None
    p_holm: float | None = None
    p_mc_error: float | None = None
    partitions: float | None = None
    n_targ1: float | None = None
    n_targ2: float | None = None
    n_attr1: float | None = None
    n_attr2: float | None = None
    n_oov: float | None = None
    p_method: str | None = None
    targ1_category: str | None = None
    targ2_category: str | None = None
    attr1_category: str | None = None
    attr2_category: str | None = None

    @property
    def sizes(self) -> tuple[float | None, ...]:
        """|X|, |Y|, |A|, |B|: the words with a vector."""
        return tuple(getattr(self, f"n_{r}") for r in ROLES)

    @property
    def categories(self) -> tuple[str | None, ...]:
        return tuple(getattr(self, f"{r}_category") for r in ROLES)


@dataclass(frozen=True)
class NamedTestRow(TestRow):
    """A test's row with its name, as the tables show it (the name is the row's key where written)."""

    name: str = ""


@dataclass(frozen=True)
class SeatRunSummary(Summary):
    """The headline and every test's row, in the run's order, and what the p-values and the
    bootstrap were computed with."""

    n_tests: float | None = None
    n_scored: float | None = None
    mean_abs_d: float | None = None
    n_significant: float | None = None
    n_oov: float | None = None
    oov_words: tuple[str, ...] = ()
    tests: Mapping[str, TestRow] = field(default_factory=dict)
    pooling: str | None = None
    n_samples: float | None = None
    seed: float | None = None

    @property
    def rows(self) -> tuple[NamedTestRow, ...]:
        """Every test's row, named, in the run's order."""
        return tuple(NamedTestRow(**{f.name: getattr(row, f.name) for f in fields(row)}, name=name)
                     for name, row in self.tests.items())


def summarise(records: Sequence[Mapping[str, Any]], *, pooling: str, n_samples: int, seed: int) -> SeatRunSummary:
    """The summary of per-test ``records`` (:meth:`.benchmark.AssociationBenchmark._record`)."""
    scored = [r for r in records if r["d"] is not None]
    oov = sorted({w for r in records for words in r["oov"].values() for w in words})
    tests = {r["test"]: TestRow(**{f.name: r[f.name] for f in fields(TestRow)}) for r in records}
    return SeatRunSummary(len(records), len(scored), sum(abs(r["d"]) for r in scored) / len(scored) if scored else None,
                          sum(1 for r in scored if r["p_holm"] is not None and r["p_holm"] < 0.05),
                          sum(r["n_oov"] for r in records), tuple(oov), tests, pooling, n_samples, seed)
