"""A run's request: what to run (:class:`RunRequest`), on which model (:class:`ModelOptions`,
:mod:`biasatlas.model_options`) and where to score it (:class:`EngineOptions`,
:mod:`biasatlas.engine_options`); all three are importable from here.

Each edge builds one request (the command line, a suite file, :func:`biasatlas.evaluate`)
and hands it whole to the runner (:func:`biasatlas.api.execute`): an option exists once, as
a field of those records, and is read where it takes effect (DESIGN.md: "a run's settings
travel as one frozen object"; HELM's ``AdapterSpec``). Checks that need nothing but the values
run when a record is built (closed sets, batch size, variant names; a benchmark's options
against its factory's annotations, :func:`~biasatlas.option_fields.check_type`); checks that
ask the machine run in :meth:`ModelOptions.preflight`, before any weights load. Field metadata
(:func:`~biasatlas.option_fields.option`) says which options never change a score
(``unscored``: left out of the recorded request, so a rerun on another GPU is the same run),
which are recorded only when set (``when_set``: older run folders lack them), and the help of
the command line's flag of the same name (``biasatlas run``'s flags are these fields).

Nothing heavy is imported here: the registry, the scorers and torch load inside the methods.
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import TYPE_CHECKING, Any

from .engine_options import EngineOptions
from .errors import UsageError, did_you_mean
from .model_options import DEFAULT_MODEL, PREDICTION_OPTIONS, GivenModel, ModelOptions
from .option_fields import check_label, check_type, literal_values
from .values import check_batch_size

if TYPE_CHECKING:
    from .benchmarks.base import Benchmark

__all__ = ["DEFAULT_MODEL", "PREDICTION_OPTIONS", "EngineOptions", "GivenModel", "ModelOptions", "RunRequest",
           "benchmark_options", "check_batch_size", "check_label", "check_type", "literal_values", "split_options"]

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
        from .registry import benchmark_spec

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
        from .registry import load_benchmark

        if isinstance(self.benchmark, str):
            return load_benchmark(self.benchmark, **self.options)  # type: ignore[no-any-return]
        return self.benchmark

    @cached_property
    def scored_benchmark(self) -> Benchmark:
        """The benchmark as the run scores it: where its spec lints its data, wrapped so that the
        summary records the lint (and, with ``exclude_flagged``, only the clean items are scored)."""
        from .benchmarks.linted import Linted
        from .registry import find_spec

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

