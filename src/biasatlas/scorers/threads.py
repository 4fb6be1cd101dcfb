"""How many CPU threads torch scores with, chosen so that a run never asks for more CPUs than
it can get (``--threads``, ``threads=``; issue 40, item 1).

torch starts as many intra-op threads as the machine has cores, whatever else runs there. Its
OpenMP threads meet at a barrier after every parallel operator, so when one of them waits for
a core the others wait for it: on a 2-core machine at a load average of 17, the first five
English CrowS-Pairs on SmolLM2 (10 rows, 2 forward passes) took 235 s of scoring with torch's
default two threads and 14 s with one. The default here is what the process can actually get:

    threads = max(1, min(usable, round(idle)))
    usable  = min(CPUs in this process's affinity mask, floor of its cgroup CPU quota)
    idle    = CPUs of the machine − the 1-minute load average

``usable`` is what the kernel lets this process run on (``os.sched_getaffinity``: ``taskset``,
a batch scheduler's cpuset) and what the cgroup lets it spend (v2 ``cpu.max``, v1
``cpu.cfs_quota_us / cpu.cfs_period_us``: a container's ``--cpus``); ``idle`` is what the
other processes leave (the load average counts runnable tasks over the whole machine,
hence ``os.cpu_count``). ``round`` rather than ``floor``: on an idle machine the load
average is rarely 0 (0.2 on an idle 2-core box), and one thread there would halve the speed.
An explicit ``--threads N`` wins, then ``OMP_NUM_THREADS`` from the environment (the user
already chose); the choice and what it was computed from go to timing.json.

The thread count is ``unscored`` like the batch size: it is left out of the run's recorded
request and of the score cache's key. It can move a CPU score's last bits (how many threads
split a reduction; SmolLM2 on five CrowS-Pairs: a likelihood difference of 9.264979600906372
with one thread, 9.264969766139984 with two, every score identical at the 3 decimals the
records keep), so a run that must match another to the bit on a CPU passes the same
``--threads`` (timing.json records the count every run used). The default is read once per
process (:func:`default_budget`), so the runs of one process (a suite, a test session, a
notebook) all score with the same count whatever the load does meanwhile.

OpenMP's wait policy: a thread that reaches a barrier first spins (libgomp: for up to
300,000 iterations) before it sleeps, burning a core the loaded machine's other processes
wanted. ``OMP_WAIT_POLICY=PASSIVE`` makes it sleep at once. libgomp reads the variable when
it is loaded, that is at ``import torch``; :func:`passive_openmp` sets it (unless the user set
it) and is called by ``import biasatlas`` (the package root), which every entry point
(command line, Python API, suites, tests) passes through before any torch import of ours.

bench/bench_threads.py measures both (the five pairs, seconds of scoring, one fresh process each,
on this project's shared 2-core machine, which is never idle; load average in brackets):

    setting                          ambient (7)   +4 busy loops (9)   ambient (15)  +4 busy loops (18–22)
    before: 2 threads, spin wait     18.1          32.3                51.8          > 300
    default: 1 thread here, passive   1.9           2.2                 6.7           23.8
    1 thread, passive                 1.9           3.3                 3.9           16.3
    2 threads, passive                1.3           6.8                 3.8            7.6

The spinning wait is most of the loss; with a passive wait two threads are sometimes faster for
this process on a loaded machine (more threads, more of the CPU taken from the others), but the
default does not oversubscribe: it leaves the other processes their share.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Iterator, MutableMapping
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

__all__ = ["CpuBudget", "ThreadChoice", "cgroup_quota", "choose_threads", "default_budget", "passive_openmp",
           "torch_threads"]

#: libgomp's and LLVM OpenMP's variable for what a waiting thread does (ACTIVE: spin; PASSIVE: sleep).
WAIT_POLICY = "OMP_WAIT_POLICY"


@dataclass(frozen=True)
class CpuBudget:
    """What this process may use of the machine: ``affinity`` (CPUs it may run on), ``quota``
    (its cgroup's CPU quota in CPUs, None for none), ``load`` (the 1-minute load average) and
    ``machine`` (the CPUs the load average is spread over)."""

    affinity: int
    quota: float | None
    load: float
    machine: int

    def __post_init__(self) -> None:
        if self.affinity < 1 or self.machine < 1:
            raise ValueError(f"a process has at least one CPU, not affinity={self.affinity}, machine={self.machine}")
        if self.quota is not None and self.quota <= 0:
            raise ValueError(f"a CPU quota is positive, not {self.quota}")

    @classmethod
    def here(cls) -> CpuBudget:
        """This process's budget, read from the kernel now."""
        machine = os.cpu_count() or 1
        affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else machine
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
        return cls(affinity=affinity, quota=cgroup_quota(), load=load, machine=machine)

    @property
    def usable(self) -> int:
        """CPUs the kernel lets this process use at once: its affinity, capped by the quota's
        whole CPUs (a quota of 1.5 CPUs gets one thread: two would be throttled)."""
        capped = self.affinity if self.quota is None else min(self.affinity, math.floor(self.quota))
        return max(1, capped)

    @property
    def idle(self) -> float:
        """CPUs the other processes leave free (never below 0)."""
        return max(0.0, self.machine - self.load)

    def threads(self) -> int:
        """The default: the usable CPUs that are idle, rounded half up, at least one."""
        return max(1, min(self.usable, math.floor(self.idle + 0.5)))

    def describe(self) -> str:
        quota = "none" if self.quota is None else f"{self.quota:g}"
        return (f"{self.usable} usable CPUs (affinity {self.affinity}, cgroup quota {quota}), load {self.load:.1f} "
                f"on {self.machine}")


@dataclass(frozen=True)
class ThreadChoice:
    """The threads a run scores with and why (``chosen_by``: ``threads``, ``OMP_NUM_THREADS`` or
    ``default``), with the budget the default read; for timing.json."""

    threads: int
    chosen_by: str
    budget: str | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"threads": self.threads, "threads_chosen_by": self.chosen_by,
                               "omp_wait_policy": os.environ.get(WAIT_POLICY, "unset")}
        if self.budget is not None:
            out["cpu_budget"] = self.budget
        return out


def choose_threads(requested: int | None, environ: MutableMapping[str, str] | None = None,
                   budget: CpuBudget | None = None) -> ThreadChoice:
    """``requested`` if given; else ``OMP_NUM_THREADS`` when the environment sets a positive
    whole number; else the :class:`CpuBudget`'s default (``budget``, read here when None)."""
    if requested is not None:
        if isinstance(requested, bool) or not isinstance(requested, int) or requested < 1:
            raise ValueError(f"threads is a whole number of at least 1, not {requested!r}")
        return ThreadChoice(requested, "threads")
    env = os.environ if environ is None else environ
    given = env.get("OMP_NUM_THREADS", "").strip()
    if given.isdigit() and int(given) >= 1:
        return ThreadChoice(int(given), "OMP_NUM_THREADS")
    budget = budget or default_budget()
    return ThreadChoice(budget.threads(), "default", budget.describe())


@cache
def default_budget() -> CpuBudget:
    """This process's :class:`CpuBudget`, read on first use and kept (see the module's docstring)."""
    return CpuBudget.here()


def cgroup_quota(root: Path = Path("/sys/fs/cgroup"), self_cgroup: Path = Path("/proc/self/cgroup")) -> float | None:
    """This process's cgroup CPU quota in CPUs, or None where there is none (or none readable).
    cgroup v2: ``<root>/<its path>/cpu.max`` holds ``"max 100000"`` or ``"QUOTA PERIOD"``; v1:
    ``<root>/cpu/cpu.cfs_quota_us`` (−1 for none) over ``cpu.cfs_period_us``. Inside a container
    the process's own cgroup is usually mounted at the root, so both places are read."""
    for folder in _v2_folders(root, self_cgroup):
        found = _read(folder / "cpu.max")
        if found is not None:
            quota, _, period = found.partition(" ")
            return None if quota == "max" else _ratio(quota, period)
    for folder in (root / "cpu", root / "cpu,cpuacct"):
        quota_us, period_us = _read(folder / "cpu.cfs_quota_us"), _read(folder / "cpu.cfs_period_us")
        if quota_us is not None and period_us is not None:
            return None if quota_us.startswith("-") else _ratio(quota_us, period_us)
    return None


def _v2_folders(root: Path, self_cgroup: Path) -> list[Path]:
    """The unified hierarchy's folder of this process (``0::/path`` in /proc/self/cgroup), then the root."""
    lines = (_read(self_cgroup) or "").splitlines()
    own = [line.split("::", 1)[1].strip("/") for line in lines if line.startswith("0::")]
    return [root / own[0], root] if own and own[0] else [root]


def _ratio(quota: str, period: str) -> float | None:
    try:
        q, p = float(quota), float(period)
    except ValueError:
        return None
    return q / p if q > 0 and p > 0 else None


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None


def passive_openmp(environ: MutableMapping[str, str] | None = None) -> bool:
    """Set ``OMP_WAIT_POLICY=PASSIVE`` before torch loads its OpenMP runtime (which reads it once,
    at load), unless the environment already names a policy or torch is already imported (then
    too late: nothing is changed). Whether it was set."""
    env = os.environ if environ is None else environ
    if WAIT_POLICY in env or "torch" in sys.modules:
        return False
    env[WAIT_POLICY] = "PASSIVE"
    return True


@contextmanager
def torch_threads(threads: int) -> Iterator[None]:
    """torch's intra-op threads set to ``threads`` inside, restored after (a notebook's own
    setting survives the run). A scorer without torch (``fake``) has nothing to set: torch is
    touched only when something already imported it."""
    torch = sys.modules.get("torch")
    if torch is None:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)
