"""The report's table model: a :class:`Table` of raw cells, and the typed cells that print
differently from plain numbers (:class:`CI`, :class:`PValue`). Formatting happens once, in
:func:`cell_text`, so every renderer (:mod:`.tables`: terminal, Markdown, LaTeX, CSV; the HTML
report) shows the same digits.

It sits below the renderers and the helpers that cut a table (:mod:`.split`), so they import it
without importing each other.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


#: How a collapsed interval (low = high) prints: "[0.0, 0.0]" would read as certainty.
NO_SPREAD = "no spread"
#: The caption sentence a table with a collapsed interval gets (added by :class:`Table`).
NO_SPREAD_NOTE = ("No spread: that 95% interval is a single point, because every resample (or every item) "
                  "gave the same value; it says nothing about certainty.")


def interval_text(low: float | None, high: float | None, digits: int = 1) -> str:
    """``[low, high]`` with ``digits`` decimals; "–" when an end is missing; :data:`NO_SPREAD`
    when both ends are equal (a bootstrap whose resamples all agree, items all alike)."""
    if low is None or high is None:
        return "–"
    if low == high:
        return NO_SPREAD
    return f"[{low:.{digits}f}, {high:.{digits}f}]"


@dataclass(frozen=True)
class CI:
    """A confidence interval, printed ``[low, high]`` (one decimal unless ``digits``), or
    :data:`NO_SPREAD` when it collapsed to a point (:func:`interval_text`)."""

    low: float | None
    high: float | None
    digits: int = 1

    @property
    def collapsed(self) -> bool:
        return self.low is not None and self.low == self.high

    def __str__(self) -> str:
        return interval_text(self.low, self.high, self.digits)


@dataclass(frozen=True)
class PValue:
    """A p-value, printed with three significant digits (``<1e-300`` below float range)."""

    value: float | None

    def __str__(self) -> str:
        if self.value is None or not math.isfinite(self.value):
            return "–"
        return "<1e-300" if self.value == 0 else f"{self.value:.3g}"


@dataclass(frozen=True)
class Table:
    """Rows of raw cells under named columns, with a title and an optional caption."""

    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    caption: str = ""
    numeric: tuple[bool, ...] = field(default=())

    def __post_init__(self) -> None:
        for i, row in enumerate(self.rows):
            if len(row) != len(self.columns):
                raise ValueError(f"table {self.title!r}: row {i} has {len(row)} cells, "
                                 f"expected {len(self.columns)}")
        if not self.numeric:
            object.__setattr__(self, "numeric", tuple(_numeric_column(self.rows, i)
                                                      for i in range(len(self.columns))))
        collapsed = any(isinstance(c, CI) and c.collapsed for row in self.rows for c in row)
        if collapsed and NO_SPREAD_NOTE not in self.caption:  # every output explains the words
            object.__setattr__(self, "caption", f"{self.caption} {NO_SPREAD_NOTE}".strip())

    def text_rows(self) -> list[list[str]]:
        return [[cell_text(c) for c in row] for row in self.rows]


def _numeric_column(rows: Sequence[Sequence[Any]], index: int) -> bool:
    cells = [r[index] for r in rows if r[index] is not None]
    return bool(cells) and all(isinstance(c, (int, float, CI, PValue)) and not isinstance(c, bool)
                               for c in cells)


def cell_text(value: Any) -> str:
    """The one formatting rule: 2 decimals for floats, '–' for missing values."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return "–" if not math.isfinite(value) else f"{value:.2f}"
    if isinstance(value, list | tuple):  # a setting of several values (bias types)
        return ", ".join(map(cell_text, value)) or "–"
    return str(value)
