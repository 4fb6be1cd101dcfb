"""A suite file's values read as the options' types: TOML gives strings, numbers, booleans and
lists; a benchmark, model or engine option wants its declared type (a ``Literal``'s choices, a
path relative to the suite file, a tuple). :func:`coerce` converts one value by the option's
type hint, or raises :class:`Mismatch` saying what was expected (:mod:`biasatlas.suite.grid` adds the
file, table and key).
"""

from __future__ import annotations

import os
import types
import typing
from pathlib import Path
from typing import Any, Literal

from ..errors import did_you_mean
from ..request import literal_values


def relative_to(base: Path, value: str) -> Path:
    """A path written in the suite file: relative to the file's folder, ``~`` expanded."""
    written = Path(value).expanduser()
    return Path(os.path.abspath(written if written.is_absolute() else base / written))


class Mismatch(Exception):
    """A TOML value that does not fit the option's type; the message says what was expected."""


def coerce(value: Any, hint: Any, base: Path) -> Any:
    """``value`` as the benchmark option typed ``hint`` takes it: paths relative to the suite
    file, lists as tuples; a wrong type or a value outside a ``Literal``'s choices raises."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        arms = [a for a in args if a is not type(None)]
        choices = [c for a in arms for c in literal_values(a)]
        for arm in (a for a in arms if not literal_values(a)):
            try:
                return coerce(value, arm, base)
            except Mismatch:
                continue
        if choices and all(literal_values(a) for a in arms):
            return coerce(value, Literal[tuple(choices)], base)
        if value in choices:
            return value
        expected = [*(_name(a) for a in arms if not literal_values(a)), *(repr(c) for c in choices)]
        raise Mismatch(f"expected {' or '.join(expected)}, got {value!r}")
    if origin is Literal:
        if value in args:
            return value
        # `types = 1` in TOML is a number where the choices are text ("1", "2", "both"); the command
        # line reads `--types 1` as the text, so the file's number means the same choice.
        if isinstance(value, int) and not isinstance(value, bool) and str(value) in args:
            return str(value)
        raise Mismatch(str(did_you_mean("value", str(value), [str(a) for a in args])))
    if origin is tuple and isinstance(value, list):
        item = args[0] if args else Any
        return tuple(coerce(v, item, base) for v in value)
    if hint is Any:
        return tuple(value) if isinstance(value, list) else value
    if hint is Path and isinstance(value, str):
        return relative_to(base, value)
    if hint is bool and isinstance(value, bool):
        return value
    if hint is int and isinstance(value, int) and not isinstance(value, bool):
        return value
    if hint is float and isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if hint is str and isinstance(value, str):
        return value
    raise Mismatch(f"expected {_name(hint)}, got {value!r}")


def _name(hint: Any) -> str:
    if hint is Path:
        return "a path (string)"
    if typing.get_origin(hint) is tuple:
        return "a list"
    return {bool: "true or false", int: "an integer", float: "a number", str: "a string"}.get(hint, str(hint))
