"""The one linear pipeline: load → probes → score → metric → run record (DESIGN.md).

Scoring goes through the score cache when one is given: cached answers are reused, the
rest are scored in chunks (:func:`chunked`), each batched on its own, and committed as they
finish: a model scorer hands on each batch's answers as the batch ends (on a GPU, each job's
as it is read), other scorers each chunk's, so a killed run resumes where it stopped and
ends with the same outputs as an uninterrupted one. Ctrl-C keeps the finished batches of the
chunk it stopped too before :class:`~biasatlas.errors.RunInterrupted` says how many answers
were kept. A chunk the cache answers in part is still scored whole-planned: the scorer batches
all its probes as an uncached run does and computes only the batches the missing ones need
(:mod:`biasatlas.scorers.resume`), so every float is computed beside the same rows as in an
uninterrupted run. An engine scores the chunks (:mod:`biasatlas.scorers.engines`): in this
process, or the same chunks on a Ray actor pool, committed here as they come back (there
a kill or Ctrl-C keeps whole chunks only); the outputs do not depend on which. The progress
bar moves per batch. Everything that varies between equivalent runs (seconds, cache hits,
batches, the engine) goes to ``timing`` rather than the summary, so summaries of equal
runs are byte-identical. The date a run was made (``started_utc``, ``finished_utc``) varies too
and goes there; the git commit of the code it ran (``biasatlas_commit``) is the same for equal runs and goes to the
summary's provenance.
"""

from __future__ import annotations

import platform
import time
import warnings
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from .version import __version__, source_commit
from .benchmarks.contract import Benchmark, with_work
from .cache import ScoreCache, repeats
from .errors import ModelError, RunInterrupted, UnsupportedProbe
from .probes import Answer, Probe, Scored
from .runs.folder import Run
from .scorers.base import Scorer
from .scorers.batching import JOB_PROBES
from .scorers.engines import ChunkResult, LocalEngine, ScoringEngine, keeps_batches, planned_work
from .scorers.predictions.scorer import PredictionsScorer
from .scorers.resume import Interrupted

# Chunks of a scorer that commits only whole chunks (chunked): at most MAX_CHUNK probes per cache
# commit, small enough to lose little, big enough to batch well ...
MAX_CHUNK = 256
MIN_CHUNK = 128  # ... and at least this many: 10-pair chunks ran CrowS-Pairs 5.2 s against 4.35 s
# A small run's chunks (a tenth of it) hold at least this many: a scorer takes a chunk whose every
# probe it refuses as a kind it cannot score at all, so one too-long sentence must not be a chunk.
MIN_SMALL_CHUNK = 16


@dataclass(frozen=True)
class Planned:
    """What a run is about to do, known before its first probe is scored: the bound
    benchmark's ``config``, its items and probes, the scorer's ``describe()``, how many
    answers the cache already holds, and ``work``, the scorer's :meth:`~.scorers.base.Scorer.plan`
    of the probes still to score, chunk by chunk as they will be scored, so it is the work the
    run then counts (``{}`` for a scorer without a model)."""

    benchmark: str
    config: Mapping[str, Any]
    n_items: int
    n_probes: int
    scorer: Mapping[str, Any]
    cached: int
    work: Mapping[str, int]


def run_benchmark(benchmark: Benchmark, scorer: Scorer, *, progress: bool = False,
                  cache: ScoreCache | None = None, refresh: bool = False,
                  engine: ScoringEngine | None = None, announce: Callable[[Planned], None] | None = None) -> Run:
    """Run ``benchmark`` with ``scorer`` and return the run record.

    ``engine`` scores the chunks (:mod:`biasatlas.scorers.engines`): None or a
    :class:`~biasatlas.scorers.engines.LocalEngine` calls ``scorer`` here; a
    :class:`~biasatlas.scorers.engines.RayEngine` sends the same chunks to workers that
    build scorers like it, while ``scorer`` still gives the cache key, the plan and the
    provenance. The run record does not depend on the engine, except ``timing``.

    ``bind(scorer.info)`` returns the benchmark set up for that scorer (a
    :class:`~biasatlas.probes.ScorerInfo`: census normalisation follows what an answer is); a
    benchmark that ``COUNTS_WORK`` gets the scorer's planned forward-pass counts in its summary.
    The scorer keeps no state from one call to the next: this run's skips are the probes its
    own ``score`` calls left unanswered.
    """
    began = _now()
    benchmark = benchmark.bind(scorer.info)
    items = benchmark.load()
    probes = benchmark.probes(items)
    bench_config = benchmark.config()
    # A predictions file (scorers.predictions.scorer): its ids against the run's, refused above the allowed
    # shares before anything is scored; its answers are a file's, never cached as a model's.
    join = scorer.join(probes) if isinstance(scorer, PredictionsScorer) else None
    cache = cache if scorer.cacheable else None
    hashing = time.perf_counter()
    key = scorer.fingerprint()  # hashes the model's files: timed apart from scoring
    hashed = time.perf_counter()
    # Read before the progress bar starts, so the cache's warnings print on lines of
    # their own. A refused answer is missing: scored again below, its row overwritten.
    cached, rejected = _lookup(cache, key, probes, refresh)
    # The summary gets the planned count (what an uncached run computes), so a resumed
    # run's summary equals an uninterrupted one's; the counts of what this run scored,
    # summed over its chunks wherever they ran, go to timing. An uncached run batches each
    # chunk on its own, so its count is the chunks' plans added up: one plan of every probe
    # would batch (and share prefixes) across chunk boundaries and count work no run does.
    # A probe repeating an earlier one's content is never scored: it gets that probe's answer. Not so
    # for answers read by id from a file (predictions): two items of one text may be answered apart.
    copies = repeats(probes) if scorer.cacheable else {}
    chunks = chunked(probes, keeps_batches(scorer))
    plans = [planned_work(scorer, chunk, [p.id for p in chunk if p.id in copies]) for chunk in chunks]
    planned = _summed(plans)
    if announce is not None:  # the work of the chunks still to score, each planned as it is scored
        skip = {*cached, *copies}
        announce(Planned(benchmark.name, bench_config, len(items), len(probes), scorer.describe(), len(cached),
                         _summed(_still_to_do(scorer, chunks, plans, cached, skip))))
    started = time.perf_counter()
    engine = engine or LocalEngine()
    answers, unscorable, cache_stats, counters = _score(scorer, key, chunks, (cached, rejected), progress, cache,
                                                        engine, copies)
    seconds = time.perf_counter() - started
    result = benchmark.score(items, answers)
    skipped = _skips(result.skipped, unscorable) if join is None else join.skipped(result.skipped, dict(unscorable))
    described = scorer.describe()
    provenance = {**_versions(), "scorer": described, "data_sha256": bench_config.get("data_sha256"),
                  "n_probes": len(probes), "scorer_fingerprint": key}
    scores = result.written()
    if getattr(benchmark, "COUNTS_WORK", False):
        scores = with_work(scores, planned)
    scores = _legacy_counters(benchmark, scores, planned)
    if join is not None:
        scores = {**scores, "predictions": join.summary()}
    summary = {"benchmark": benchmark.name, "benchmark_version": benchmark.VERSION,
               "dataset": bench_config.get("dataset") or bench_config.get("data"),
               "model": described.get("model"), "scorer": described.get("scorer"),
               "variant": described.get("variant"), **scores, "provenance": provenance}
    timing = {"started_utc": began, "finished_utc": _now(), "seconds_scoring": round(seconds, 3),
              "seconds_hashing": round(hashed - hashing, 3), **cache_stats,
              "counters": counters, "engine": engine.describe()}
    config = {"benchmark": bench_config, "scorer": described}
    return Run(config, summary, result.records, skipped, timing)


def _legacy_counters(benchmark: Benchmark, scores: dict[str, Any], planned: Mapping[str, int]) -> dict[str, Any]:
    """A plugin written to the contract before issue 35 adds its counts through ``with_counters``:
    still called, with a warning naming its replacement, so its summary loses nothing."""
    legacy = getattr(benchmark, "with_counters", None)
    if not callable(legacy):
        return scores
    warnings.warn(f"{benchmark.name}: with_counters is the benchmark contract before issue 35; declare "
                  "COUNTS_WORK = True (biasatlas.benchmarks.options.Options) for the planned-work counts",
                  DeprecationWarning, stacklevel=2)
    return dict(legacy(scores, planned))


def _skips(from_benchmark: list[dict[str, Any]],
           unscorable: Mapping[str, str]) -> list[dict[str, Any]]:
    """The benchmark's skips, with the scorer's reason where it has one, then the rest."""
    skipped = [{**s, "reason": _reason(s, unscorable)} for s in from_benchmark]
    known = {s.get("id") for s in skipped}
    return skipped + [{"id": pid, "reason": why} for pid, why in sorted(unscorable.items())
                      if pid not in known]


def _reason(skip: dict[str, Any], unscorable: Mapping[str, str]) -> Any:
    """The scorer's reason for a skipped item's probe, else the benchmark's."""
    pid = skip.get("id")
    return unscorable.get(pid, skip.get("reason")) if isinstance(pid, str) else skip.get("reason")


def _score(scorer: Scorer, key: str, chunks: Sequence[Sequence[Probe]], found: tuple[dict[str, Answer], int],
           progress: bool, cache: ScoreCache | None, engine: ScoringEngine, copies: Mapping[str, str]
           ) -> tuple[dict[str, Answer], dict[str, str], dict[str, int], dict[str, int]]:
    """Answers by probe id (``found``: those the cache held under ``key``, the scorer's
    fingerprint, and how many it refused; the rest scored, chunk by chunk, and cached, but
    ``copies``, which get the answer of the probe each repeats), the probes the scorer could not
    answer (id → why), the cache's counts, and the scorer's work counts."""
    from tqdm import tqdm

    answers, rejected = dict(found[0]), found[1]
    skip = {*answers, *copies}
    work = remaining(chunks, skip)
    todo = [[p for p in chunk if p.id not in skip] for chunk in work]
    missing = {p.id for chunk in todo for p in chunk}
    commit = _Commits(cache, key, {p.id: p for chunk in todo for p in chunk})
    done: dict[int, Scored] = {}
    counted: list[Mapping[str, int]] = []
    total = sum(map(len, chunks))
    with tqdm(total=total, unit="probe", desc="scoring", dynamic_ncols=True, disable=not progress) as bar:
        bar.update(total - len(missing))
        try:
            for result in engine.score_chunks(scorer, work, bar.update, frozenset(skip),
                                              keep=commit if cache is not None else None):
                _check_worker(result, key)
                commit.chunk(todo[result.index], result.scored)  # as it arrives: a killed run keeps it
                done[result.index] = result.scored
                counted.append(result.scored.work)
        except KeyboardInterrupt as stop:
            kept = {*answers, *(p.id for i in done for p in todo[i]), *commit.kept}
            unfinished = [p for i, chunk in enumerate(todo) if i not in done for p in chunk]
            kept |= _keep_finished(stop, unfinished, cache, key)
            kept |= {pid for pid, origin in copies.items() if origin in kept}
            raise RunInterrupted(len(kept), total, cached=cache is not None) from None
    unscorable: dict[str, str] = {}
    for index in sorted(done):  # chunk order, whichever chunk finished first
        answers.update(done[index])
        unscorable.update(done[index].unscorable)
    _copy(copies, answers, unscorable)
    if total and not answers:  # every probe skipped: the run, not a batch, says it cannot be read
        first = next(iter(unscorable.values()), "no answers")
        raise UnsupportedProbe(f"none of the {total} probes could be scored by this model; the first: {first}")
    repeated = total - len(missing) - len(found[0])  # copies the cache did not answer itself
    return answers, unscorable, {"cache_hits": len(found[0]), "scored": len(missing), "repeated": repeated,
                                 "cache_rejected": rejected}, _summed(counted)


class _Commits:
    """Answers committed to ``cache`` (if any) under ``key`` as they come, each once: a batch's,
    as the scorer hands them on (:meth:`__call__`), and a chunk's rest when it is done
    (:meth:`chunk`); ``kept`` names them."""

    def __init__(self, cache: ScoreCache | None, key: str, probes: Mapping[str, Probe]) -> None:
        self.cache, self.key, self.probes = cache, key, probes
        self.kept: set[str] = set()

    def __call__(self, answers: Sequence[Answer]) -> None:
        fresh = {a.id: a for a in answers if a.id not in self.kept and a.id in self.probes}
        if fresh:
            self.chunk([self.probes[pid] for pid in fresh], fresh)

    def chunk(self, probes: Sequence[Probe], answers: Mapping[str, Answer]) -> None:
        """Commit ``probes`` not committed yet: with their answers, or, left unanswered, without
        the cache row a refusal read made them score again (:meth:`~.cache.ScoreCache.put`)."""
        rest = [p for p in probes if p.id not in self.kept]
        if self.cache is not None and rest:
            self.cache.put(self.key, rest, answers)
        self.kept.update(p.id for p in rest if p.id in answers)


def _copy(copies: Mapping[str, str], answers: dict[str, Answer], unscorable: dict[str, str]) -> None:
    """Give each repeated probe the answer (or the skip) of the probe it repeats."""
    for pid, origin in copies.items():
        if origin in answers:
            answers[pid] = replace(answers[origin], id=pid)
        elif origin in unscorable:
            unscorable[pid] = unscorable[origin]


def _keep_finished(stop: KeyboardInterrupt, unfinished: Sequence[Probe], cache: ScoreCache | None,
                   key: str) -> set[str]:
    """Commit the answers a stopped scorer finished (:class:`~biasatlas.scorers.resume.Interrupted`)
    among the ``unfinished`` chunks' probes; their ids."""
    if not isinstance(stop, Interrupted):
        return set()
    finished = [p for p in unfinished if p.id in stop.finished]
    if cache is not None and finished:
        cache.put(key, finished, stop.finished)
    return {p.id for p in finished}


def _still_to_do(scorer: Scorer, chunks: Sequence[Sequence[Probe]], plans: Sequence[Mapping[str, int]],
                 cached: Collection[str], skip: Collection[str]) -> Iterable[Mapping[str, int]]:
    """The work of each chunk still to score: a chunk the cache holds nothing of is scored as planned
    (its plan, already made: planning tokenises every probe), one it holds a part of is planned again
    as :func:`planned_work` says its rest is scored (``skip``: the cached probes and the repeats)."""
    for chunk, plan in zip(chunks, plans):
        if not any(p.id in cached for p in chunk):
            yield plan
        elif any(p.id not in skip for p in chunk):
            yield planned_work(scorer, chunk, skip)


def remaining(chunks: Sequence[Sequence[Probe]], answered: Collection[str]) -> list[Sequence[Probe]]:
    """The :func:`chunked` ``chunks`` that still hold a probe to score, whole: the scorer batches a
    chunk over all its probes whatever the cache answered, and skips what it did
    (:mod:`biasatlas.scorers.resume`)."""
    return [chunk for chunk in chunks if any(p.id not in answered for p in chunk)]


def _summed(plans: Iterable[Mapping[str, int]]) -> dict[str, int]:
    """Work counts added up over plans (each chunk is one ``score`` call, batched on its own)."""
    total: dict[str, int] = {}
    for plan in plans:
        for name, count in plan.items():
            total[name] = total.get(name, 0) + count
    return total


def chunked(probes: Sequence[Probe], per_batch: bool = False) -> list[Sequence[Probe]]:
    """The run's chunks, each one ``score`` call batched on its own. Boundaries depend on the
    probe list (and the scorer's kind) only, never on what is cached or on the engine, and are the
    same without a cache: a resumed run, or a Ray run, scores each remaining chunk in the same
    batches as an uninterrupted local one, so its floats are identical to the bit.

    ``per_batch``: the scorer hands on each batch's answers as it finishes, and the pipeline
    commits them then (:func:`~.scorers.engines.keeps_batches`: a model scorer), so durability
    asks nothing of the chunks, and they are as large as a job (:data:`~.scorers.batching.JOB_PROBES`),
    the fewest that hold the run, of equal sizes: a run of up to 1,024 probes is one chunk, its
    batches planned over all of it (100 English CrowS-Pairs on SmolLM2: 9 forward passes, where
    the seven chunks of tenths ran 23). Within a chunk, Ctrl-C or a kill keeps the probes of the
    batches that finished, and the rerun computes only the chunk's other batches, cut as before
    (:mod:`biasatlas.scorers.resume`).

    Otherwise a chunk is the unit of commit: at most ``MAX_CHUNK`` probes, at least ``MIN_CHUNK``
    but for the last; a run of at most two such chunks is cut in tenths instead, of at least
    ``MIN_SMALL_CHUNK``, so a small run commits often too (a 108-probe census run stopped at 17 %
    keeps its first chunk of 16 rather than restarting from zero).
    """
    n = len(probes)
    if per_batch:
        pieces = max(1, -(-n // JOB_PROBES))
        size = max(1, -(-n // pieces))
    elif n <= 2 * MIN_CHUNK:
        size = max(MIN_SMALL_CHUNK, -(-n // 10))
    else:
        size = min(MAX_CHUNK, max(MIN_CHUNK, n // 10))
    return [probes[start:start + size] for start in range(0, n, size)]


def _check_worker(result: ChunkResult, key: str) -> None:
    """Refuse answers from a worker whose scorer is not the one ``key`` names (other
    options in its factory, other model files on its node): they would be cached as this
    scorer's."""
    if result.fingerprint is not None and result.fingerprint != key:
        raise ModelError(f"a worker's scorer is not this run's (fingerprint {result.fingerprint}, "
                         f"expected {key}): build the workers' scorer from the same model files "
                         "and options as this process's")


def _lookup(cache: ScoreCache | None, key: str, probes: Sequence[Probe],
            refresh: bool) -> tuple[dict[str, Answer], int]:
    """Cached answers, and how many stored ones the cache refused (failed checksum, NaN)."""
    if cache is None or refresh:
        return {}, 0
    before = cache.rejected
    found = cache.get(key, probes)
    return found, cache.rejected - before


def _now() -> str:
    """The time in UTC to the second, ISO 8601 (``2026-12-03T08:34:25+00:00``): when a run was made,
    for timing.json, which differs between equivalent runs anyway (a resumed run's other files are
    byte-identical to an uninterrupted one's, so no date may go into them)."""
    from datetime import UTC, datetime

    return datetime.now(UTC).isoformat(timespec="seconds")


def _versions() -> dict[str, Any]:
    """The library versions, and the git commit biasatlas runs from (:func:`~.version.source_commit`)."""
    out: dict[str, Any] = {"biasatlas": __version__, **source_commit(), "python": platform.python_version()}
    for module in ("torch", "transformers", "tokenizers"):
        try:
            out[module] = __import__(module).__version__
        except ImportError:
            continue
    return out
