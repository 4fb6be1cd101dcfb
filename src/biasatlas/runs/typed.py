"""One reader for every typed summary: the checks come from the record's type hints.

A benchmark's summary.json is read back as a frozen dataclass (``summary.py`` in its
folder) whose fields say what the report reads and of which type. :func:`read_typed`
walks those hints and the JSON together, so a damaged folder is one
:class:`~biasatlas.errors.DataError` naming file and dotted field (``by_category.gender.ci[0]``),
with the messages of :mod:`biasatlas.runs.checks` ("expected a number or null, got the string '50%'").

What a hint means:

- ``float`` / ``int``: a finite number (an ``int`` hint wants a whole one); a value keeps
  the type it was written with (a count written ``12`` stays an int).
- ``str``, ``bool``, ``Literal[...]``: that, or one of those values.
- ``X | None``: ``X`` or null.
- ``tuple[X, ...]`` / ``list[X]``: a list, each entry ``X`` (``field[i]`` in errors);
  ``tuple[X, Y]``: a list of exactly those (``[low, high]`` for an :data:`biasatlas.runs.checks.Interval`).
- ``Mapping[str, X]`` / ``dict[str, X]``: an object whose every value is ``X`` (``field.key``).
- a frozen dataclass: an object whose fields, where present, are read alike; a field
  marked :func:`same_object` reads the enclosing object itself (a set of scores written at
  the top of the summary, beside the other sets).
- a ``TypedDict`` (``total=False``): an object whose named keys, where present, are
  checked (null only where the hint says ``| None``); it stays a dict, with every key it had.
- ``Any``: anything, unchecked.

A dataclass field that is absent or null takes its default: a field a later version adds
never fails an old report, and a key the record does not name is never read, so summaries
that gain keys (``detectable``, ``lint``) keep reading. Inside a list or an object's
values null is a value like any other, accepted only where the hint says ``| None``.
"""

from __future__ import annotations

import dataclasses
import math
import types
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any, Literal, Self, TypeVar, Union, get_args, get_origin, get_type_hints, is_typeddict

from ..errors import DataError
from .checks import Interval, Mismatch, describe

T = TypeVar("T")
_SAME_OBJECT = "biasatlas.same_object"
_WHEN_SET = "biasatlas.when_set"
#: What a wrong value was expected to be, by hint, where the hint's own words would not say it.
_PHRASES: Mapping[Any, str] = {Interval: "an interval [low, high]"}


def same_object(kind: type[T]) -> T:
    """A dataclass field read from the object that holds it, not from a key of it (BBQ's overall
    scores sit at the top of summary.json, beside ``sets`` of the same shape)."""
    return dataclasses.field(default_factory=kind, metadata={_SAME_OBJECT: True})  # type: ignore[return-value]


def part(kind: type[T]) -> T | None:
    """A dataclass field whose fields summary.json holds in its own place, as :func:`same_object`,
    but only in the runs that have them (a census method's own keys): None writes none of them,
    and a summary holding none of them reads it as None."""
    return dataclasses.field(default=None, metadata={_SAME_OBJECT: True})  # type: ignore[no-any-return]


def when_set(default: Any = None) -> Any:
    """A dataclass field that summary.json holds only while it is not None (a key older runs and
    some readings never wrote): :func:`encode` leaves it out when None."""
    return dataclasses.field(default=default, metadata={_WHEN_SET: True})


def encode(record: Any) -> Any:
    """``record`` as JSON holds it, the inverse of :func:`read_typed`: a dataclass as an object of
    its fields in declaration order (a :func:`same_object` field's fields in its place, none for
    None, a :func:`when_set` field only when not None), mappings and sequences entry by entry, and any
    other value as it is. A benchmark's typed summary is what is written: one type, written and
    read (as HELM's codec writes and reads one dataclass)."""
    if dataclasses.is_dataclass(record) and not isinstance(record, type):
        out: dict[str, Any] = {}
        for f in dataclasses.fields(record):
            value = getattr(record, f.name)
            if f.metadata.get(_SAME_OBJECT):
                out.update(encode(value) if value is not None else {})
            elif not (value is None and f.metadata.get(_WHEN_SET)):
                out[f.name] = encode(value)
        return out
    if isinstance(record, Mapping):
        return {key: encode(value) for key, value in record.items()}
    if isinstance(record, (list, tuple)):
        return [encode(value) for value in record]
    return record


def read_typed(kind: type[T], data: Mapping[str, Any], path: Path, line: int | None = None) -> T:
    """``data`` read as ``kind`` (a dataclass), or a :class:`DataError` naming ``path``,
    ``line`` and the first field that fails."""
    try:
        return _value(kind, data, "", nullable=False)  # type: ignore[no-any-return]
    except Mismatch as bad:
        raise DataError(f"expected {bad.expected}, got {describe(bad.value)}", path=path, line=line,
                        field=bad.field) from None


class Summary:
    """Mixin of typed summaries: ``read`` from the type hints, then :meth:`check`."""

    @classmethod
    def read(cls, data: Mapping[str, Any], path: Path) -> Self:
        """Check ``data`` (a :class:`DataError` names ``path`` and the field), then type it."""
        typed = read_typed(cls, data, path)
        typed.check(path)
        return typed

    def check(self, path: Path) -> None:
        """What the types cannot say (an interval that holds its score); nothing by default."""


def _value(hint: Any, value: Any, name: str, *, nullable: bool) -> Any:
    """``value`` checked against ``hint`` and converted (lists to tuples where the hint says so)."""
    inner, optional = _unwrap(hint)
    if value is None:
        if optional or nullable:
            return None
        raise Mismatch(name, _phrase(inner, False), value)
    if inner is Any or inner is object:
        return value
    if dataclasses.is_dataclass(inner) or is_typeddict(inner):
        return _record(inner, _object(inner, value, name, optional or nullable), name)
    origin, args = get_origin(inner), get_args(inner)
    if origin in (dict, Mapping):
        return {key: _value(args[1], item, f"{name}.{key}", nullable=False)
                for key, item in _object(inner, value, name, optional or nullable).items()}
    if origin in (tuple, list, Sequence):
        return _sequence(inner, origin, args, value, name, optional or nullable)
    return _scalar(inner, value, name, optional or nullable)


def _record(kind: Any, value: Mapping[str, Any], name: str) -> Any:
    """A dataclass from the fields ``value`` has (the rest take their defaults), or a TypedDict
    with its named keys checked."""
    hints = _hints(kind)
    if is_typeddict(kind):
        return {**value, **{key: _value(hints[key], value[key], _join(name, key), nullable=False)
                            for key in hints if key in value}}
    read: dict[str, Any] = {}
    for f in dataclasses.fields(kind):
        if f.metadata.get(_SAME_OBJECT):
            inner, optional = _unwrap(hints[f.name])
            if not optional or any(g.name in value for g in dataclasses.fields(inner)):  # a part: when present
                read[f.name] = _record(inner, value, name)
        elif value.get(f.name) is not None:  # absent or null: the default
            read[f.name] = _value(hints[f.name], value[f.name], _join(name, f.name), nullable=True)
    return kind(**read)


def _sequence(hint: Any, origin: Any, args: tuple[Any, ...], value: Any, name: str, nullable: bool) -> Any:
    fixed = origin is tuple and not (len(args) == 2 and args[1] is Ellipsis)
    if not isinstance(value, list) or (fixed and len(value) != len(args)):
        raise Mismatch(name, _phrase(hint, nullable), value)
    kinds = args if fixed else [args[0]] * len(value)
    items = [_value(k, item, f"{name}[{i}]", nullable=False) for i, (k, item) in enumerate(zip(kinds, value))]
    return items if origin is list else tuple(items)


def _scalar(hint: Any, value: Any, name: str, nullable: bool) -> Any:
    if get_origin(hint) is Literal:
        ok = value in get_args(hint) and not isinstance(value, bool)
    elif hint is bool:
        ok = isinstance(value, bool)
    elif hint in (int, float):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        if ok and not math.isfinite(value):  # JSON has no NaN; Python's reader accepts it, the plots do not
            raise Mismatch(name, "a finite number" + (" or null" if nullable else ""), value)
        ok = ok and (hint is float or float(value).is_integer())
    elif hint is str:
        ok = isinstance(value, str)
    else:
        raise TypeError(f"a typed summary cannot read the hint {hint!r} (field {name!r})")
    if not ok:
        raise Mismatch(name, _phrase(hint, nullable), value)
    return value


def _object(hint: Any, value: Any, name: str, nullable: bool) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise Mismatch(name, _phrase(hint, nullable), value)
    return value


def _phrase(hint: Any, nullable: bool) -> str:
    """What ``hint`` expects, in the words of :mod:`biasatlas.runs.checks` (``a number or null``)."""
    origin = get_origin(hint)
    if hint in _PHRASES:
        words = _PHRASES[hint]
    elif origin is Literal:
        words = "one of " + ", ".join(repr(v) for v in get_args(hint))
    elif origin in (tuple, list, Sequence):
        words = "a list"
    elif hint is bool:
        words = "true or false"
    else:
        words = {int: "a whole number", float: "a number", str: "a string"}.get(hint, "an object")
    return words + (" or null" if nullable else "")


def _unwrap(hint: Any) -> tuple[Any, bool]:
    """``X | None`` as ``(X, True)``; any other hint as ``(hint, False)``."""
    if get_origin(hint) in (Union, types.UnionType):
        rest = [a for a in get_args(hint) if a is not type(None)]
        if len(rest) != 1:
            raise TypeError(f"a typed summary reads one type or null, not {hint!r}")
        return rest[0], len(rest) < len(get_args(hint))
    return hint, False


@cache
def _hints(kind: Any) -> dict[str, Any]:
    """The resolved type hints of a record, inherited fields too (each in its own module's names)."""
    return get_type_hints(kind)


def _join(name: str, key: str) -> str:
    return f"{name}.{key}" if name else key
