"""Keyword options sorted by record: which of ``evaluate``'s or a suite cell's keywords are the
benchmark's, the model's and the engine's (:func:`split_options`), and which keywords a benchmark's
factory takes (:func:`benchmark_options`). Below :mod:`.run`, whose check of a request's benchmark
options reads the same factory signature.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import fields
from typing import Any

from ..engine_options import EngineOptions
from ..model_options import GivenModel, ModelOptions

__all__ = ["NOT_OPTIONS", "benchmark_options", "split_options"]

#: Benchmark factory parameters that are not options: set by the benchmark itself or by ``bind(info)``.
NOT_OPTIONS: frozenset[str] = frozenset({"name", "VERSION", "scorer"})


def split_options(options: Mapping[str, Any]) -> tuple[dict[str, Any], ModelOptions, EngineOptions]:
    """Keyword options (``evaluate``'s, a suite cell's) split by field name into the benchmark's,
    a :class:`ModelOptions` (a :class:`GivenModel` when ``model`` is an object, not a name)
    and an :class:`EngineOptions`."""
    model_names = {f.name for f in fields(ModelOptions)}
    engine_names = {f.name for f in fields(EngineOptions)}
    chosen = {k: v for k, v in options.items() if k in model_names}
    given = chosen.get("model")
    model = GivenModel.of(chosen.pop("model"), **chosen) if given is not None and not isinstance(given, str) \
        else ModelOptions(**chosen)
    engine = EngineOptions(**{k: v for k, v in options.items() if k in engine_names})
    return {k: v for k, v in options.items() if k not in model_names | engine_names}, model, engine


def benchmark_options(factory: Callable[..., Any]) -> dict[str, inspect.Parameter]:
    """The keyword options a benchmark's factory takes (``dataset``, ``lowercase``, ``sample`` …)."""
    parameters = inspect.signature(factory).parameters
    return {name: p for name, p in parameters.items()
            if name not in NOT_OPTIONS and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
