"""Typed errors. The library raises these; the CLI translates them once.

Each class carries the exit status the command line ends with (``exit_code``), so the
CLI has one rule for every error: 2 for a usage mistake the user fixes by changing the
command (an unknown name, a bad value, a path that does not exist, a bad ``--out``), 1 for
a failure at run time (a malformed file, a model that cannot be loaded, an unreachable
hub). A class that says nothing is a usage mistake, as most deliberate refusals are.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Iterable


class BiasAtlasError(Exception):
    """Base class of every error biasatlas raises on purpose."""

    #: The command line's exit status for this error: 2 usage mistake, 1 run-time failure.
    exit_code: int = 2


class UsageError(BiasAtlasError, ValueError):
    """A value or combination of settings that cannot work (a CUDA device on a CPU-only
    torch, a variant the scorer does not have): fixed by changing the command."""

    exit_code = 2


class DataError(BiasAtlasError, ValueError):
    """Bad input data, located by file, line and field where they are known.

    A failure at run time (exit 1): the file exists but its contents cannot be used.
    """

    exit_code = 1

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


class MissingInput(DataError):
    """An input is missing: a file or folder the user named does not exist, or none was
    given where one is needed. A usage mistake (exit 2), unlike the malformed contents of
    a file that does exist."""

    exit_code = 2


class OutputRefused(BiasAtlasError):
    """An output path this command may not write: an input of the command, a file or folder of
    another kind, or a file biasatlas did not write (:mod:`biasatlas.outputs`). A usage mistake
    (exit 2): the fix is another ``--out``."""

    exit_code = 2


class ModelError(BiasAtlasError):
    """A model cannot be loaded or cannot be trusted (e.g. a freshly initialised head), or
    its hub is out of reach: a failure at run time (exit 1)."""

    exit_code = 1


class ModelNotFound(ModelError):
    """The model named is no folder that exists, no packaged model and no hub id: a usage
    mistake (exit 2), caught before anything loads."""

    exit_code = 2


class UnsupportedProbe(BiasAtlasError):
    """A scorer was asked a probe kind or variant it cannot answer."""


class UnscorableProbe(UnsupportedProbe):
    """One probe this scorer cannot answer, though it answers its kind: a text longer than the
    model's maximum, a filler with no token of its own, a word outside its vocabulary. The
    probe is skipped with this reason, however many of its neighbours share it; only a run in
    which no probe at all could be answered stops."""


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C during scoring, with what was kept: ``kept`` of ``total`` answers are in the score
    cache (every finished chunk is committed as it arrives, and the finished batches of the chunk
    Ctrl-C stopped), so the same command resumes there.
    A :class:`KeyboardInterrupt`, so whatever stops on Ctrl-C stops on it (the CLI exits 130)."""

    def __init__(self, kept: int, total: int, cached: bool) -> None:
        self.kept, self.total, self.cached = kept, total, cached
        if cached:
            said = f"interrupted: {kept:,} of {total:,} answers kept; rerun the same command to resume"
        else:
            said = f"interrupted: nothing kept ({kept:,} of {total:,} answers were scored, but with no score cache)"
        super().__init__(said)


class UnknownName(BiasAtlasError, KeyError):
    """A registry lookup failed; the message lists what is available (a usage mistake, exit 2)."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0])


def did_you_mean(kind: str, name: str, available: Iterable[str]) -> UnknownName:
    """An :class:`UnknownName` for ``name`` listing ``available``, with the closest match."""
    names = sorted(available)
    close = difflib.get_close_matches(name, names, n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    return UnknownName(f"unknown {kind} {name!r}.{hint} Available: {', '.join(names)}")


def canonical_name(name: str, known: Collection[str]) -> str:
    """``name`` as ``known`` spells it when they differ only in case (``FR+210`` → ``fr+210``),
    else ``name`` unchanged (an unknown name is the caller's :func:`did_you_mean`)."""
    if name in known:
        return name
    return next((k for k in known if k.casefold() == name.casefold()), name)
