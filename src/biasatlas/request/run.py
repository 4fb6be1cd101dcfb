"""A run's request, :class:`RunRequest`: a benchmark (a registered name with its factory's options,
or one already built), the model (:class:`~biasatlas.model_options.ModelOptions`) and the engine
(:class:`~biasatlas.engine_options.EngineOptions`), checked once when built and handed whole to
:func:`biasatlas.api.execute`; what makes two runs the same run (:meth:`RunRequest.recorded`).

Nothing heavy is imported here: the registry and the benchmarks load inside the methods.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import TYPE_CHECKING, Any

from ..engine_options import EngineOptions
from ..errors import UsageError, did_you_mean
from ..model_options import GivenModel, ModelOptions
from ..option_fields import check_type
from .keywords import benchmark_options

if TYPE_CHECKING:
    from ..benchmarks.base import Benchmark

__all__ = ["RunRequest"]


@dataclass(frozen=True)
class RunRequest:
    """One run: a benchmark (a registered name with its factory's ``options``, or an object
    already built, then with none), the model and the engine. Built once at an edge and
    handed whole to :func:`biasatlas.api.execute`. ``exclude_flagged`` scores only the items
    the data lint finds nothing on (``--exclude-flagged``; a benchmark whose spec lints)."""

    benchmark: str | Benchmark
    options: Mapping[str, Any] = field(default_factory=dict)
    model: ModelOptions = ModelOptions()
    engine: EngineOptions = EngineOptions()
    exclude_flagged: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "options", types.MappingProxyType(dict(self.options)))
        if isinstance(self.model, GivenModel) and self.engine.engine != "local":
            raise UsageError(f"{self.model.model} lives in this process: engine={self.engine.engine!r} needs a "
                             "model by name or folder, which each worker loads")
        check_type("exclude_flagged", self.exclude_flagged, bool)
        if not isinstance(self.benchmark, str):
            if self.options:
                raise UsageError(f"options ({', '.join(self.options)}) go with a benchmark name; "
                                 f"{self.benchmark.name!r} is already built")
            return
        from ..registry import benchmark_spec

        factory = benchmark_spec(self.benchmark).factory
        known = benchmark_options(factory)
        hints = typing.get_type_hints(factory)
        for key, value in self.options.items():
            if key not in known:
                raise did_you_mean(f"{self.benchmark} option", key, known)
            check_type(key, value, hints.get(key, Any))

    @cached_property
    def bench(self) -> Benchmark:
        """The benchmark, built once (its data is not loaded here)."""
        from ..registry import load_benchmark

        if isinstance(self.benchmark, str):
            return load_benchmark(self.benchmark, **self.options)  # type: ignore[no-any-return]
        return self.benchmark

    @cached_property
    def scored_benchmark(self) -> Benchmark:
        """The benchmark as the run scores it: where its spec lints its data, wrapped so that the
        summary records the lint (and, with ``exclude_flagged``, only the clean items are scored)."""
        from ..benchmarks.linted import Linted
        from ..registry import find_spec

        spec = find_spec(self.bench.name)
        if spec is None or spec.lint_items is None:
            if self.exclude_flagged:
                raise UsageError(f"exclude_flagged: {self.bench.name} has no data lint (biasatlas lint lists "
                                 "the benchmarks that have)")
            return self.bench
        return Linted(self.bench, spec.lint_items, self.exclude_flagged)

    @cached_property
    def scorer_options(self) -> ModelOptions:
        """The model options with the benchmark's published scorer settings filled in."""
        return self.model.for_benchmark(self.bench)

    def recorded(self) -> dict[str, Any]:
        """What makes two runs the same run (the run folder records it; a rerun compares it):
        the benchmark's settings and the model options that change scores (those a benchmark's
        version defaults, ``by_version``, only as the run set them)."""
        model = self.scorer_options.recorded()
        for f in fields(ModelOptions):
            if f.metadata.get("by_version") and getattr(self.model, f.name) is None:
                model.pop(f.name, None)
        return {"benchmark": self.scored_benchmark.config(), "model": model}

