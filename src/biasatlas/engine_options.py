"""Where a run's chunks are scored: :class:`EngineOptions` (in this process, or on a Ray actor
pool), ``biasatlas run``'s engine flags (:func:`~biasatlas.option_fields.option`). None of them
changes a score, so none is part of a run's recorded request."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .errors import UsageError, did_you_mean
from .model_options import ModelOptions
from .option_fields import check_fields, option
from .scorers.engines import EngineName
from .scorers.ray_preflight import DEFAULT_TIMEOUT
from .scorers.threads import check_thread_count
from .values import check_seconds

if TYPE_CHECKING:
    from .scorers.engines import ScoringEngine

__all__ = ["EngineOptions"]


@dataclass(frozen=True)
class EngineOptions:
    """Where the chunks are scored (docs/scale.md): in this process, or on a Ray actor pool of
    ``workers`` scorers (``ray_address`` joins a cluster; ``worker_gpus`` defaults to 1 with a
    CUDA device); ``threads`` torch's CPU threads (:mod:`biasatlas.scorers.threads`). None of them
    changes a score, so none is part of a run's recorded request."""

    engine: EngineName = option("local", "local (default) | ray: score the same chunks on a Ray actor pool "
                                 "(docs/scale.md).")
    ray_address: str | None = option(None, "Join this Ray cluster ('auto', 'ray://head:10001'); default: a local "
                                      "instance.", metavar="<address>")
    workers: int = option(1, "Ray workers, one scorer each.", minimum=1)
    worker_cpus: float = option(1.0, "CPUs per Ray worker.", minimum=0)
    worker_gpus: float | None = option(None, "GPUs per Ray worker (default: 1 with --device cuda, else 0).",
                                        minimum=0)
    ray_timeout: float = option(DEFAULT_TIMEOUT, "Seconds to wait for the Ray cluster at --ray-address to answer.",
                                 metavar="<seconds>", minimum=0)
    threads: int | None = option(None, "CPU threads torch scores with (default: the CPUs this process can get "
                                  "that are idle now; OMP_NUM_THREADS if set). Ray: per worker.",
                                  unscored=True, minimum=1, metavar="<N>")

    def __post_init__(self) -> None:
        from typing import get_args

        check_fields(self)
        if self.engine not in get_args(EngineName):
            raise did_you_mean("engine", str(self.engine), get_args(EngineName))
        if isinstance(self.workers, bool) or not isinstance(self.workers, int) or self.workers < 1:
            raise UsageError(f"workers must be a whole number of at least 1, not {self.workers!r}")
        for name in ("worker_cpus", "worker_gpus", "ray_timeout"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int | float) or value < 0):
                raise UsageError(f"{name} must be a number of at least 0, not {value!r}")
        if self.threads is not None and self.threads < 1:
            raise UsageError(f"threads must be a whole number of at least 1, not {self.threads!r}")
        if self.threads is not None:
            check_thread_count(self.threads, {})  # the value; the environment is the run's (check_threads)
        if self.ray_timeout == 0:  # a connect of no time at all never succeeds
            raise UsageError("ray_timeout must be more than 0 seconds")
        check_seconds("--ray-timeout", self.ray_timeout)  # inf or 1e12 overflow the socket layer's time_t

    def check_threads(self) -> None:
        """Refuse ``threads`` or this process's ``OMP_NUM_THREADS`` past the ceiling
        (:func:`~biasatlas.scorers.threads.check_thread_count`): called when a run starts, before
        its folder is claimed or torch loads, as the environment is read then, not when the record
        is built (a default record is built at import)."""
        check_thread_count(self.threads)

    def build(self, model: ModelOptions) -> ScoringEngine:
        """The engine; Ray workers build their own scorers from ``model`` (a picklable bound method)."""
        from .scorers.engines import make_engine

        return make_engine(self.engine, model.build, workers=self.workers, worker_cpus=self.worker_cpus,
                           worker_gpus=self.worker_gpus, address=self.ray_address, device=model.device,
                           threads=self.threads, timeout=self.ray_timeout)
