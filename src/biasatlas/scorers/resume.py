"""Finished batches: what a model scorer hands on as each batch finishes, and keeps when Ctrl-C
stops it inside a chunk, and how the rerun scores the rest of that chunk in the batches the
uninterrupted run used (issue 22, item 5; issue 47).

Why the rest is not simply scored on its own: a chunk (:func:`biasatlas.pipeline.chunked`) is
one ``score`` call; a model scorer runs it as jobs, and each job's distinct rows are cut into
batches over *all* its rows (:func:`.batching.token_batches`: length-sorted, a padded-token
budget chosen by a dynamic programme; :mod:`.prefix` decides sharing over the call's rows).
The probes left over from an interrupted chunk, planned alone, would land in other batches,
with other padding widths and kernel shapes, and their floats could change in the last bits.
So the rerun calls ``score(chunk, answered=ids)``: the jobs and batches of the whole chunk
are built as before, and only the batches that hold a row some unanswered probe reads are
computed (:class:`Watch`). Every value is then computed in the same batch, beside the same
rows, whether the chunk ran whole, was resumed, or ran on a Ray worker.

Reporting: each computed batch calls :attr:`Watch.done` with its rows, and the job's
:class:`JobTrack` moves the progress bar by the probes that batch completed (on a GPU, as the
batch is queued: the bar runs a little ahead of the device). On a CPU, where the engine
computes as it is called, the batch's values are read then too (:attr:`Watch.keep`) and the
answers it completed handed to the caller's ``keep`` (the pipeline commits them: a kill loses
the batch being computed, no more). On a GPU a read waits for the device, so an engine call
queues its batches and reads them once, and answers are handed on as each job is read. On
Ctrl-C the engine raises :class:`Stopped` with a reader of the batches it ran, and the scorer
raises :class:`Interrupted` with the answers of every probe whose rows all ran, for the
pipeline to commit before it says how many answers it kept.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from ..probes import Answer
from .job import Job

B = TypeVar("B")
Reader = Callable[[], list[float]]


def _ignore(rows: Sequence[Any]) -> None:
    return None


@dataclass(frozen=True)
class Watch:
    """What one engine call is asked beside its requests: ``needed``, the rows (model inputs)
    it must compute (None: all; a batch holding none of them is skipped whole, so the batches
    that do run keep their composition), ``done``, called with each computed batch's rows, and
    ``keep``, where set, called after ``done`` with the reader of every batch computed so far
    (the caller keeps the answers that batch finished: :class:`JobTrack`)."""

    needed: frozenset[Any] | None = None
    done: Callable[[Sequence[Any]], None] = _ignore
    keep: Callable[[Reader], None] | None = None

    def wants(self, batch: Sequence[Any]) -> bool:
        """Whether ``batch`` holds a row this call must compute."""
        return self.needed is None or any(row in self.needed for row in batch)


EVERY_ROW = Watch()


class Stopped(KeyboardInterrupt):
    """Ctrl-C inside an engine call: ``read()`` returns the call's values, one per request, of
    the batches computed before it (NaN for the others, which :class:`JobTrack` never reads)."""

    def __init__(self, read: Reader) -> None:
        super().__init__("interrupted inside an engine call")
        self.read = read


class Interrupted(KeyboardInterrupt):
    """Ctrl-C inside :meth:`~.base.Scorer.score`: ``finished`` holds the answers of the probes
    whose every row was computed before it (finite ones, none it was told were answered). A
    :class:`KeyboardInterrupt`, so whatever does not look for the answers stops as before."""

    def __init__(self, finished: Mapping[str, Answer]) -> None:
        super().__init__("interrupted while scoring")
        self.finished = dict(finished)


def launched(plan: Iterable[list[B]], compute: Callable[[list[B]], Any], watch: Watch,
             reader: Callable[[list[tuple[list[B], Any]]], Reader]) -> Reader:
    """Compute each batch of ``plan`` that ``watch`` wants, in order, telling it of each;
    return ``reader(parts)``, the function that reads the parts' values. On Ctrl-C, raise
    :class:`Stopped` with the reader of the parts computed so far."""
    parts: list[tuple[list[B], Any]] = []
    try:
        for batch in plan:
            if watch.wants(batch):
                parts.append((batch, compute(batch)))
                watch.done(batch)  # after the part is kept: a reported row is always readable
                if watch.keep is not None:
                    watch.keep(reader(parts))
    except KeyboardInterrupt:
        raise Stopped(reader(parts)) from None
    return reader(parts)


Keep = Callable[[Sequence[Answer]], None]
"""Called with answers as soon as their every row has run (a pipeline commits them to its cache)."""


class JobTrack:
    """One job's probes that are still to answer: the rows each reads, and which have run.

    A job with :attr:`~.job.Job.spans` (each probe's id and number of requests) is tracked
    probe by probe: a probe is complete when every distinct row of its requests has run, and
    ``tick`` hears of it then. A job without spans is one unit: all its rows, one tick of
    ``n_probes``, answers only when all of them ran.

    ``keep``, where given, gets the answers of the probes each batch completed as soon as it ran
    (``per_batch``: the batch's values are read then, free on a CPU, whose engine computes as it
    is called), so a run killed mid-job loses only the batch it was computing; else as the job is
    read (:func:`run_jobs`). :attr:`kept` names the answers it had.
    """

    def __init__(self, job: Job, answered: Collection[str], model_input: Callable[[Any], Any],
                 tick: Callable[[int], None], keep: Keep | None = None, per_batch: bool = True) -> None:
        self.job, self.answered, self.tick, self.keep = job, answered, tick, keep
        self.owners: list[str | None] = []  # probe ids (None: the whole job) still to answer
        self.kept: set[str] = set()  # ids of the answers handed to keep
        self._left: list[int] = []  # rows each owner still waits for
        self._waiting: dict[Any, list[int]] = {}  # row → owners that read it
        self._completed: list[int] = []  # owners complete since keep last heard of any
        start = 0
        for pid, size in job.spans or ((None, len(job.requests)),):
            requests, start = job.requests[start:start + size], start + size
            if pid is not None and pid in answered:
                continue
            rows = {model_input(r) for r in requests}
            for row in rows:
                self._waiting.setdefault(row, []).append(len(self.owners))
            self.owners.append(pid)
            self._left.append(len(rows))
        self.watch = Watch(frozenset(self._waiting), self._done, self._keep if keep and per_batch else None)

    def _done(self, rows: Sequence[Any]) -> None:
        completed = 0
        for row in rows:
            for owner in self._waiting.pop(row, ()):
                self._left[owner] -= 1
                if self._left[owner] == 0:
                    completed += 1
                    self._completed.append(owner)
        if completed:
            self.tick(completed if self.job.spans else self.job.n_probes)

    def _keep(self, read: Reader) -> None:
        """Hand ``keep`` the answers of the probes completed since it last heard (values: ``read()``)."""
        if not self._completed or self.keep is None:
            return
        owners = {self.owners[i] for i in self._completed}
        self._completed = []
        self.kept_now(self._of(read(), owners))

    def kept_now(self, answers: Sequence[Answer]) -> None:
        """Hand ``keep`` those of ``answers`` it has not had yet."""
        fresh = [a for a in answers if a.id not in self.kept]
        if fresh and self.keep is not None:
            self.kept.update(a.id for a in fresh)
            self.keep(fresh)

    def answers(self, values: list[float], *, finished_only: bool = False) -> list[Answer]:
        """The job's answers from ``values`` (one per request; NaN where a row did not run),
        for the probes still to answer, or with ``finished_only`` those of them complete."""
        return self._of(values, {pid for pid, left in zip(self.owners, self._left)
                                 if not finished_only or left == 0})

    def _of(self, values: list[float], complete: set[str | None]) -> list[Answer]:
        """The answers of the ``complete`` owners (None: the whole job) from ``values``."""
        if not complete:
            return []
        made = self.job.answers(values)
        if None in complete:  # no spans: the whole job
            return [a for a in made if a.id not in self.answered]
        return [a for a in made if a.id in complete]


def batches_needed(jobs: Iterable[Job], answered: Collection[str], model_input: Callable[[Any], Any],
                   batch_plan: Callable[[Sequence[Any]], list[list[Any]]]) -> list[list[Any]]:
    """The batches :func:`run_jobs` computes for ``jobs`` when ``answered`` probes are known
    (``batch_plan``: a job's requests → the engine's batches): each that holds a row another
    probe reads, for :meth:`~.base.ModelScorer.plan`."""
    return [batch for job in jobs if (track := JobTrack(job, answered, model_input, _no_tick)).owners
            for batch in batch_plan(job.requests) if track.watch.wants(batch)]


def _no_tick(n: int) -> None:
    return None


@dataclass(frozen=True)
class Keeping:
    """Where a score call's finished answers go before it returns: ``keep`` (None: nowhere), after
    each batch (``per_batch``) or as each job is read."""

    keep: Keep | None = None
    per_batch: bool = True


NOT_KEPT = Keeping()


def run_jobs(jobs: Iterable[Job], launch: Callable[[Sequence[Any], Watch], Reader],
             model_input: Callable[[Any], Any], answered: Collection[str],
             tick: Callable[[int], None], keeping: Keeping = NOT_KEPT) -> list[Answer]:
    """Each job's engine call (``launch(requests, watch)``), one job ahead of reading its
    results (:meth:`~.base.ModelScorer._run` says why); a job none of whose probes is still to
    answer is not launched, and a launched one computes only the batches its probes need.
    ``keeping`` hears of each answer as soon as it is known (:class:`JobTrack`).

    On Ctrl-C: :class:`Interrupted` with the answers read so far, the job launched before
    (all its batches ran), and the finished probes of the job being launched. Every job is built
    before the first runs (:func:`~.base.scorable_jobs`), so no answer kept here is one the
    uninterrupted run would have thrown away for a later job's failure.
    """
    answers: list[Answer] = []
    unread: list[tuple[JobTrack, Reader]] = []  # launched, every batch run or queued, not read yet
    current: JobTrack | None = None
    try:
        for job in jobs:
            track = JobTrack(job, answered, model_input, tick, keeping.keep, keeping.per_batch)
            if not track.owners:
                continue
            current = track
            read = launch(job.requests, track.watch)
            current = None
            unread.append((track, read))
            while len(unread) > 1:
                answers.extend(_read(*unread[0]))
                unread.pop(0)
        while unread:
            answers.extend(_read(*unread[0]))
            unread.pop(0)
    except KeyboardInterrupt as stop:
        kept = {a.id: a for a in answers}  # a job read twice (stopped as it was read) gives the same answers
        for track, read in unread:
            kept.update({a.id: a for a in track.answers(read())})
        if current is not None and isinstance(stop, Stopped):
            kept.update({a.id: a for a in current.answers(stop.read(), finished_only=True)})
        raise Interrupted(kept) from None
    return answers


def _read(track: JobTrack, read: Reader) -> list[Answer]:
    """A launched job's answers, read (on a device: waiting for it), and handed to its keep."""
    made = track.answers(read())
    track.kept_now(made)
    return made
