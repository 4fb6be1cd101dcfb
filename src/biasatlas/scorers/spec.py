"""One scorer as the registry sees it, declared in one row, as a benchmark is one ``BenchmarkSpec``.

Before this row a scorer was four parallel tables of the registry (its target, its variants, what it
reads, whether it generates), and a scorer added to one and forgotten in another was refused late or
listed wrong. What a row declares is known before any model loads, so ``biasatlas list``, the CLI's
choices and a benchmark's refusal of a scorer all read it without importing the scorer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from typing import Any

from ..probes import Reads

ScorerTarget = str | Callable[..., Any]
"""A scorer's entry: ``"package.module:Class"``, imported on first use (so ``biasatlas
--help`` imports no torch), or any callable; either is called as ``target(model=…, **options)``."""


@dataclass(frozen=True)
class ScorerSpec:
    """A scorer named ``name``, built by ``target`` (:data:`ScorerTarget`).

    ``variants`` are its pair variants, the first its default (``biasatlas list`` shows them, and a
    variant it lacks is refused before the load). ``reads`` is what its answers are
    (:class:`~biasatlas.probes.ScorerInfo`'s ``reads``) and ``generates`` whether it answers
    generation probes: both known before its model loads, so a benchmark that cannot read them
    refuses the run first; ``None`` when only the loaded scorer can say (a predictions file says
    whether it generates once it is read; a plugin that declares nothing is checked after its load).
    """

    name: str
    target: ScorerTarget
    variants: tuple[str, ...] = ()
    reads: Reads | None = None
    generates: bool | None = None

    def factory(self) -> Callable[..., Any]:
        """The callable that builds the scorer: the target, imported when it is a ``module:attribute``."""
        if callable(self.target):
            return self.target
        module, _, attribute = str(self.target).partition(":")
        return getattr(import_module(module), attribute)  # type: ignore[no-any-return]
