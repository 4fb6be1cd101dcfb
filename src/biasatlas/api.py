"""One call from Python: :func:`evaluate` a benchmark on a model (its result, and
:func:`~biasatlas.evaluation.load_run` for a finished run folder, are in :mod:`biasatlas.evaluation`).

The command line and suites go through the same runner (:func:`execute`, which
:func:`evaluate` calls with a :class:`~biasatlas.request.RunRequest` built from its keywords),
so all have one set of defaults, one order of checks and one record of what a run asked
for (:meth:`~biasatlas.request.RunRequest.recorded`)::

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

from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import BiasAtlasError
from .request import GivenModel, ModelOptions, RunRequest, check_label, split_options
from .evaluation import EvaluationRun, as_saved

if TYPE_CHECKING:
    from .benchmarks.base import Benchmark
    from .cache import ScoreCache
    from .pipeline import Planned

__all__ = ["evaluate", "execute"]

Log = Callable[[str], None]


# -- evaluate ---------------------------------------------------------------------------------------
def evaluate(benchmark: str | Benchmark, *, out: Path | str | None = None, force: bool = False,
             cache: bool | ScoreCache = True, refresh: bool = False, progress: bool = True,
             log: Log | None = None, label: str | None = None, exclude_flagged: bool = False,
             **options: Any) -> EvaluationRun:
    """Run a benchmark on a model and return the run; write a run folder if ``out`` is given.

    ``benchmark`` is a registered name (``"crows-pairs"``, ``"census"``, ``"zh-neutral"``)
    or a benchmark object already built. ``**options`` are split by name: the fields of
    :class:`~biasatlas.request.ModelOptions` (``model``, ``scorer``, ``variant``,
    ``batch_size``, ``device``, ``dtype``, ``revision``, ``trust_remote_code``,
    ``multi_token``, ``device_map``) and of :class:`~biasatlas.request.EngineOptions`
    (``engine``, ``workers``, ``worker_cpus``, ``worker_gpus``, ``ray_address``) mean what
    ``biasatlas run``'s flags mean, with the same defaults; the rest go to the benchmark's
    factory (``dataset="fr"``, ``lowercase=True``, ``country="no"``, ``sample=12`` …; none
    with a built benchmark). ``engine="ray"`` scores the same chunks on a Ray actor pool: the
    run folder is byte-identical to a local run's (docs/scale.md). ``exclude_flagged`` scores
    only the items the data lint finds nothing on (docs/lint.md). The rest is :func:`execute`'s.
    """
    bench_options, model, engine = split_options(options)
    return execute(RunRequest(benchmark, bench_options, model, engine, exclude_flagged), out=out, force=force,
                   cache=cache, refresh=refresh, progress=progress, log=log, label=label)


def execute(request: RunRequest, *, out: Path | str | None = None, force: bool = False,
            cache: bool | ScoreCache = True, refresh: bool = False, progress: bool = True,
            log: Log | None = None, label: str | None = None,
            scorers: dict[ModelOptions, Any] | None = None) -> EvaluationRun:
    """Run ``request``, the one runner behind :func:`evaluate`, ``biasatlas run`` and suites.

    ``cache``: ``True`` uses the score cache at its default place (``$BIASATLAS_CACHE_DIR``),
    ``False`` none, or pass a :class:`~biasatlas.cache.ScoreCache`; ``refresh`` rescores and
    overwrites. ``out`` is claimed before the model loads (a folder holding another run is
    refused unless ``force``). ``log`` receives the status lines the command line prints:
    the model's loading, then, before any scoring, :func:`start_line`. ``label`` names the run
    in reports (summary.json's ``label``; default: the model's name, a local folder's base name);
    it changes no score, so a run resumes and pairs whatever its label. ``scorers`` lends the
    scorer the last call built, by its model options (a scorer keeps no state between runs): one
    dict given to consecutive calls on one model loads it once (the runs of ``--sensitivity``, a
    suite's cells of one model); a call on another model lets it go first.
    """
    from .pipeline import run_benchmark
    from .registry import renamed_config
    from .runs.folder import OWNER_FILE, claim_run_folder, unclaim_run_folder, write_run

    bench = request.bench
    request.scored_benchmark.load()  # bad data or options fail here, before any model
    request.engine.check_threads()  # --threads or OMP_NUM_THREADS past the ceiling: before the folder is claimed
    model = request.scorer_options
    folder = None if out is None else Path(out)
    # a claim this call makes and a refusal undoes (unclaim_run_folder); a folder someone's earlier
    # run claimed (an interrupted one, to resume) keeps its record whatever happens here
    fresh_claim = folder is not None and not (folder / OWNER_FILE).exists()
    created = folder is not None and not folder.exists()
    refused = False
    lock = None if folder is None else claim_run_folder(folder, request.recorded(), force=force,
                                                        renamed=renamed_config(bench.name))
    store, opened, runner = None, False, None
    try:
        store, opened = _cache(cache)  # inside: a cache that cannot be opened still releases the folder
        model.preflight(bench)  # a bad device, model or scorer is one line, before any weights load
        runner = request.engine.build(model)
        runner.preflight()  # Ray's address and resources: one line now, not a wait after the load
        announce = None if log is None else (lambda planned: log(start_line(planned, request, folder)))
        scorer = _scorer(model, scorers, log, bench.name)
        note = _language_note(request, scorer)
        if note is not None:
            _say(log, note)
        if folder is not None and not force:
            _same_served_model(folder, scorer)
        run = run_benchmark(request.scored_benchmark, scorer, progress=progress, cache=store, refresh=refresh,
                           engine=runner, announce=announce)
        if label is not None:
            run = replace(run, summary={**run.summary, "label": check_label(label)})
        if note is not None:  # recorded only when it applies: every other run folder keeps its bytes
            run = replace(run, summary={**run.summary, "language_note": note})
        run = replace(run, summary=with_detectable(run.summary, run.config, run.records))
        if isinstance(run.summary.get("predictions"), dict):
            from .scorers.predictions.scorer import join_line

            _say(log, join_line(run.summary["predictions"]))
        if run.timing.get("cache_hits"):
            _say(log, f"reused {run.timing['cache_hits']} cached answers; scored {run.timing['scored']}")
        if folder is not None:
            write_run(run, folder)
    except BiasAtlasError:
        refused = True
        raise
    finally:
        if runner is not None:
            runner.close()
        if opened and store is not None:
            store.close()
        if lock is not None:
            lock.release()
            if refused and fresh_claim and folder is not None:
                unclaim_run_folder(folder, created=created)
    return EvaluationRun.of(bench.name, run.summary, run.records, run.skipped, run.config, run.timing,
                            path=folder)


def _language_note(request: RunRequest, scorer: Any) -> str | None:
    """A note when a packaged model reads data in a language it was not trained for (SmolLM2 on
    Dutch): the model named by its packaged name, or served from its packaged folder (the record
    the served scorer read in the folder its server serves)."""
    from .registry import find_spec
    from .scorers.inprocess.model_languages import language_note

    spec = find_spec(request.bench.name)
    language = spec.language(request.bench) if spec is not None else None
    if isinstance(request.model.model, str) and (note := language_note(request.model.model, language)):
        return note
    record = scorer.describe().get("packaged")
    served = record.get("name") if isinstance(record, Mapping) else None
    return language_note(served, language) if isinstance(served, str) else None


def _scorer(model: ModelOptions, scorers: dict[ModelOptions, Any] | None, log: Log | None, name: str) -> Any:
    """The scorer ``model`` builds, or the one ``scorers`` already holds for the same options."""
    if isinstance(model, GivenModel):  # already in memory; and its options compare without the object
        _say(log, f"{name} · {model.loading()}")
        return model.build()
    if scorers is not None and model in scorers:
        _say(log, f"{name} · using {model.model}, already loaded")
        return scorers[model]
    if scorers is not None:
        scorers.clear()  # one model in memory at a time: the one before is let go before this one loads
    _say(log, f"{name} · {model.loading()}")
    built = model.build()
    if scorers is not None:
        scorers[model] = built
    return built


def with_detectable(summary: Mapping[str, Any], config: Mapping[str, Any],
                    records: list[dict[str, Any]]) -> dict[str, Any]:
    """``summary`` with each headline's minimum detectable effect under one key for every benchmark
    (:data:`~biasatlas.power.DETECTABLE_KEY`: headline name → :class:`~biasatlas.power.Detectable`), as
    the benchmark's view declares its headlines (:mod:`biasatlas.display.controls`)."""
    from .runs.view import RunView
    from .power import DETECTABLE_KEY
    from .registry import find_spec

    spec = find_spec(str(summary.get("benchmark")))
    if spec is None:
        return dict(summary)
    view = RunView(Path("."), as_saved(config), as_saved(summary), as_saved(records))
    found = {h.name: h.detectable.as_dict() for h in spec.view.headlines(view) if h.detectable is not None}
    return {**summary, DETECTABLE_KEY: found} if found else dict(summary)


def _same_served_model(folder: Path, scorer: Any) -> None:
    """Refuse to overwrite a finished run of a served model with a run of another model behind the
    same URL and name: its recorded request is the same, only the canary's fingerprint tells them
    apart (docs/serving.md). In-process models are told apart by their request (folder, hub id)."""
    import json

    from .runs.folder import RunFolderError

    now = scorer.describe().get("canary_fingerprint") if hasattr(scorer, "describe") else None
    try:
        before = json.loads((folder / "config.json").read_text(encoding="utf-8"))["scorer"].get("canary_fingerprint")
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return
    if now is not None and before is not None and before != now:
        raise RunFolderError(f"run folder {folder} holds a run of another model behind the same server and name "
                             f"(canary fingerprint {before}, now {now}): choose another --out, or --force to "
                             "replace it")


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


def start_line(planned: Planned, request: RunRequest, folder: Path | None) -> str:
    """What a run is about to do, printed before it scores (nothing of it goes to the run
    folder): benchmark; dataset and language, and whether it is the default; items;
    model and scorer; the forward passes still to run; where it is saved; what the cache
    already holds."""
    from .registry import find_spec

    spec = find_spec(planned.benchmark)
    config, scorer = planned.config, planned.scorer
    dataset = config.get("dataset") or Path(str(config.get("data"))).name
    language = spec.language(request.bench) if spec is not None else None
    about = ", ".join(([language] if language else []) + (["the default"] if _default_data(spec, request) else []))
    items = f"{planned.n_items:,} items" + (f" ({planned.n_probes:,} probes)" if planned.n_probes != planned.n_items
                                            else "")
    kind = ", ".join(str(v) for v in (scorer.get("scorer"), scorer.get("variant")) if v)
    parts = [planned.benchmark, f"dataset {dataset}" + (f" ({about})" if about else ""), items,
             f"model {scorer.get('model')} ({kind})", _passes(planned),
             f"saving to {folder}" if folder is not None else "NOT saved (no --out)"]
    if planned.cached:
        parts.append(f"resuming: {planned.cached:,} of {planned.n_probes:,} cached")
    return " · ".join(parts)


def _default_data(spec: Any, request: RunRequest) -> bool:
    """Whether the run reads the data its benchmark reads when told nothing (every option of
    the spec's ``data_options`` at its factory default): ``run crows-pairs`` starts the
    French set, and says so."""
    from .request import benchmark_options

    if spec is None or not spec.data_options:
        return False
    defaults = benchmark_options(spec.factory)
    return all(getattr(request.bench, name, None) == defaults[name].default
               for name in spec.data_options if name in defaults)


def _passes(planned: Planned) -> str:
    """The forward passes a run will compute, from its scorer's plan of what is not cached."""
    if planned.cached == planned.n_probes:
        return "nothing left to score"
    if "batches" not in planned.work:  # a scorer without a model plans nothing
        return "no forward passes planned (the scorer runs no model here)"
    rows, batches = planned.work.get("rows_computed", 0), planned.work["batches"]
    texts = planned.work.get("generations", 0)
    generated = f"{texts:,} texts to generate" if texts else ""
    if texts and not rows:
        return generated
    # a server's batches are requests: what its own engine runs of them is the server's business
    unit = "requests" if planned.scorer.get("endpoint") else "forward passes"
    return f"{rows:,} rows in {batches:,} {unit}" + (f" and {generated}" if texts else "")
