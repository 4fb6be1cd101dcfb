"""What the kernel says about the CPUs this process may use: how many of them the other
processes leave idle right now (two readings of ``/proc/stat`` a short window apart), and the
cgroup CPU quota. :mod:`.threads` turns these into the default thread count (issue 47).

**Idle now, not a trailing average.** ``/proc/stat`` gives, per CPU, the time it spent in
each state since boot, in clock ticks (USER_HZ, 100 per second on Linux). Two readings
``WINDOW`` seconds apart give each CPU's share of that window spent idle (``idle`` +
``iowait``: a CPU waiting on a disk runs nothing); the sum over the CPUs of this process's
affinity mask is the number of CPUs left idle. This process sleeps through the window, but
other threads of it may run (a notebook's): its own ticks over the window
(``/proc/self/stat``'s ``utime`` + ``stime``) are counted as idle, since a CPU this process
itself keeps busy is not one another process took.

**Why 0.2 s.** At 100 ticks a second a window of 0.2 s gives 20 ticks per CPU: each CPU's
idle share is read to 1/20 of a CPU, far inside the half CPU that the rounding in
:meth:`.threads.CpuBudget.threads` tolerates. A 50 ms window (5 ticks) would read a CPU to
1/5 and swing with one tick; a second-long one is still "now" but makes every run's start a
second longer. The reading is taken once per process (:func:`.threads.default_budget`), so
0.2 s is paid once, against the seconds a model takes to load.

**Why not the load average or PSI.** The 1-minute load average trails by a minute and counts
the command that just finished: on a 2-core machine any load of 0.5 left by the previous
command halved the speed of the next run (issue 47). ``/proc/pressure/cpu`` (PSI) says for
what share of the time some task waited for a CPU, not how many CPUs are free, and its
shortest average spans 10 s: it cannot give the count a thread pool needs.

Every reading is a pure function of planted text (:func:`parse_proc_stat`,
:func:`own_ticks`, :func:`idle_cpus`), so tests give the kernel's files and check the count.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = ["WINDOW", "CpuTimes", "IdleReading", "cgroup_quota", "idle_cpus", "measure_idle", "own_ticks",
           "parse_proc_stat", "read_times"]

#: Seconds between the two readings of /proc/stat (see the module's docstring for the length).
WINDOW = 0.2
PROC_STAT = Path("/proc/stat")
SELF_STAT = Path("/proc/self/stat")
#: /proc/stat's per-CPU columns: user nice system idle iowait irq softirq steal guest guest_nice.
#: guest and guest_nice are already counted in user and nice, so a CPU's total is the first eight.
_IDLE_COLUMNS, _TOTAL_COLUMNS = (3, 4), 8


@dataclass(frozen=True)
class CpuTimes:
    """One reading: per CPU number, ``(idle ticks, total ticks)`` since boot; ``own`` the ticks
    this process has run (user + system)."""

    cpus: Mapping[int, tuple[int, int]]
    own: int = 0


@dataclass(frozen=True)
class IdleReading:
    """What a sample read: ``idle`` CPUs of the affinity mask left idle by the other processes
    (None: nothing measurable here), over ``window`` seconds, from ``source``."""

    idle: float | None
    window: float
    source: str


def parse_proc_stat(text: str) -> dict[int, tuple[int, int]]:
    """``/proc/stat``'s per-CPU lines (``cpu0``, ``cpu1``, …; not the aggregate ``cpu`` line) as
    ``{cpu: (idle, total)}``. A line of fewer than eight counts is left out (an old kernel
    without steal time would count wrong: nothing is better than a wrong count)."""
    out: dict[int, tuple[int, int]] = {}
    for line in text.splitlines():
        name, _, rest = line.partition(" ")
        if not (name.startswith("cpu") and name[3:].isdigit()):
            continue
        counts = [int(v) for v in rest.split() if v.isdigit()]
        if len(counts) >= _TOTAL_COLUMNS:
            out[int(name[3:])] = (sum(counts[i] for i in _IDLE_COLUMNS), sum(counts[:_TOTAL_COLUMNS]))
    return out


def own_ticks(text: str) -> int:
    """``utime`` + ``stime`` of a ``/proc/<pid>/stat`` line (fields 14 and 15; the command name,
    field 2, is in parentheses and may hold spaces, so the fields are counted after its ``)``)."""
    fields = text.rpartition(")")[2].split()
    try:
        return int(fields[11]) + int(fields[12])
    except (IndexError, ValueError):
        return 0


def idle_cpus(before: CpuTimes, after: CpuTimes, cpus: Collection[int]) -> float | None:
    """The CPUs among ``cpus`` (this process's affinity) left idle between two readings, this
    process's own ticks counted as idle, at most ``len(cpus)``. None when no CPU of ``cpus``
    advanced in both readings (no per-CPU lines, or a window too short to tick)."""
    shares, spans = 0.0, []
    for cpu in cpus:
        if cpu not in before.cpus or cpu not in after.cpus:
            continue
        idle = after.cpus[cpu][0] - before.cpus[cpu][0]
        total = after.cpus[cpu][1] - before.cpus[cpu][1]
        if total > 0:
            shares += min(1.0, max(0.0, idle / total))
            spans.append(total)
    if not spans:
        return None
    mine = max(0, after.own - before.own) / (sum(spans) / len(spans))  # CPUs this process kept busy
    return min(float(len(spans)), shares + mine)


def read_times(stat: Path = PROC_STAT, self_stat: Path = SELF_STAT) -> CpuTimes | None:
    """This moment's reading, or None where ``/proc/stat`` is missing or has no per-CPU lines
    (other operating systems; some sandboxes)."""
    text = _read(stat)
    cpus = parse_proc_stat(text) if text else {}
    if not cpus:
        return None
    return CpuTimes(cpus, own_ticks(_read(self_stat) or ""))


def measure_idle(cpus: Collection[int], window: float = WINDOW,
                 read: Callable[[], CpuTimes | None] = read_times,
                 sleep: Callable[[float], None] = time.sleep) -> IdleReading:
    """The idle CPUs among ``cpus`` over ``window`` seconds (``read`` and ``sleep`` replaceable:
    tests plant the two readings and sleep no time)."""
    before = read()
    if before is None:
        return IdleReading(None, 0.0, "none")
    sleep(window)
    after = read()
    idle = None if after is None else idle_cpus(before, after, cpus)
    return IdleReading(idle, window if idle is not None else 0.0, "/proc/stat" if idle is not None else "none")


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
    return q / p if q > 0 and p > 0 and math.isfinite(q / p) else None


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
