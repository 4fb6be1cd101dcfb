"""Where shard tasks run: in this process, in local worker processes, or on Ray Data.

All three call the same :func:`biasatlas.mining.stages.execute` on the same tasks, and
tasks write their own files, so the outputs do not depend on the engine or the number of
workers. Ray is optional (``pip install "ray[data]"``); on a cluster the corpus and the
output folder must sit on a filesystem every node can see.
"""

from __future__ import annotations

import json
import multiprocessing
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


class ProcessEngine:
    """A pool of ``workers`` processes kept across stages (each loads jieba once).

    ``spawn`` rather than ``fork``: the parent may run a progress-bar thread, and forking
    a threaded process can deadlock.
    """

    def __init__(self, workers: int) -> None:
        context = multiprocessing.get_context("spawn")
        self._pool = ProcessPoolExecutor(max_workers=workers, mp_context=context)

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
