"""One call from Python: :func:`evaluate` a benchmark on a model, :func:`load_run` a finished run folder.

The command line goes through the same function (``biasatlas run …`` calls :func:`evaluate`),
so both have one set of defaults, one order of checks and one record of what a run asked
for (:func:`run_request`)::

    import biasatlas
    run = biasatlas.evaluate("crows-pairs", model="camembert-base", dataset="fr", lowercase=True)
    run.summary          # typed: the benchmark's summary as its report reads it
    run.items            # a pandas DataFrame, one row per item (the ``pandas`` extra)

The order is the CLI's: build the benchmark and load its data (a bad file or option fails
before any model), claim the run folder (a wrong ``out`` fails before the model loads), load
the scorer, score through the score cache (a rerun after a crash scores only what is
missing), then write the run folder. Without ``out`` nothing is written: there is no default
folder, so a notebook cell run ten times leaves ten nothing rather than ten folders.

This module imports nothing heavy at import time (torch, pandas, the benchmarks load inside
the functions), so ``import biasatlas`` stays fast.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

# The scorers' own default (rows per forward pass): one number on the command line, here and
# in the scorers. scorers.base imports nothing heavy.
from .scorers.base import DEFAULT_BATCH_SIZE

if TYPE_CHECKING:
    from .benchmarks.base import Benchmark, BenchmarkSpec
    from .cache import ScoreCache
    from .scorers.engines import ScoringEngine

__all__ = ["DEFAULT_BATCH_SIZE", "DEFAULT_MODEL", "EvaluationRun", "ModelOptions", "benchmark_options",
           "build_benchmark", "evaluate", "load_run", "run_request"]

#: The model a run uses when none is named: the packaged multilingual Gemma 3 270M.
DEFAULT_MODEL = "gemma-3-270m"
#: Census methods scored, as published, on the first sub-token of each filler: GeBNLP 2022
#: (Touileb, Øvrelid & Velldal 2022) masked one token per pronoun, so a masked LM runs with
#: the ``first-token`` policy there unless ``multi_token`` says otherwise.
FIRST_TOKEN_METHODS: frozenset[str] = frozenset({"gebnlp2022"})
#: Benchmark fields that are not options: set by the benchmark itself or by ``bind(scorer)``.
NOT_OPTIONS: frozenset[str] = frozenset({"name", "VERSION", "scorer"})

Log = Callable[[str], None]


@dataclass(frozen=True)
class ModelOptions:
    """How the scorer is built: the model and the options of ``biasatlas run``'s model flags."""

    model: str = DEFAULT_MODEL
    scorer: str = "auto"
    variant: str | None = None
    batch_size: int | str = DEFAULT_BATCH_SIZE
    device: str = "cpu"
    dtype: str = "float32"
    revision: str | None = None
    trust_remote_code: bool = False
    multi_token: str | None = None
    #: accelerate's placement (``"auto"``: a model larger than one GPU over several); None: one device.
    device_map: str | None = None

    def for_benchmark(self, benchmark: Any) -> ModelOptions:
        """These options with the benchmark's published multi-token policy filled in where
        none was given (census ``gebnlp2022``: ``first-token``; see :data:`FIRST_TOKEN_METHODS`)."""
        if self.multi_token is None and getattr(benchmark, "method", None) in FIRST_TOKEN_METHODS:
            return replace(self, multi_token="first-token")
        return self

    def build(self) -> Any:
        """The scorer, through :func:`biasatlas.registry.load_scorer`.

        ``multi_token`` goes only to a scorer whose factory names that parameter (the masked
        LM's): causal and seq2seq LMs read whole sentences and have no such policy.
        """
        from .registry import load_scorer, scorer_factory, scorer_kind

        kw: dict[str, Any] = {"variant": self.variant}
        if self.model != "fake" and self.scorer != "fake":  # the fake scorer loads nothing
            kw.update(batch_size=self.batch_size, device=self.device, dtype=self.dtype, revision=self.revision,
                      trust_remote_code=self.trust_remote_code)
            if self.device_map is not None:
                kw["device_map"] = self.device_map
        kind = self.scorer
        if self.multi_token is not None:
            if kind == "auto":
                kind = scorer_kind(self.model, trust_remote_code=self.trust_remote_code, revision=self.revision)
            if "multi_token" in inspect.signature(scorer_factory(kind)).parameters:
                kw["multi_token"] = self.multi_token
        return load_scorer(self.model, kind, **kw)


def run_request(benchmark: Any, options: ModelOptions) -> dict[str, Any]:
    """What makes two runs the same run (recorded in the run folder, compared on a rerun):
    the benchmark's settings and the model options that change scores. Batch size and
    device must not change a score, so they are left out; ``multi_token`` only when set."""
    model = {k: v for k, v in asdict(options).items() if k not in ("batch_size", "device", "device_map")}
    if model["multi_token"] is None:
        del model["multi_token"]
    return {"benchmark": benchmark.config(), "model": model}


# -- building a benchmark ---------------------------------------------------------------------------
def benchmark_options(spec: BenchmarkSpec) -> dict[str, inspect.Parameter]:
    """The keyword options a benchmark's factory takes (``dataset``, ``lowercase``, ``sample`` …)."""
    parameters = inspect.signature(spec.factory).parameters
    return {name: p for name, p in parameters.items()
            if name not in NOT_OPTIONS and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


def build_benchmark(name: str, options: Mapping[str, Any]) -> Any:
    """The benchmark registered as ``name`` with ``options``; an unknown option is an
    :class:`~biasatlas.errors.UnknownName` with "did you mean" and the options there are."""
    from .errors import did_you_mean
    from .registry import benchmark_spec, load_benchmark

    known = benchmark_options(benchmark_spec(name))
    for key in options:
        if key not in known:
            raise did_you_mean(f"{name} option", key, known)
    return load_benchmark(name, **options)


# -- evaluate ---------------------------------------------------------------------------------------
def evaluate(benchmark: str | Benchmark, *, model: str = DEFAULT_MODEL, scorer: str = "auto",
             variant: str | None = None, batch_size: int | str = DEFAULT_BATCH_SIZE, device: str = "cpu",
             dtype: str = "float32", revision: str | None = None, trust_remote_code: bool = False,
             multi_token: str | None = None, device_map: str | None = None, out: Path | str | None = None,
             force: bool = False,
             cache: bool | ScoreCache = True, refresh: bool = False, progress: bool = True,
             log: Log | None = None, engine: str | ScoringEngine = "local", ray_address: str | None = None,
             workers: int = 1, worker_cpus: float = 1.0, worker_gpus: float | None = None,
             **options: Any) -> EvaluationRun:
    """Run a benchmark on a model and return the run; write a run folder if ``out`` is given.

    ``benchmark`` is a registered name (``"crows-pairs"``, ``"census"``, ``"zh-neutral"``),
    whose ``**options`` go to its factory (``dataset="fr"``, ``lowercase=True``,
    ``country="no"``, ``sample=12`` …), or a benchmark object already built (then no options).
    The model options mean what ``biasatlas run``'s flags mean, with the same defaults
    (``batch_size`` is a number of rows, or ``"auto"`` where the scorer can pick one).
    ``cache``: ``True`` uses the score cache at its default place (``$BIASATLAS_CACHE_DIR``),
    ``False`` none, or pass a :class:`~biasatlas.cache.ScoreCache`; ``refresh`` rescores and
    overwrites. ``out`` is claimed before the model loads (a folder holding another run is
    refused unless ``force``). ``log`` receives the status lines the command line prints.
    ``engine="ray"`` scores the same chunks on a Ray actor pool of ``workers`` scorers
    (``ray_address`` joins a cluster; ``worker_gpus`` defaults to 1 with a CUDA ``device``):
    the run folder is byte-identical to a local run's (docs/scale.md). Engine settings do
    not change a score, so they are not part of the run's recorded request.
    """
    from .pipeline import evaluate as run_pipeline
    from .registry import preflight
    from .results import claim_run_folder, write_run
    from .scorers.engines import make_engine

    bench = _benchmark(benchmark, options)
    bench.load()  # bad data or options fail here, before any model
    model_options = ModelOptions(model, scorer, variant, batch_size, device, dtype, revision, trust_remote_code,
                                 multi_token, device_map).for_benchmark(bench)
    # The workers build their own scorer from the same options (a picklable bound method).
    runner = engine if not isinstance(engine, str) else make_engine(
        engine, model_options.build, workers=workers, worker_cpus=worker_cpus, worker_gpus=worker_gpus,
        address=ray_address, device=device)
    folder = None if out is None else Path(out)
    lock = None if folder is None else claim_run_folder(folder, run_request(bench, model_options), force=force)
    store, opened = None, False
    try:
        store, opened = _cache(cache)  # inside: a cache that cannot be opened still releases the folder
        preflight({"device": device, "dtype": dtype})  # a bad device is one line, not two
        _say(log, f"{bench.name} · loading model {model} …")
        run = run_pipeline(bench, model_options.build(), progress=progress, cache=store, refresh=refresh,
                           engine=runner)
        if run.timing.get("cache_hits"):
            _say(log, f"reused {run.timing['cache_hits']} cached answers; scored {run.timing['scored']}")
        if folder is not None:
            write_run(run, folder)
    finally:
        if isinstance(engine, str):
            runner.close()
        if opened and store is not None:
            store.close()
        if lock is not None:
            lock.release()
    return EvaluationRun.of(bench.name, run.summary, run.records, run.skipped, run.config, run.timing,
                            path=folder, terminal=bench.table)


def _benchmark(benchmark: Any, options: Mapping[str, Any]) -> Any:
    if isinstance(benchmark, str):
        return build_benchmark(benchmark, options)
    if options:
        raise TypeError(f"options ({', '.join(options)}) go with a benchmark name; "
                        f"{benchmark.name!r} is already built")
    return benchmark


def _cache(cache: bool | ScoreCache | None) -> tuple[ScoreCache | None, bool]:
    """The cache to use, and whether this call opened it (and so closes it)."""
    from .cache import ScoreCache, default_cache_path

    if cache is True:
        return ScoreCache(default_cache_path()), True
    if cache is False or cache is None:
        return None, False
    return cache, False


def _say(log: Log | None, line: str) -> None:
    if log is not None:
        log(line)


# -- the result ---------------------------------------------------------------------------------------
@dataclass(frozen=True, repr=False)
class EvaluationRun:
    """A finished run, from :func:`evaluate` or read back by :func:`load_run`: the same
    fields either way, as the run folder holds them (JSON values: NaN and infinities read
    as ``None``, tuples as lists).

    ``summary`` is the benchmark's typed summary (``CrowsRunSummary``, ``CensusRunSummary``,
    ``ZhRunSummary``: the fields its report reads, checked); ``summary_dict`` all of
    summary.json. ``path`` is the run folder, ``None`` when the run was not saved.
    """

    benchmark: str
    summary: Any
    summary_dict: Mapping[str, Any] = field(repr=False)
    records: list[dict[str, Any]] = field(repr=False)
    skipped: list[dict[str, Any]] = field(repr=False)
    config: Mapping[str, Any] = field(repr=False)
    timing: Mapping[str, Any] = field(repr=False)
    path: Path | None = None
    terminal: Callable[[Mapping[str, Any]], Any] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def of(cls, benchmark: str, summary: Mapping[str, Any], records: list[dict[str, Any]],
           skipped: list[dict[str, Any]], config: Mapping[str, Any], timing: Mapping[str, Any], *,
           path: Path | None, terminal: Callable[[Mapping[str, Any]], Any] | None = None) -> EvaluationRun:
        """A run from the pipeline's values, each as its run-folder file would read back."""
        from .registry import find_spec

        as_saved = _as_saved(summary)
        spec = find_spec(benchmark)
        typed = spec.summary_type.read(as_saved, (path or Path(".")) / "summary.json") if spec else as_saved
        return cls(benchmark, typed, as_saved, _as_saved(records), _as_saved(skipped), _as_saved(config),
                   _as_saved(timing), path, terminal)

    def __repr__(self) -> str:
        where = f"saved in {self.path}" if self.path is not None else "not saved"
        return (f"<EvaluationRun {self.benchmark} · {self.summary_dict.get('dataset')} · {self.model} · "
                f"{len(self.records)} items, {len(self.skipped)} skipped · {where}>")

    @property
    def model(self) -> str:
        return str(self.summary_dict.get("model") or "unknown model")

    @property
    def items(self) -> Any:
        """The per-item records as a pandas DataFrame (one row per item; needs the ``pandas`` extra)."""
        try:
            import pandas as pd  # type: ignore[import-untyped]  # the optional `pandas` extra
        except ImportError:
            from .errors import BiasAtlasError

            raise BiasAtlasError("run.items needs pandas: pip install 'biasatlas[pandas]' "
                                 "(run.records holds the same rows as dicts)") from None
        if self.records:
            return pd.DataFrame.from_records(self.records)
        return pd.DataFrame(columns=[c.name for c in _columns(self.benchmark)])

    def table(self) -> Any:
        """The terminal table of ``biasatlas run`` (a rich renderable: ``rich.print(run.table())``)."""
        if self.terminal is not None:
            return self.terminal(self.summary_dict)
        from .registry import find_spec

        spec = find_spec(self.benchmark)
        if spec is not None:
            return spec.view.terminal(self.summary_dict)
        return _generic_table(self)


def _as_saved(value: Any) -> Any:
    """``value`` as its run-folder file reads back: JSON, with NaN and infinities as null
    (what :func:`biasatlas.results.write_run` writes)."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return json.loads(text, parse_constant=lambda _: None)


def _columns(benchmark: str) -> tuple[Any, ...]:
    from .registry import find_spec

    spec = find_spec(benchmark)
    return spec.columns if spec is not None else ()


def _generic_table(run: EvaluationRun) -> Any:
    """A benchmark this install does not know: its summary's plain fields, as the report shows them."""
    from rich.console import Group

    from .display.runview import RunView
    from .display.tables import to_rich
    from .report.sections import run_tables

    view = RunView(run.path or Path("."), run.config, run.summary_dict, run.records, tuple(run.skipped))
    return Group(*(to_rich(t) for t in run_tables(view)))


# -- reading a run folder --------------------------------------------------------------------------
def load_run(path: Path | str) -> EvaluationRun:
    """A finished run folder, read and checked by the report's reader
    (:func:`biasatlas.report.load_run`: a damaged file is one DataError naming file, line and
    field), as the same :class:`EvaluationRun` :func:`evaluate` returns."""
    from .report.runs import load_run as read_view

    view = read_view(path)
    timing = _timing(view.path / "timing.json")
    return EvaluationRun.of(view.benchmark, view.summary, [dict(r) for r in view.records],
                            [dict(s) for s in view.skipped], view.config, timing, path=view.path)


def _timing(path: Path) -> dict[str, Any]:
    """timing.json, or nothing: it holds seconds and cache counts, never a result."""
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}
