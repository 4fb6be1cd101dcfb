"""Typed errors. The library raises these; the CLI translates them once."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class BiasAtlasError(Exception):
    """Base class of every error biasatlas raises on purpose."""


class DataError(BiasAtlasError, ValueError):
    """Bad input data, located by file, line and field where they are known."""

    def __init__(self, message: str, *, path: object = None, line: int | None = None,
                 field: str | None = None) -> None:
        self.path, self.line, self.field = path, line, field
        where = ", ".join(
            part for part in (
                f"file {path}" if path is not None else "",
                f"line {line}" if line is not None else "",
                f"field {field!r}" if field else "",
            ) if part
        )
        super().__init__(f"{where}: {message}" if where else message)


class ModelError(BiasAtlasError):
    """A model cannot be loaded or cannot be trusted (e.g. a freshly initialised head)."""


class UnsupportedProbe(BiasAtlasError):
    """A scorer was asked a probe kind or variant it cannot answer."""


class UnknownName(BiasAtlasError, KeyError):
    """A registry lookup failed; the message lists what is available."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0])


def did_you_mean(kind: str, name: str, available: Iterable[str]) -> UnknownName:
    """An :class:`UnknownName` for ``name`` listing ``available``, with the closest match."""
    names = sorted(available)
    close = difflib.get_close_matches(name, names, n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    return UnknownName(f"unknown {kind} {name!r}.{hint} Available: {', '.join(names)}")
