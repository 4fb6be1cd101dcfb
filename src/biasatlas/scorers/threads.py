"""How many CPU threads torch scores with, chosen so that a run takes the CPUs that are idle
now and never asks for more than it can get (``--threads``, ``threads=``; issues 40 and 47).

torch starts as many intra-op threads as the machine has cores, whatever else runs there. Its
OpenMP threads meet at a barrier after every parallel operator, so when one of them waits for
a core the others wait for it: on a 2-core machine at a load average of 17, the first five
English CrowS-Pairs on SmolLM2 took 235 s of scoring with torch's default two threads and 14 s
with one (issue 40). The default here is what the process can get now:

    threads = max(1, min(usable, round_half_up(idle)))
    usable  = min(CPUs in this process's affinity mask, floor of its cgroup CPU quota)
    idle    = CPUs of the affinity mask that the other processes left idle over the last 0.2 s

``usable`` is what the kernel lets this process run on (``os.sched_getaffinity``: ``taskset``,
a batch scheduler's cpuset) and what the cgroup lets it spend (v2 ``cpu.max``, v1
``cpu.cfs_quota_us / cpu.cfs_period_us``: a container's ``--cpus``). ``idle`` is read from two
``/proc/stat`` readings 0.2 s apart, this process's own CPU time counted as idle
(:mod:`.cpu_reading` says how, why that window, and why neither the load average nor PSI).
Until issue 47 ``idle`` was the machine's CPUs minus the 1-minute load average, which trails by
a minute and counts the command that just finished: on this 2-core machine a load of 0.7 left
by the previous command made every default run take one thread, 7.7 s of scoring where two
threads took 4.6 s (100 English CrowS pairs, SmolLM2). How each rule reads a 2-core machine
(typical readings; the load after a minute of two busy loops is 2·(1 − 1/e) ≈ 1.3):

    situation                                    idle read   threads   (the load average's rule)
    quiet                                        1.9         2         load 0.2 → 2
    just after a minute of busy loops ended      1.9         2         load 1.3 → 1
    one other process busy                       1.0         1         load 1.0 → 1
    four busy loops still running                0.0         1         load 4   → 1

``round`` half up rather than ``floor``: a quiet machine is never read as wholly idle (a
daemon's tick, the kernel's own work), and one thread there would halve the
speed; rather than ``ceil``: a CPU idle a tenth of the time is not free. Half a CPU left over
is worth a thread because the passive wait (below) makes a thread that waits for a core cost
little. Where nothing is measurable (no ``/proc/stat``: other operating systems) the default is
``usable``, for the same reason. An explicit ``--threads N`` wins, then ``OMP_NUM_THREADS``
from the environment (the user already chose); timing.json's ``engine`` block records the
choice (``threads``, ``threads_chosen_by``), what the default read (``cpu_budget``: affinity,
quota, usable, idle CPUs, window, source) and why it chose (``threads_reason``).

Neither may ask for more than :func:`max_threads` (4 per CPU of the machine, at least 256):
more threads than cores only slow torch down, and far more cannot start at all (``--threads
100000``: libgomp ran out of memory or crashed the process, exit 139, leaving a run folder
without a summary). Such a count is refused in one line (:func:`check_thread_count`): ``--threads``
when the request is built, ``OMP_NUM_THREADS`` when a run starts (``EngineOptions.check_threads``),
both before the run folder is claimed and before a model or torch loads.

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
Issue 40 measured it (the five pairs, seconds of scoring, on this shared 2-core machine; load
average in brackets):

    setting                          ambient (7)   +4 busy loops (9)   ambient (15)  +4 busy loops (18–22)
    2 threads, spin wait             18.1          32.3                51.8          > 300
    1 thread, passive                 1.9           3.3                 3.9           16.3
    2 threads, passive                1.3           6.8                 3.8            7.6

The spinning wait is most of the loss. bench/speed/bench_threads.py measures the default against
pinned counts in one run: on a quiet machine, just after a busy minute, and under busy loops.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Callable, Collection, Iterator, MutableMapping
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from typing import Any

from ..errors import UsageError
from .cpu_reading import IdleReading, cgroup_quota, measure_idle

__all__ = ["CpuBudget", "ThreadChoice", "check_thread_count", "choose_threads", "default_budget", "max_threads",
           "passive_openmp", "torch_threads"]

#: libgomp's and LLVM OpenMP's variable for what a waiting thread does (ACTIVE: spin; PASSIVE: sleep).
WAIT_POLICY = "OMP_WAIT_POLICY"
#: The most threads a run may ask for, per CPU of the machine, and at any rate (see :func:`max_threads`).
THREADS_PER_CPU, THREADS_ALWAYS_ALLOWED = 4, 256


@dataclass(frozen=True)
class CpuBudget:
    """What this process may use of the machine: ``affinity`` (CPUs it may run on), ``quota``
    (its cgroup's CPU quota in CPUs, None for none) and ``idle`` (CPUs of the affinity mask the
    other processes left idle over ``window`` seconds, read from ``source``; None where nothing
    was measurable)."""

    affinity: int
    quota: float | None
    idle: float | None
    window: float = 0.0
    source: str = "none"

    def __post_init__(self) -> None:
        if self.affinity < 1:
            raise ValueError(f"a process has at least one CPU, not affinity={self.affinity}")
        if self.quota is not None and self.quota <= 0:
            raise ValueError(f"a CPU quota is positive, not {self.quota}")
        if self.idle is not None and self.idle < 0:
            raise ValueError(f"idle CPUs are at least 0, not {self.idle}")

    @classmethod
    def here(cls, measure: Callable[[Collection[int]], IdleReading] = measure_idle) -> CpuBudget:
        """This process's budget, read from the kernel now (``measure``: :func:`.measure_idle`)."""
        has_affinity = hasattr(os, "sched_getaffinity")
        cpus = sorted(os.sched_getaffinity(0)) if has_affinity else list(range(os.cpu_count() or 1))
        reading = measure(cpus)
        return cls(affinity=len(cpus), quota=cgroup_quota(), idle=reading.idle, window=reading.window,
                   source=reading.source)

    @property
    def usable(self) -> int:
        """CPUs the kernel lets this process use at once: its affinity, capped by the quota's
        whole CPUs (a quota of 1.5 CPUs gets one thread: two would be throttled)."""
        capped = self.affinity if self.quota is None else min(self.affinity, math.floor(self.quota))
        return max(1, capped)

    def threads(self) -> int:
        """The default: the usable CPUs that are idle, rounded half up, at least one; the usable
        CPUs where idleness was not measurable."""
        if self.idle is None:
            return self.usable
        return max(1, min(self.usable, math.floor(self.idle + 0.5)))

    def reason(self) -> str:
        """Why :meth:`threads` chose its count, in a sentence (timing.json's ``threads_reason``)."""
        chosen, usable = self.threads(), self.usable
        if self.idle is None:
            return f"{chosen}: all {usable} usable CPUs (idle CPUs not measurable here)"
        rounded = math.floor(self.idle + 0.5)
        why = ("capped by the usable CPUs" if rounded > usable else "at least one" if rounded < 1
               else "rounded half up")
        return (f"{chosen}: {self.idle:.2f} of the {self.affinity} CPUs of the affinity mask idle over "
                f"{self.window:g} s ({self.source}), {usable} usable; {why}")

    def as_dict(self) -> dict[str, Any]:
        """What the default read, for timing.json's ``cpu_budget``."""
        return {"affinity": self.affinity, "quota": self.quota, "usable": self.usable,
                "idle_cpus": None if self.idle is None else round(self.idle, 3), "window_s": self.window,
                "source": self.source}


@dataclass(frozen=True)
class ThreadChoice:
    """The threads a run scores with and why (``chosen_by``: ``threads``, ``OMP_NUM_THREADS`` or
    ``default``), with the budget the default read; for timing.json."""

    threads: int
    chosen_by: str
    budget: CpuBudget | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"threads": self.threads, "threads_chosen_by": self.chosen_by,
                               "omp_wait_policy": os.environ.get(WAIT_POLICY, "unset")}
        if self.budget is not None:
            out["cpu_budget"] = self.budget.as_dict()
            out["threads_reason"] = self.budget.reason()
        return out


def max_threads(machine: int | None = None) -> int:
    """The most threads a run may ask for: :data:`THREADS_PER_CPU` per CPU of the machine
    (``machine``, default ``os.cpu_count()``), and never fewer than :data:`THREADS_ALWAYS_ALLOWED`,
    so that a count another machine used (to match its run to the bit) can be asked for here.
    Each thread costs a stack and a kernel task; far more than this exhausts one or the other."""
    return max(THREADS_ALWAYS_ALLOWED, THREADS_PER_CPU * (machine or os.cpu_count() or 1))


def check_thread_count(requested: int | None, environ: MutableMapping[str, str] | None = None) -> None:
    """Refuse ``requested`` (``--threads``) or an ``OMP_NUM_THREADS`` beyond :func:`max_threads`, in
    one line naming which. The environment's value is checked even when ``requested`` is given:
    OpenMP and BLAS read it themselves when torch or numpy loads."""
    limit, machine = max_threads(), os.cpu_count() or 1
    allowed = (f"the {limit} threads allowed here ({THREADS_PER_CPU} per CPU of this machine's {machine}, "
               f"at least {THREADS_ALWAYS_ALLOWED})")
    if requested is not None and requested > limit:
        raise UsageError(f"--threads {requested} is more than {allowed}")
    env = os.environ if environ is None else environ
    given = env.get("OMP_NUM_THREADS", "")
    levels = [int(v) for v in given.replace(" ", "").split(",") if v.isdigit()]
    if any(v > limit for v in levels):
        raise UsageError(f"OMP_NUM_THREADS={given.strip()} is more than {allowed}: unset it or lower it")


def choose_threads(requested: int | None, environ: MutableMapping[str, str] | None = None,
                   budget: CpuBudget | None = None) -> ThreadChoice:
    """``requested`` if given; else ``OMP_NUM_THREADS`` when the environment sets a positive
    whole number; else the :class:`CpuBudget`'s default (``budget``, read here when None).
    A count beyond :func:`max_threads` is refused (:func:`check_thread_count`)."""
    if requested is not None and (isinstance(requested, bool) or not isinstance(requested, int) or requested < 1):
        raise ValueError(f"threads is a whole number of at least 1, not {requested!r}")
    env = os.environ if environ is None else environ
    check_thread_count(requested, env)
    if requested is not None:
        return ThreadChoice(requested, "threads")
    given = env.get("OMP_NUM_THREADS", "").strip()
    if given.isdigit() and int(given) >= 1:
        return ThreadChoice(int(given), "OMP_NUM_THREADS")
    budget = budget or default_budget()
    return ThreadChoice(budget.threads(), "default", budget)


@cache
def default_budget() -> CpuBudget:
    """This process's :class:`CpuBudget`, read on first use and kept (see the module's docstring)."""
    return CpuBudget.here()


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
