"""Where shard tasks run: in this process, in local worker processes, or on Ray Data.

All three call the same :func:`biasatlas.mining.stages.run_shard` on the same tasks, and
tasks write their own files, so the outputs do not depend on the engine or the number of
workers. Ray is optional (``pip install "ray[data]"``); on a cluster the corpus and the
output folder must sit on a filesystem every node can see.
"""

from __future__ import annotations

import ctypes
import json
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Literal, Protocol

EngineName = Literal["local", "ray"]


class Engine(Protocol):
    def map(self, fn: Callable, tasks: Sequence) -> Iterator[tuple[int, dict]]:
        """Yield ``(task index, result)`` as tasks finish, in any order."""

    def close(self) -> None: ...


class InProcessEngine:
    """Runs tasks one after the other here: no start-up cost, and easy to debug."""

    def map(self, fn, tasks):
        for index, task in enumerate(tasks):
            yield index, fn(task)

    def close(self) -> None:
        pass


_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
PARENT_POLL_SECONDS = 0.5


def _watch_parent(parent: int) -> None:
    while True:
        time.sleep(PARENT_POLL_SECONDS)
        if os.getppid() != parent:
            os._exit(1)


def die_with_parent(parent: int) -> None:
    """Worker initializer: end this process as soon as ``parent`` (the pool's owner) dies.

    A worker waiting for work blocks on a pipe that the other workers also hold open, so
    when the parent is SIGKILLed (no ``atexit``, no shutdown) it would wait for ever, and
    one that is mid-shard would go on writing into a folder that a rerun is using. Two
    mechanisms, because each has a gap:

    - Linux ``prctl(PR_SET_PDEATHSIG, SIGKILL)``: the kernel kills the worker the moment
      its parent dies, even while the worker sits in C code holding the GIL. The kernel
      ties it to the parent *thread* that started the worker; the pool starts its workers
      from the thread that submits, which outlives the pool here.
    - A daemon thread that polls ``os.getppid()`` every ``PARENT_POLL_SECONDS`` and exits
      when the worker has been re-parented: portable to other POSIX systems, and a net
      under the first.

    A parent that died before this runs is caught by the same ``getppid`` check.
    """
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(ctypes.c_int(_PR_SET_PDEATHSIG), ctypes.c_ulong(signal.SIGKILL),
                       ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0))
        except (OSError, AttributeError):  # no libc prctl: the thread below still works
            pass
    if os.getppid() != parent:
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), name="watch-parent",
                     daemon=True).start()


class ProcessEngine:
    """A pool of ``workers`` processes kept across stages (each loads jieba once).

    ``spawn`` rather than ``fork``: the parent may run a progress-bar thread, and forking
    a threaded process can deadlock. Workers die with the parent (:func:`die_with_parent`),
    so a killed run leaves no process behind to race its rerun.
    """

    def __init__(self, workers: int) -> None:
        context = multiprocessing.get_context("spawn")
        self._pool = ProcessPoolExecutor(max_workers=workers, mp_context=context,
                                         initializer=die_with_parent,
                                         initargs=(os.getpid(),))

    def map(self, fn, tasks):
        futures = {self._pool.submit(fn, task): i for i, task in enumerate(tasks)}
        for future in as_completed(futures):
            yield futures[future], future.result()

    def close(self) -> None:
        self._pool.shutdown(cancel_futures=True)


class RayEngine:
    """Tasks as rows of a Ray Dataset, mapped by the same function.

    Joins a running Ray instance (``ray.init`` done by the caller, or ``RAY_ADDRESS``)
    or starts a local one.
    """

    def __init__(self) -> None:
        try:
            import ray
        except ImportError as exc:
            raise ImportError('the ray engine needs Ray Data: pip install "ray[data]"') from exc
        if not ray.is_initialized():
            ray.init()
        self._ray = ray

    def map(self, fn, tasks):
        if not tasks:
            return
        import ray.data

        items = [{"i": i} for i in range(len(tasks))]

        def run_row(row: dict) -> dict:
            return {"i": row["i"], "result": json.dumps(fn(tasks[row["i"]]))}

        dataset = ray.data.from_items(items, override_num_blocks=len(items)).map(run_row)
        for row in dataset.iter_rows():
            yield int(row["i"]), json.loads(row["result"])

    def close(self) -> None:
        pass


def make_engine(name: EngineName, workers: int) -> Engine:
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    if name == "ray":
        return RayEngine()
    if name != "local":
        raise ValueError(f"engine must be 'local' or 'ray', got {name!r}")
    return InProcessEngine() if workers == 1 else ProcessEngine(workers)
