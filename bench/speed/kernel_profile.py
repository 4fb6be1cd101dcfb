"""Where a run's time goes: torch.profiler's trace, read as top kernels and host gaps.

:func:`profile_run` runs a function under ``torch.profiler`` and reads the trace it
exports (Chrome trace JSON, ``traceEvents``). The *busy* events are the device's work: on
CUDA the kernels, copies and memsets (``cat`` ``kernel``, ``gpu_memcpy``, ``gpu_memset``);
on a CPU the ATen operators (``cpu_op``), whose nesting is resolved to self time. A *gap*
is a stretch inside the run where no busy event runs: on CUDA the device idles while the
host prepares, launches or waits (Python, tokenizing, a synchronising copy); on a CPU it
is time outside any operator (the same Python). :func:`print_profile` prints a short table.

Named ``kernel_profile``, not ``profile``: bench/speed/ is first on ``sys.path`` and would shadow
the standard library's ``profile``.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from measure import synchronize

#: Trace categories of the device's work, lower-cased: kineto releases spell them ``kernel``
#: or ``Kernel``, ``gpu_memcpy`` or ``Memcpy``; CPU operators ``cpu_op`` (``Operator`` before).
DEVICE_WORK = {"cuda": ("kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset"), "cpu": ("cpu_op", "operator")}
#: Gap sizes the table counts separately, in µs: launch latency, a Python step, a host stall.
GAP_BINS = (10.0, 100.0, 1000.0)


@dataclass(frozen=True)
class Busy:
    """One busy event: its name, the stream or thread it ran on, start and end in µs."""

    name: str
    lane: tuple[Any, Any]
    start: float
    end: float


def profile_run(run: Callable[[], Any], device: str) -> tuple[float, list[dict]]:
    """Wall seconds of ``run()`` under the profiler, and the trace's events."""
    from torch.profiler import ProfilerActivity, profile

    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if torch.device(device).type == "cuda" else [])
    with profile(activities=activities) as prof:
        start = time.perf_counter()
        run()
        synchronize(device)
        wall = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "trace.json"
        prof.export_chrome_trace(str(path))
        events = json.loads(path.read_text(encoding="utf-8")).get("traceEvents", [])
    return wall, events


def busy_events(events: list[dict], device: str) -> list[Busy]:
    """The trace's complete events (``ph`` ``X``) of the device's kinds of work."""
    kinds = DEVICE_WORK[torch.device(device).type]
    return [Busy(e["name"], (e.get("pid"), e.get("tid")), float(e["ts"]), float(e["ts"]) + float(e.get("dur", 0)))
            for e in events if e.get("ph") == "X" and str(e.get("cat", "")).lower() in kinds]


def self_times(busy: list[Busy]) -> dict[str, tuple[int, float]]:
    """Calls and self µs by name: an event's time less that of the events nested in it on
    its lane (CPU operators nest; kernels on one stream do not, so theirs is their own)."""
    out: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
    by_lane: dict[tuple[Any, Any], list[Busy]] = defaultdict(list)
    for event in busy:
        by_lane[event.lane].append(event)
    for lane in by_lane.values():
        stack: list[Busy] = []
        for event in sorted(lane, key=lambda e: (e.start, -e.end)):
            while stack and stack[-1].end <= event.start:
                stack.pop()
            if stack:  # nested: its time is not its parent's own
                out[stack[-1].name][1] -= event.end - event.start
            out[event.name][0] += 1
            out[event.name][1] += event.end - event.start
            stack.append(event)
    return {name: (int(calls), total) for name, (calls, total) in out.items()}


def idle_gaps(busy: list[Busy]) -> list[float]:
    """The µs between busy stretches (every lane merged), first event to last."""
    gaps, reach = [], None
    for event in sorted(busy, key=lambda e: e.start):
        if reach is not None and event.start > reach:
            gaps.append(event.start - reach)
        reach = event.end if reach is None else max(reach, event.end)
    return gaps


def print_profile(what: str, wall: float, events: list[dict], device: str, top: int = 8) -> dict:
    """The table: top busy events by self time, then the gaps by size. Returns its numbers."""
    busy = busy_events(events, device)
    if not busy:
        found = sorted({str(e.get("cat")) for e in events})
        print(f"profile of {what}: the trace holds no {'/'.join(DEVICE_WORK[torch.device(device).type])} events "
              f"(its categories: {', '.join(found)})")
        return {"busy_seconds": 0.0, "gap_seconds": 0.0, "gaps": 0}
    times, gaps = self_times(busy), idle_gaps(busy)
    busy_us = sum(total for _, total in times.values())
    span = max(e.end for e in busy) - min(e.start for e in busy)
    unit = "kernels" if torch.device(device).type == "cuda" else "CPU operators"
    print(f"profile of {what} on {device}: {wall:.3f} s wall; {unit} busy {busy_us / 1e6:.3f} s of a "
          f"{span / 1e6:.3f} s trace ({busy_us / max(span, 1e-9):.1%})")
    print(f"  {'top ' + unit + ' by self time':<64} {'calls':>8} {'seconds':>9} {'share':>7}")
    for name, (calls, total) in sorted(times.items(), key=lambda kv: -kv[1][1])[:top]:
        print(f"  {name[:64]:<64} {calls:>8} {total / 1e6:>9.4f} {total / busy_us:>7.1%}")
    edges = (0.0, *GAP_BINS, float("inf"))
    bins = [[g for g in gaps if lo <= g < hi] for lo, hi in zip(edges, edges[1:])]
    labels = [f"< {GAP_BINS[0]:g} µs", *(f"{lo:g}–{hi:g} µs" for lo, hi in zip(GAP_BINS, GAP_BINS[1:])),
              f"≥ {GAP_BINS[-1]:g} µs"]
    print(f"  host gaps (no {unit} running): {len(gaps)} gaps, {sum(gaps) / 1e6:.3f} s "
          f"({sum(gaps) / max(span, 1e-9):.1%} of the trace); largest {max(gaps, default=0.0) / 1e6:.4f} s")
    print("    " + "; ".join(f"{label}: {len(b)} ({sum(b) / 1e6:.3f} s)" for label, b in zip(labels, bins)))
    return {"busy_seconds": busy_us / 1e6, "gap_seconds": sum(gaps) / 1e6, "gaps": len(gaps)}
