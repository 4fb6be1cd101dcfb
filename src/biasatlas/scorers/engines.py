"""Where a run's chunks of probes are scored: here, or on a pool of Ray actors.

The pipeline cuts the probe list into chunks whose boundaries depend on the probe list
only (:mod:`biasatlas.pipeline`), and hands an engine each chunk the score cache could not
answer in full, with the ids it did answer. Both engines call the same :func:`score_chunk`,
which batches the whole chunk and computes what is not answered, so every float is the same
whichever engine ran it: a :class:`RayEngine` run folder is a :class:`LocalEngine` one, to the
byte. The pipeline commits each chunk's answers as it comes, a model scorer's local ones as
each batch finishes (``keep``, :mod:`.resume`); a Ray run keeps the chunks that came back.

:class:`RayEngine` maps the chunks over a Ray Data actor pool (``map_batches`` with an
actor class, one chunk per batch): each actor builds its own scorer once, from a
picklable factory, on the GPU (or CPUs) Ray gave it. Ray is optional
(``pip install "ray[data]"``); on a cluster every node needs biasatlas, its extras and the model (the
same files: each worker's scorer fingerprint is checked against the driver's before its answers are kept).
"""

from __future__ import annotations

import logging
import os
import pickle
import socket
import sys
import time
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from ..errors import BiasAtlasError, UsageError
from ..probes import Answer, Probe, Scored
from .base import ModelScorer, Progress, Scorer
from .resume import Interrupted, Keep
from .threads import ThreadChoice, choose_threads, torch_threads
from .ray_preflight import (DEFAULT_TIMEOUT, Pool, RayUnreachable, check_address, check_cluster, local_resources,
                            ray_running)

EngineName = Literal["local", "ray"]
# Chunks given to a worker at a time. One: a worker that started first cannot hoard chunks one
# starting a second later would score; the round trip costs milliseconds against seconds.
IN_FLIGHT = 1
ScorerFactory = Callable[[], Scorer]
"""Builds a scorer in a worker: picklable, e.g. ``functools.partial(load_scorer, model, kind, **options)``."""


@dataclass(frozen=True)
class ChunkResult:
    """One chunk's answers; ``index`` is the chunk's place in the list the engine was given.

    The work the scorer did on the chunk travels on its answers (:attr:`Scored.work`: rows, batches), so a
    run's counts are the sum over its chunks wherever they ran. ``fingerprint`` is the scoring worker's own
    scorer fingerprint (None when the driver's scorer answered): the pipeline refuses answers from a scorer
    that is not the one its cache key names.
    """

    index: int
    scored: Scored
    fingerprint: str | None = None


class ScoringEngine(Protocol):
    """Scores chunks of probes; yields one :class:`ChunkResult` per chunk, in any order."""

    name: str

    def score_chunks(self, scorer: Scorer, chunks: Sequence[Sequence[Probe]],
                     progress: Progress, answered: Collection[str] = frozenset(), *,
                     keep: Keep | None = None) -> Iterator[ChunkResult]:
        """Answer each chunk with ``scorer`` (or scorers like it), calling ``progress`` with the
        number of probes answered as they are answered; probes named in ``answered`` are not
        answered again (:func:`score_chunk`); ``keep`` may hear of answers before their chunk is done."""
        ...

    def describe(self) -> dict[str, Any]:
        """What ran the chunks (for timing.json: never part of the results)."""
        ...

    def preflight(self) -> None:
        """Refuse, before any model loads, settings this engine would wait on forever."""
        ...

    def close(self) -> None:
        """Release what the engine started (its Ray instance); the caller owns the engine."""
        ...


class LocalEngine:
    """The chunks one after the other, with the caller's scorer, in this process, on
    ``threads`` torch threads (None: :func:`~.threads.choose_threads`'s default, which never
    asks for more CPUs than the process can get; torch's own setting is restored after)."""

    name = "local"

    def __init__(self, threads: int | None = None) -> None:
        self.threads = threads
        self._choice: ThreadChoice | None = None

    def score_chunks(self, scorer: Scorer, chunks: Sequence[Sequence[Probe]],
                     progress: Progress, answered: Collection[str] = frozenset(), *,
                     keep: Keep | None = None) -> Iterator[ChunkResult]:
        """``keep`` hears of answers as their batches finish; on Ctrl-C the scorer's
        :class:`~.resume.Interrupted` comes through, with the answers of the finished batches."""
        self._choice = choose_threads(self.threads)
        with torch_threads(self._choice.threads):
            for index, probes in enumerate(chunks):
                yield ChunkResult(index, score_chunk(scorer, probes, answered, progress, keep))

    def describe(self) -> dict[str, Any]:
        """The engine's name and, once it scored, the threads it used and why (timing.json)."""
        return {"name": self.name, **({} if self._choice is None else self._choice.as_dict())}

    def preflight(self) -> None:
        pass

    def close(self) -> None:
        pass


def score_chunk(scorer: Scorer, probes: Sequence[Probe], answered: Collection[str],
                progress: Progress | None = None, keep: Keep | None = None) -> Scored:
    """``scorer``'s answers to the chunk's probes not in ``answered``, batched as the whole chunk
    is, ``keep`` hearing of them as they finish (:func:`keeps_batches`). A scorer with a ``score`` of
    its own gets the unanswered probes alone and keeps no batches, unless it batches whole chunks
    (:attr:`Scorer.scores_whole_chunks`: a served one, kept once the chunk's closing canary agrees)."""
    if type(scorer).score is Scorer.score:
        return scorer.score_keeping(probes, progress, answered=answered, keep=keep)
    if scorer.scores_whole_chunks:
        return scorer.score(probes, progress, answered=answered)
    try:
        return scorer.score([p for p in probes if p.id not in answered], progress)
    except Interrupted:
        raise KeyboardInterrupt from None


def keeps_batches(scorer: Scorer) -> bool:
    """Whether ``keep`` hears of ``scorer``'s answers as its batches finish (:func:`score_chunk`):
    a model scorer's own :meth:`Scorer.score_keeping` (:func:`.resume.run_jobs`)."""
    return type(scorer).score is Scorer.score and isinstance(scorer, ModelScorer)


def planned_work(scorer: Scorer, probes: Sequence[Probe], answered: Collection[str]) -> Mapping[str, int]:
    """``scorer.plan`` of the work :func:`score_chunk` does on this chunk."""
    if _whole_chunks(scorer):
        return scorer.plan(probes, answered)
    return scorer.plan([p for p in probes if p.id not in answered])


def _whole_chunks(scorer: Scorer) -> bool:
    """Whether ``scorer.score`` batches a whole chunk, skipping ``answered`` (:meth:`Scorer.score`'s)."""
    return type(scorer).score is Scorer.score or scorer.scores_whole_chunks


# -- Ray -----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Reply:
    """What a worker sends back for one chunk: the answers, or the biasatlas error it met.

    ``worker`` (host and process id), ``seconds_build`` (its scorer's construction: imports, model load,
    fingerprint) and ``seconds_score`` (this chunk) let the driver say where a Ray run's time went.
    """

    answers: dict[str, Answer]
    unscorable: dict[str, str]
    work: dict[str, int]
    fingerprint: str
    worker: str
    seconds_build: float
    seconds_score: float = 0.0
    error: BiasAtlasError | None = None


class _ScoreWorker:
    """A Ray Data actor: builds one scorer, then answers one pickled chunk per batch.

    Chunks and replies travel pickled (``bytes`` columns), because a batch of probe
    dataclasses is not a table. ``threads`` sets torch's intra-op threads before the
    scorer is built (see :class:`RayEngine`). A biasatlas error (a model that will not
    load, an unsupported option) travels back as the error itself, so the driver raises
    the typed error the CLI prints in one line rather than a Ray traceback.
    """

    def __init__(self, factory: ScorerFactory, threads: int | None = None) -> None:
        started = time.perf_counter()
        self.error: BiasAtlasError | None = None
        self.fingerprint = ""
        self.worker = f"{socket.gethostname()}:{os.getpid()}"
        if threads:
            import torch

            torch.set_num_threads(threads)
        try:
            self.scorer = factory()
            self.fingerprint = self.scorer.fingerprint()
        except BiasAtlasError as exc:
            self.error = exc
        self.seconds_build = time.perf_counter() - started

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        import numpy as np

        out = [pickle.dumps(self._answer(pickle.loads(bytes(chunk)))) for chunk in batch["chunk"]]
        return {"index": np.asarray(batch["index"]), "reply": np.array(out, dtype=object)}

    def _answer(self, chunk: tuple[list[Probe], frozenset[str]]) -> _Reply:
        started = time.perf_counter()
        error = self.error
        scored = Scored({})
        if error is None:
            try:
                scored = score_chunk(self.scorer, *chunk)
            except BiasAtlasError as exc:
                error = exc
        return _Reply(dict(scored.answers), dict(scored.unscorable), dict(scored.work), self.fingerprint,
                      self.worker, self.seconds_build, time.perf_counter() - started, error)


class RayEngine:
    """The chunks mapped over a Ray Data actor pool of ``workers`` scorers.

    Each worker holds ``worker_gpus`` GPUs (1: one scorer per GPU; Ray sets
    ``CUDA_VISIBLE_DEVICES``, so the factory's device is plain ``cuda``) and
    ``worker_cpus`` CPUs, and builds its scorer with ``factory``. Ray itself: the
    running instance when this process already called ``ray.init``; else the cluster at
    ``address`` (``"auto"`` or ``"ray://host:10001"``); else a local instance started
    here with ``num_cpus`` CPUs (default ``workers × worker_cpus``) and no dashboard,
    shut down by :meth:`close`. Start-up is lazy (first run) and timed apart.

    ``threads`` is each CPU worker's number of torch intra-op threads; by default this
    process's own. A CPU matrix product's last bits depend on how many threads split it
    (BERT-base's 3,072 → 768 projection: up to 3e-5 between 1 and 2), so only CPU workers
    with the driver's thread count reproduce a local run to the bit; ``threads=worker_cpus``
    is faster. GPU workers keep Ray's setting: their arithmetic runs on the GPU.

    One chunk is one batch and one task; results come back as chunks finish, and the
    pipeline puts them back in chunk order, whichever worker was faster.
    """

    name = "ray"

    def __init__(self, factory: ScorerFactory, *, workers: int = 1, worker_cpus: float = 1.0,
                 worker_gpus: float = 0.0, address: str | None = None, num_cpus: int | None = None,
                 threads: int | None = None, timeout: float = DEFAULT_TIMEOUT) -> None:
        if workers < 1:
            raise UsageError(f"the ray engine needs at least one worker, not {workers}")
        if worker_cpus < 0 or worker_gpus < 0:
            raise UsageError("a worker's CPUs and GPUs cannot be negative")
        self.factory, self.workers = factory, int(workers)
        self.worker_cpus, self.worker_gpus = float(worker_cpus), float(worker_gpus)
        self.address, self.num_cpus, self.threads, self.timeout = address, num_cpus, threads, timeout
        self._started_here = False
        self._seconds_init: float | None = None
        self._build: dict[str, float] = {}  # worker → seconds to build its scorer (last run)
        self._scoring = 0.0  # seconds the workers spent scoring (last run, summed)

    @property
    def pool(self) -> Pool:
        return Pool(self.workers, self.worker_cpus, self.worker_gpus)

    def preflight(self) -> None:
        """Ray is installed, the address reads and answers, a local instance can hold the pool
        (:mod:`.ray_preflight`); a joined cluster's room is checked when joined."""
        import importlib.util

        if importlib.util.find_spec("ray") is None:
            raise UsageError('the ray engine needs Ray Data: pip install "biasatlas[ray]"')
        if self.address is not None:
            check_address(self.address, self.timeout)
        elif not ray_running():
            local_resources(self.pool)

    def start(self) -> None:
        """Join or start Ray (idempotent): the first run does this on its own. Ray's own log
        lines stay out of the terminal (``log_to_driver=False``, errors only): the run's
        progress and its one-line errors are what the user reads."""
        self.preflight()
        import ray

        if ray.is_initialized():
            check_cluster(self.pool, ray.nodes(), "this process's Ray instance")
            self._seconds_init = self._seconds_init or 0.0
            return
        quiet = {"log_to_driver": False, "logging_level": logging.ERROR}
        started = time.perf_counter()
        if self.address is not None:
            try:
                ray.init(address=self.address, **quiet)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                raise RayUnreachable(f"cannot join the Ray cluster at {self.address}: "
                                     f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from None
            try:
                check_cluster(self.pool, ray.nodes(), self.address)
            except UsageError:
                ray.shutdown()  # leave the cluster: this process joined it for nothing
                raise
        else:
            resources = local_resources(self.pool)
            if self.num_cpus:
                resources["num_cpus"] = self.num_cpus
            ray.init(**resources, include_dashboard=False, **quiet)
            self._started_here = True
        self._seconds_init = time.perf_counter() - started

    def score_chunks(self, scorer: Scorer, chunks: Sequence[Sequence[Probe]],
                     progress: Progress, answered: Collection[str] = frozenset(), *,
                     keep: Keep | None = None) -> Iterator[ChunkResult]:
        """Scores ``chunks`` on the pool; ``scorer`` (the driver's) is not called here. Each chunk
        travels with its own answered ids and comes back whole (``keep`` hears of nothing early);
        on Ctrl-C only the chunks already back are kept."""
        if not chunks:
            return
        self.start()
        self._build, self._scoring = {}, 0.0
        import ray.data

        context = ray.data.DataContext.get_current()
        bars, chatty = context.enable_progress_bars, context.print_on_execution_start
        context.enable_progress_bars = context.print_on_execution_start = False  # ours is the bar
        data_log = logging.getLogger("ray.data")  # its "execution finished" lines: errors only
        level = data_log.level
        data_log.setLevel(logging.ERROR)
        try:
            rows = [{"index": i, "chunk": pickle.dumps((list(c), frozenset(p.id for p in c if p.id in answered)))}
                    for i, c in enumerate(chunks)]
            pool = ray.data.ActorPoolStrategy(size=min(self.workers, len(rows)),
                                              max_tasks_in_flight_per_actor=IN_FLIGHT)
            dataset = ray.data.from_items(rows, override_num_blocks=len(rows)).map_batches(
                _ScoreWorker, fn_constructor_args=(self.factory, self._threads()), batch_size=1,
                batch_format="numpy", compute=pool, num_cpus=self.worker_cpus, num_gpus=self.worker_gpus or None)
            for row in dataset.iter_rows():
                index, reply = int(row["index"]), pickle.loads(row["reply"])
                if reply.error is not None:
                    raise reply.error
                self._note(reply)
                progress(sum(p.id not in answered for p in chunks[index]))
                yield ChunkResult(index, Scored(reply.answers, reply.unscorable, reply.work), reply.fingerprint)
        finally:
            context.enable_progress_bars, context.print_on_execution_start = bars, chatty
            data_log.setLevel(level)

    def _note(self, reply: _Reply) -> None:
        self._build[reply.worker] = reply.seconds_build
        self._scoring += reply.seconds_score

    def _threads(self) -> int | None:
        """The workers' torch threads: as given; else, for CPU workers, this process's own
        when it has torch; else Ray's (None)."""
        if self.threads is not None or self.worker_gpus:
            return self.threads
        torch = sys.modules.get("torch")
        return int(torch.get_num_threads()) if torch is not None else None

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "workers": self.workers, "threads": self._threads(),
                "worker_cpus": self.worker_cpus,
                "worker_gpus": self.worker_gpus, "address": self.address or "local",
                "seconds_ray_start": None if self._seconds_init is None else round(self._seconds_init, 3),
                "workers_used": len(self._build),
                "seconds_worker_build": round(max(self._build.values(), default=0.0), 3),
                "seconds_worker_scoring": round(self._scoring, 3)}

    def close(self) -> None:
        """Shut Ray down if this engine started it; a joined instance is left running."""
        if self._started_here:
            import ray

            ray.shutdown()
            self._started_here = False


def make_engine(name: EngineName | str, factory: ScorerFactory | None = None, *, workers: int = 1,
                worker_cpus: float = 1.0, worker_gpus: float | None = None, address: str | None = None,
                device: str = "cpu", threads: int | None = None,
                timeout: float = DEFAULT_TIMEOUT) -> LocalEngine | RayEngine:
    """The engine a command line names: ``local`` (the default), or ``ray`` with the
    factory each worker builds its scorer from (the other options are :class:`RayEngine`'s).

    ``worker_gpus`` defaults to one GPU per worker when the scorer's ``device`` is CUDA,
    else none. A numbered device (``cuda:1``) is refused with Ray: each worker sees only
    the GPUs Ray gave it, as ``cuda`` (``cuda:0``).
    """
    if name == "local":
        return LocalEngine(threads)
    if name != "ray":
        raise UsageError(f"the engine is 'local' or 'ray', not {name!r}")
    if factory is None:
        raise UsageError("the ray engine needs a scorer factory for its workers")
    if device.startswith("cuda:"):
        raise UsageError(f"with the ray engine pass --device cuda, not {device}: each worker "
                         "gets its own GPU from Ray and sees it as cuda")
    gpus = worker_gpus if worker_gpus is not None else (1.0 if device.startswith("cuda") else 0.0)
    return RayEngine(factory, workers=workers, worker_cpus=worker_cpus, worker_gpus=gpus, address=address,
                     threads=threads, timeout=timeout)
