"""Field checks for what a report reads from a run folder: numbers, strings, objects.

The report's run reader checks the JSON it reads with these (and a benchmark's typed
summary is checked from its type hints, :mod:`.typed`, in the same words) before it is
used, so a damaged folder is one :class:`~biasatlas.errors.DataError` naming file, line and
field, never a traceback from deep inside a table or a plot. Only what is read is checked:
a field a later version adds never fails an old report.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import DataError

#: A check of one value; the name is the field's dotted path, for the error message.
FieldCheck = Callable[[Any, str], None]


class Mismatch(Exception):
    """A value of the wrong type, by dotted field name; :func:`check_fields` turns it into a DataError."""

    def __init__(self, field: str, expected: str, value: Any) -> None:
        super().__init__(field)
        self.field, self.expected, self.value = field, expected, value


def number(value: Any, name: str) -> None:
    """A finite number or null (JSON has no NaN; Python's reader accepts it, the plots do not)."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise Mismatch(name, "a number or null", value)
    if not math.isfinite(value):
        raise Mismatch(name, "a finite number or null", value)


def required_number(value: Any, name: str) -> None:
    if value is None:
        raise Mismatch(name, "a number", value)
    number(value, name)


def string(value: Any, name: str) -> None:
    if value is not None and not isinstance(value, str):
        raise Mismatch(name, "a string or null", value)


def required_string(value: Any, name: str) -> None:
    if not isinstance(value, str):
        raise Mismatch(name, "a string", value)


def obj(fields: Mapping[str, FieldCheck], *, nullable: bool = True) -> FieldCheck:
    """An object whose listed fields, where present, pass their checks."""
    def check(value: Any, name: str) -> None:
        if value is None and nullable:
            return
        if not isinstance(value, dict):
            raise Mismatch(name, "an object or null" if nullable else "an object", value)
        for key, inner in fields.items():
            if key in value:
                inner(value[key], f"{name}.{key}" if name else key)
    return check


def check_fields(value: Mapping[str, Any], checks: Mapping[str, FieldCheck], path: Path,
                 line: int | None = None) -> None:
    """Raise a :class:`DataError` naming ``path``, ``line`` and the first field that fails."""
    try:
        obj(checks)(value, "")
    except Mismatch as bad:
        raise DataError(f"expected {bad.expected}, got {describe(bad.value)}", path=path, line=line,
                        field=bad.field) from None


def check_interval_holds(score: Any, value: Any, path: Path, field: str) -> None:
    """Refuse an interval ``[low, high]`` (already checked as an :data:`Interval`) that runs
    backwards or leaves out its own score, naming ``path`` and ``field``.

    The intervals written (Wilson, Student t) hold their score by construction, so such a
    folder was edited or damaged; the plots draw an interval as arms from the score, and
    matplotlib stopped deep inside ("'xerr' must not contain negative values"). A
    difference within floating-point noise (Wilson's upper end at 100 % can come out as
    99.99999999999999) is no mismatch.
    """
    ends = interval_of(value)
    if ends is None:
        return
    low, high = ends
    slack = 1e-9 * max(1.0, abs(score) if isinstance(score, (int, float)) else 1.0)
    if low is not None and high is not None and low > high + slack:
        raise DataError(f"interval [{low}, {high}] runs backwards (low above high)", path=path, field=field)
    if isinstance(score, (int, float)) and not isinstance(score, bool) and (
            (low is not None and score < low - slack) or (high is not None and score > high + slack)):
        raise DataError(f"interval [{low}, {high}] does not hold its score {score}", path=path, field=field)


def describe(value: Any) -> str:
    """A wrong value, short and on one line, for an error message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f"the string {value[:40]!r}" + ("…" if len(value) > 40 else "")
    if isinstance(value, (int, float)):
        return repr(value)
    return "an object" if isinstance(value, dict) else "a list" if isinstance(value, list) else type(value).__name__


# -- typed reads, after the checks --------------------------------------------------------------
Interval = tuple[float | None, float | None]


@dataclass(frozen=True)
class FragileBound:
    """The per-token bound a run used to call outcomes fragile (:func:`biasatlas.probes.fragile_bound`)."""

    dtype: str | None = None
    token_error: float | None = None


class WithIntervals:
    """Mixin of typed summaries holding ``intervals`` (score name → interval)."""

    intervals: Mapping[str, Interval | None]

    def interval(self, key: str) -> Interval:
        """A score's interval, ``(None, None)`` where the summary has none."""
        return self.intervals.get(key) or (None, None)


def interval_of(value: Any) -> Interval | None:
    """A checked ``[low, high]`` as a pair, ``None`` where absent."""
    return (value[0], value[1]) if isinstance(value, (list, tuple)) and len(value) == 2 else None
