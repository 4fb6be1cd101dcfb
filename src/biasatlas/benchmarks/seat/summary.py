"""A SEAT/WEAT summary: one row per test (d, its interval, p and Holm's p), the headline, and its read-back.

The headline is bias-bench's "SEAT (overall)" form, the mean |d| over the tests that gave an
effect size; beside it the number of tests significant at Holm-adjusted p < 0.05 and the
words out of vocabulary (WEAT), so a test scored on fewer words than its file is never hidden.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ...runs.view import Column
from ...runs.typed import Summary

TEST_FIELDS = ("d", "d_low", "d_high", "p", "p_holm", "p_mc_error", "partitions", "n_targ1", "n_targ2", "n_attr1",
               "n_attr2", "n_oov")
#: The four word sets of a test, in the order the tables show them (X, Y, A, B).
ROLES = ("targ1", "targ2", "attr1", "attr2")
TEST_STRINGS = ("p_method", *(f"{r}_category" for r in ROLES))
#: The items.jsonl fields the report reads.
COLUMNS: tuple[Column, ...] = (Column("id"), Column("test", "string"), Column("d", "number?", required=False),
                               Column("p", "number?", required=False), Column("p_holm", "number?", required=False))


def summarise(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The summary of per-test ``records`` (:meth:`.benchmark.AssociationBenchmark._record`)."""
    scored = [r for r in records if r["d"] is not None]
    oov = sorted({w for r in records for words in r["oov"].values() for w in words})
    tests = {r["test"]: {k: r[k] for k in (*TEST_FIELDS, *TEST_STRINGS) if k in r} for r in records}
    return {"n_tests": len(records), "n_scored": len(scored),
            "mean_abs_d": sum(abs(r["d"]) for r in scored) / len(scored) if scored else None,
            "n_significant": sum(1 for r in scored if r["p_holm"] is not None and r["p_holm"] < 0.05),
            "n_oov": sum(r["n_oov"] for r in records), "oov_words": oov, "tests": tests}


@dataclass(frozen=True)
class TestRow:
    """One test as the report reads it (``name`` is its key in the summary's ``tests``)."""

    d: float | None = None
    d_low: float | None = None
    d_high: float | None = None
    p: float | None = None
    p_holm: float | None = None
    p_method: str | None = None
    p_mc_error: float | None = None
    n_targ1: float | None = None
    n_targ2: float | None = None
    n_attr1: float | None = None
    n_attr2: float | None = None
    n_oov: float | None = None
    targ1_category: str | None = None
    targ2_category: str | None = None
    attr1_category: str | None = None
    attr2_category: str | None = None
    name: str = ""

    @property
    def sizes(self) -> tuple[float | None, ...]:
        """|X|, |Y|, |A|, |B|: the words with a vector."""
        return tuple(getattr(self, f"n_{r}") for r in ROLES)

    @property
    def categories(self) -> tuple[str | None, ...]:
        return tuple(getattr(self, f"{r}_category") for r in ROLES)


@dataclass(frozen=True)
class SeatRunSummary(Summary):
    """The headline and every test's row, in the run's order."""

    n_tests: float | None = None
    n_scored: float | None = None
    mean_abs_d: float | None = None
    n_significant: float | None = None
    n_oov: float | None = None
    pooling: str | None = None
    oov_words: tuple[str, ...] = ()
    tests: Mapping[str, TestRow] = field(default_factory=dict)

    @property
    def rows(self) -> tuple[TestRow, ...]:
        """Every test's row, named, in the run's order."""
        return tuple(replace(row, name=name) for name, row in self.tests.items())
