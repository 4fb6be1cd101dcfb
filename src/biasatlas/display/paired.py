"""What a paired test between two runs returns: one :class:`PairedTest` per row, gathered in
a :class:`Paired` with the item counts.

Two models scored on the same benchmark items give paired observations, so each
benchmark's view compares them item by item (``compare`` in its ``view.py``, with the
tests of :mod:`biasatlas.stats`) rather than as two independent samples. Items are
matched by a key (:func:`pair_items`); items present in one run only are counted and
left out. Rows inside one family (per category, per keyword pair) get Holm-adjusted p
(:func:`with_holm`). Every row carries the 95 % interval of B − A from a paired bootstrap over
its items (:func:`difference_interval`), whatever test gives its p, so a comparison reads as
an effect with its uncertainty rather than a p alone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..errors import DataError
from ..stats import holm, paired_bootstrap
from ..runs.view import RunView

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True)
class PairedTest:
    """One paired comparison; ``p_holm`` is set for rows inside a Holm family; ``ci_low`` and
    ``ci_high`` bound B − A (95 %, paired bootstrap over the row's items)."""

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
    ci_low: float | None = None
    ci_high: float | None = None

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


def difference_interval(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray, n_resamples: int,
                        seed: int) -> tuple[float | None, float | None]:
    """The 95 % interval of mean(b) − mean(a) over paired per-item values (``a[i]`` and ``b[i]``
    are one item's values in runs A and B): the percentile interval of
    :func:`~biasatlas.stats.paired_bootstrap`, resampling items (both runs' values of an item
    move together). ``(None, None)`` for no items."""
    if len(a) == 0:
        return None, None
    import numpy as np

    _, low, high = paired_bootstrap(np.asarray(b, dtype=float) - np.asarray(a, dtype=float), n_resamples, seed)
    return low, high


def bootstrap_test(scope: str, quantity: str, va: np.ndarray, vb: np.ndarray, n_resamples: int,
                   seed: int) -> PairedTest:
    """One row of a paired bootstrap on per-item values (``va[i]`` and ``vb[i]`` are one item's
    values in runs A and B): both means, and the p and 95 % interval of mean(vb) − mean(va) from
    :func:`~biasatlas.stats.paired_bootstrap`, resampling items."""
    p, low, high = paired_bootstrap(vb - va, n_resamples, seed)
    return PairedTest(scope, quantity, len(va), float(va.mean()), float(vb.mean()), None, p,
                      f"paired bootstrap ({n_resamples}, seed {seed})", ci_low=low, ci_high=high)


def with_holm(tests: Sequence[PairedTest], family: Callable[[PairedTest], bool]) -> tuple[PairedTest, ...]:
    """The tests with Holm-adjusted p on the rows of one ``family`` (the others unchanged)."""
    members = [i for i, t in enumerate(tests) if family(t)]
    adjusted = holm([tests[i].p for i in members])
    out = list(tests)
    for i, p in zip(members, adjusted):
        out[i] = replace(out[i], p_holm=p)
    return tuple(out)
