"""How a run's option is declared and checked: a dataclass field carrying its help, its flag's
placeholder and whether it changes a score (:func:`option`), and the check of a value against
the field's annotation (:func:`check_type`), made once where a request record is built.

The fields of :class:`~biasatlas.model_options.ModelOptions` and
:class:`~biasatlas.engine_options.EngineOptions` are declared with :func:`option`; a
benchmark factory's keywords and a suite file's values are checked with :func:`check_type`
against their annotations, and a closed set is read from a ``Literal`` by :func:`literal_values`.
"""

from __future__ import annotations

import os
import types
import typing
from collections.abc import Callable
from dataclasses import field, fields
from pathlib import Path
from typing import Any, Literal

from .errors import UsageError

__all__ = ["check_fields", "check_label", "check_type", "literal_values", "option"]


def option(default: Any, help: str, *, unscored: bool = False, when_set: bool = False,
            minimum: float | None = None, metavar: str | None = None, by_version: bool = False) -> Any:
    """A field with what the run record and the command line need to know of it: ``unscored``,
    it changes how scores are computed, never what they are (left out of the recorded request);
    ``when_set``, it is recorded only when set (older run folders lack it); ``by_version``, a
    benchmark's default fills it where the run sets none, and the request records it only when
    the run set it (the benchmark's version names its default; the scorer's provenance records
    the value in effect); ``help`` and ``minimum`` and ``metavar`` (its placeholder) for
    ``biasatlas run``'s flag of the same name."""
    return field(default=default, metadata={"help": help, "unscored": unscored, "when_set": when_set,
                                            "minimum": minimum, "metavar": metavar, "by_version": by_version})


def literal_values(hint: Any) -> tuple[Any, ...]:
    """The values a ``Literal`` hint allows, or the ``Literal`` arms of a union (``Auto | Reading``)
    allow; () for a hint with none. How the suite and the command line read a closed set."""
    if typing.get_origin(hint) is Literal:
        return typing.get_args(hint)
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return tuple(c for arm in typing.get_args(hint) for c in literal_values(arm))
    return ()


def check_type(name: str, value: object, hint: Any) -> None:
    """Refuse ``value`` for the option ``name`` unless it is of the type ``hint`` (a field's or
    a benchmark factory's annotation) with a :class:`UsageError` naming the option and what
    it takes. Checked once, where a request is built, so that ``lowercase="no"`` is refused
    rather than read as true and ``tie_decimals="3"`` is not a TypeError deep in the scoring.
    A bool is no number here (``tie_decimals=True``), and a string is no list (``pairs="ab"``).
    A ``Literal`` asks for its values' type only: the record's own check names a string
    outside the set with its choices (``unknown dtype 'x'. Available: …``)."""
    if not _fits(value, hint):
        wanted = " or ".join(dict.fromkeys(_describe(a) for a in _arms(hint)))
        raise UsageError(f"option {name!r} takes {wanted}, not {value!r}")


def _arms(hint: Any) -> tuple[Any, ...]:
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return typing.get_args(hint)
    return (hint,)


def _fits(value: object, hint: Any) -> bool:
    """Whether ``value`` is of type ``hint`` (the hints options use: unions, ``Literal``,
    ``tuple[X, ...]``, paths, and the plain types; anything else is taken on trust)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any or hint is object:
        return True
    if origin in (typing.Union, types.UnionType):
        return any(_fits(value, arm) for arm in args)
    if origin is Literal:
        return type(value) in {type(a) for a in args}
    if origin is tuple:
        return isinstance(value, (list, tuple)) and all(_fits(v, args[0] if args else Any) for v in value)
    simple: dict[Any, Callable[[object], bool]] = {
        type(None): lambda v: v is None,
        bool: lambda v: isinstance(v, bool),
        int: lambda v: isinstance(v, int) and not isinstance(v, bool),
        float: lambda v: isinstance(v, int | float) and not isinstance(v, bool),
        str: lambda v: isinstance(v, str),
        os.PathLike: lambda v: isinstance(v, str | os.PathLike),
    }
    check = simple.get(os.PathLike if hint is Path else hint)
    if check is not None:
        return check(value)
    return not isinstance(hint, type) or isinstance(value, hint)


def _describe(hint: Any) -> str:
    """How an error names what a type takes (``True or False``, ``a whole number`` …)."""
    if typing.get_origin(hint) is Literal:
        return " or ".join(repr(a) for a in typing.get_args(hint))
    if typing.get_origin(hint) is tuple:
        return "a list"
    names = {type(None): "None", bool: "True or False", int: "a whole number", float: "a number",
             str: "a string", Path: "a path"}
    return names.get(hint, getattr(hint, "__name__", str(hint)))


def check_fields(record: Any) -> None:
    """Each field of a dataclass ``record`` against its annotation (:func:`check_type`)."""
    hints = typing.get_type_hints(type(record))
    for f in fields(record):
        check_type(f.name, getattr(record, f.name), hints[f.name])


def check_label(label: object) -> str:
    """A run's label as reports show it: text on one line, not empty (``--label``, ``report
    --label DIR=NAME``)."""
    if not isinstance(label, str) or not label.strip() or any(c in label for c in "\n\r"):
        raise UsageError(f"a label is one line of text, not {label!r}")
    return label.strip()
