"""What the Ray engine checks before a model loads, so that it fails in a line instead of waiting.

Ray schedules an actor only where its resources are free and otherwise waits, without
end and without a word: a worker asking 1.4 CPUs of a local instance started with one
(``round(1.4)``), or a GPU of a machine without one, is never placed; and joining an
address where no cluster answers waits on a connection Ray retries for its own
reasons, printing its C++ log lines. So, before any weights load:

- the address has a form Ray reads (``auto``, ``HOST:PORT``, ``ray://HOST:PORT``), and
  something answers at it within ``timeout`` seconds (a TCP connection, nothing more);
- a local instance can hold the pool: no worker asks more CPUs than the machine has, nor
  more GPUs than torch sees; the instance is then started with enough (``ceil``) of each;
- a joined cluster (checked once joined) has a node that fits one worker, and room for
  the pool in all.
"""

from __future__ import annotations

import math
import os
import socket
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from ..errors import BiasAtlasError, UsageError

__all__ = ["DEFAULT_TIMEOUT", "Pool", "RayUnreachable", "check_address", "check_cluster", "local_resources"]

#: Seconds to wait for a Ray address to answer (``--ray-timeout``).
DEFAULT_TIMEOUT = 10.0


class RayUnreachable(BiasAtlasError):
    """Nothing answers at the Ray address given: a failure at run time (exit 1)."""

    exit_code = 1


@dataclass(frozen=True)
class Pool:
    """What the actor pool asks: ``workers`` actors of ``cpus`` CPUs and ``gpus`` GPUs each."""

    workers: int
    cpus: float
    gpus: float

    def describe(self) -> str:
        """``3 workers of 1 CPU and 1 GPU need``: the subject and verb of a refusal."""
        gpus = f" and {self.gpus:g} GPU{'s' * (self.gpus != 1)}" if self.gpus else ""
        many = self.workers != 1
        return (f"{self.workers} worker{'s' * many} of {self.cpus:g} CPU{'s' * (self.cpus != 1)}{gpus} "
                f"need{'s' * (not many)}")


def check_address(address: str, timeout: float = DEFAULT_TIMEOUT) -> None:
    """Refuse an address Ray cannot read (:class:`UsageError`) or where nothing answers
    within ``timeout`` seconds (:class:`RayUnreachable`). ``auto`` (a cluster on this
    machine, found by Ray's own record) is left to Ray, which fails at once without one."""
    if address in ("auto", "local"):
        return
    rest = address[len("ray://"):] if address.startswith("ray://") else address
    try:
        parts = urlsplit(f"//{rest}")
        host, port = parts.hostname, parts.port
    except ValueError:
        host = port = None
    if not host or port is None or parts.path or "://" in rest:
        raise UsageError(f"--ray-address {address!r} is not a Ray address: use auto, HOST:PORT (a cluster's "
                         "head, e.g. 10.0.0.5:6379) or ray://HOST:PORT (Ray Client)")
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except TimeoutError:
        raise RayUnreachable(f"no Ray cluster answered at {address} within {timeout:g} s (--ray-timeout): is "
                             "its head running, and is the port open from here?") from None
    except OSError as exc:
        raise RayUnreachable(f"no Ray cluster at {address}: {exc.strerror or exc}") from None


def local_resources(pool: Pool) -> dict[str, int]:
    """The ``num_cpus`` and ``num_gpus`` a local Ray instance needs to hold ``pool``, after
    refusing a pool this machine cannot hold (:class:`UsageError`, naming the option)."""
    machine_cpus = os.cpu_count() or 1
    if pool.cpus > machine_cpus:
        raise UsageError(f"--worker-cpus {pool.cpus:g} is more than this machine's {machine_cpus} CPUs")
    gpus = _visible_gpus() if pool.gpus else 0
    needed_gpus = math.ceil(pool.workers * pool.gpus - 1e-9)
    if needed_gpus > gpus:
        have = f"{gpus} GPU{'s' * (gpus != 1)}" if gpus else "no GPU"
        raise UsageError(f"{pool.describe()} {needed_gpus} GPU{'s' * (needed_gpus != 1)}; this machine has "
                         f"{have} (--worker-gpus, --workers)")
    return {"num_cpus": max(1, math.ceil(pool.workers * pool.cpus - 1e-9)), "num_gpus": gpus}


def _visible_gpus() -> int:
    """The CUDA GPUs this process can use, as torch counts them (none without torch)."""
    try:
        import torch
    except ImportError:
        return 0
    return int(torch.cuda.device_count())


def check_cluster(pool: Pool, nodes: Iterable[Mapping[str, Any]], where: str) -> None:
    """Refuse a pool the joined cluster cannot place (``nodes``: ``ray.nodes()``): Ray would
    wait for resources no node will free."""
    alive = [n.get("Resources") or {} for n in nodes if n.get("Alive", True)]
    fits = [r for r in alive if r.get("CPU", 0) >= pool.cpus and r.get("GPU", 0) >= pool.gpus]
    if not fits:
        largest = max(alive, key=lambda r: (r.get("GPU", 0), r.get("CPU", 0)), default={})
        raise UsageError(f"no node of the Ray cluster at {where} has room for one worker of {pool.cpus:g} CPUs"
                         f"{f' and {pool.gpus:g} GPUs' if pool.gpus else ''} (the largest has "
                         f"{largest.get('CPU', 0):g} CPUs, {largest.get('GPU', 0):g} GPUs): lower --worker-cpus "
                         "or --worker-gpus")
    for name, each in (("CPU", pool.cpus), ("GPU", pool.gpus)):
        total = sum(r.get(name, 0) for r in alive)
        if each and pool.workers * each > total + 1e-9:
            raise UsageError(f"{pool.describe()} {pool.workers * each:g} {name}s; the Ray cluster at {where} "
                             f"has {total:g}: lower --workers")


def ray_running() -> bool:
    """Whether this process has already joined or started Ray (without importing it)."""
    ray = sys.modules.get("ray")
    return bool(ray is not None and ray.is_initialized())
