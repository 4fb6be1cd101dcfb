"""A SEAT/WEAT summary: one row per test (d, its interval, p and Holm's p), the headline, and its read-back.

The headline is bias-bench's "SEAT (overall)" form, the mean |d| over the tests that gave an
effect size; beside it the number of tests significant at Holm-adjusted p < 0.05 and the
words out of vocabulary (WEAT), so a test scored on fewer words than its file is never hidden.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...display.checks import FieldCheck, check_fields, each, listed, number, obj, string
from ...display.runview import Column

TEST_FIELDS = ("d", "d_low", "d_high", "p", "p_holm", "p_mc_error", "partitions", "n_targ1", "n_targ2", "n_attr1",
               "n_attr2", "n_oov")
_TEST_CHECKS: dict[str, FieldCheck] = {**dict.fromkeys(TEST_FIELDS, number), "p_method": string,
                                       "targ1_category": string, "targ2_category": string,
                                       "attr1_category": string, "attr2_category": string}
_CHECKS: dict[str, FieldCheck] = {"n_tests": number, "n_scored": number, "mean_abs_d": number, "n_significant": number,
                                  "n_oov": number, "pooling": string, "tests": each(obj(_TEST_CHECKS)),
                                  "oov_words": listed(string)}
#: The items.jsonl fields the report reads.
COLUMNS: tuple[Column, ...] = (Column("id"), Column("test", "string"), Column("d", "number?", required=False),
                               Column("p", "number?", required=False), Column("p_holm", "number?", required=False))


def summarise(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The summary of per-test ``records`` (:meth:`.benchmark.AssociationBenchmark._record`)."""
    scored = [r for r in records if r["d"] is not None]
    oov = sorted({w for r in records for words in r["oov"].values() for w in words})
    tests = {r["test"]: {k: r[k] for k in (*TEST_FIELDS, *_TEST_CHECKS) if k in r} for r in records}
    return {"n_tests": len(records), "n_scored": len(scored),
            "mean_abs_d": sum(abs(r["d"]) for r in scored) / len(scored) if scored else None,
            "n_significant": sum(1 for r in scored if r["p_holm"] is not None and r["p_holm"] < 0.05),
            "n_oov": sum(r["n_oov"] for r in records), "oov_words": oov, "tests": tests}


@dataclass(frozen=True)
class TestRow:
    """One test as the report reads it."""

    name: str
    d: float | None
    d_low: float | None
    d_high: float | None
    p: float | None
    p_holm: float | None
    p_method: str | None
    p_mc_error: float | None
    sizes: tuple[Any, ...]
    n_oov: Any
    categories: tuple[str | None, ...]

    @classmethod
    def of(cls, name: str, data: Mapping[str, Any]) -> TestRow:
        sizes = tuple(data.get(f"n_{r}") for r in ("targ1", "targ2", "attr1", "attr2"))
        categories = tuple(data.get(f"{r}_category") for r in ("targ1", "targ2", "attr1", "attr2"))
        return cls(name, data.get("d"), data.get("d_low"), data.get("d_high"), data.get("p"), data.get("p_holm"),
                   data.get("p_method"), data.get("p_mc_error"), sizes, data.get("n_oov"), categories)


@dataclass(frozen=True)
class SeatRunSummary:
    """The headline and every test's row, in the run's order."""

    n_tests: Any
    n_scored: Any
    mean_abs_d: float | None
    n_significant: Any
    n_oov: Any
    pooling: str | None
    oov_words: tuple[str, ...]
    tests: tuple[TestRow, ...]

    @classmethod
    def read(cls, data: Mapping[str, Any], path: Path) -> SeatRunSummary:
        check_fields(data, _CHECKS, path)
        tests = tuple(TestRow.of(name, row) for name, row in (data.get("tests") or {}).items())
        return cls(data.get("n_tests"), data.get("n_scored"), data.get("mean_abs_d"), data.get("n_significant"),
                   data.get("n_oov"), data.get("pooling"), tuple(data.get("oov_words") or ()), tests)
