"""What a paired test between two runs returns: one :class:`PairedTest` per row, gathered in
a :class:`Paired` with the item counts.

Two models scored on the same benchmark items give paired observations, so each
benchmark's view compares them item by item (``compare`` in its ``view.py``, with the
tests of :mod:`biasatlas.stats`) rather than as two independent samples. Items are
matched by a key (:func:`pair_items`); items present in one run only are counted and
left out. Rows inside one family (per category, per keyword pair) get Holm-adjusted p
(:func:`with_holm`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..errors import DataError
from ..stats import holm
from .runview import RunView


@dataclass(frozen=True)
class PairedTest:
    """One paired comparison; ``p_holm`` is set for rows inside a Holm family."""

    scope: str
    quantity: str
    n: int
    value_a: float | None
    value_b: float | None
    statistic: float | None
    p: float | None
    method: str
    p_holm: float | None = None
    detail: str = ""

    @property
    def difference(self) -> float | None:
        """B − A, in the units of the quantity."""
        if self.value_a is None or self.value_b is None:
            return None
        return self.value_b - self.value_a


@dataclass(frozen=True)
class Paired:
    """A benchmark's paired tests of run B against run A, and how many items were paired."""

    tests: tuple[PairedTest, ...]
    n_paired: int
    n_only_a: int
    n_only_b: int


def pair_items(a: RunView, b: RunView, key: str
               ) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]], int, int]:
    """The records both runs hold, matched on ``key``, in A's order; and the counts of the rest."""
    ia = {str(r[key]): r for r in a.records}
    ib = {str(r[key]): r for r in b.records}
    shared = [k for k in ia if k in ib]
    if not shared:
        raise DataError(f"runs {a.path} and {b.path} share no items: compare runs of the same dataset")
    return [ia[k] for k in shared], [ib[k] for k in shared], len(ia) - len(shared), len(ib) - len(shared)


def with_holm(tests: Sequence[PairedTest], family: Callable[[PairedTest], bool]) -> tuple[PairedTest, ...]:
    """The tests with Holm-adjusted p on the rows of one ``family`` (the others unchanged)."""
    members = [i for i, t in enumerate(tests) if family(t)]
    adjusted = holm([tests[i].p for i in members])
    out = list(tests)
    for i, p in zip(members, adjusted):
        out[i] = replace(out[i], p_holm=p)
    return tuple(out)
