"""Scoring time of the default thread count against pinned counts, in three situations, in one run.

The job (issue 47): the first ``--pairs`` English CrowS-Pairs (100) on the packaged SmolLM2, no
score cache. Each measurement is a fresh process (OpenMP reads its wait policy once, when torch
loads it; the default's idle reading is taken once per process) running ``biasatlas.evaluate``;
its ``seconds_scoring`` is read from the run (model loading and hashing are timed apart).
Settings: ``default`` (no ``--threads``, no ``OMP_NUM_THREADS``: :mod:`biasatlas.scorers.threads`)
and ``--threads N`` for each count of ``--pinned`` (1 and 2).

Situations:

* ``quiet``: the machine as it is (run the script on a quiet machine);
* ``after-busy``: one busy loop per CPU for ``--busy`` seconds (60), stopped, and the measurement
  started at once; repeated before every setting, so that each is measured just after a busy
  minute (the 1-minute load average is then still high: the rule before issue 47 took one
  thread there);
* ``loaded``: ``--load`` busy loops (4) that keep running through the measurements, started
  ``--warm`` seconds (5) before the first.

Each row prints the seconds of scoring, the threads the run used, the load average at its start
and, for the default, what it read (idle CPUs over its window) and why it chose. At the end: the
goals of issue 47 (Goal A: after a busy minute, the default within 1.15x of the best pinned
count; Goal B: under the busy loops, the default within 1.5x of one thread), and whether every
finished run gave the same outcomes (scores to 3 decimals; the thread count may move the last
bits). A measurement past ``--limit`` seconds is stopped and shown as ``>limit``.

    PYTHONPATH=src python bench/speed/bench_threads.py --repeat 3  # the measurement (about 15 minutes on 2 cores)
    PYTHONPATH=src python bench/speed/bench_threads.py --quick     # a smoke run: 5 pairs, 3 s busy, once each
        [--pairs 100] [--pinned 1,2] [--busy 60] [--load 4] [--warm 5] [--limit 600] [--repeat 1]
        [--situations quiet,after-busy,loaded]

With ``--repeat R`` every setting is measured R times per situation and the fastest kept (the
table and the goals use it; every measurement is printed as it ends).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("BIASATLAS_SHARED_DATA", ROOT.parent.parent / "shared" / "data"))
CROWS = "crows-pairs-en/crows_pairs_anonymized.csv"
SITUATIONS = ("quiet", "after-busy", "loaded")
GOAL_A, GOAL_B = 1.15, 1.5  # issue 47: default / best pinned after a busy minute; default / 1 thread, loaded

# One measurement, in a fresh interpreter: argv[1] the data file, argv[2] the threads (or "default").
CHILD = r"""
import json, sys
import biasatlas
threads = None if sys.argv[2] == "default" else int(sys.argv[2])
run = biasatlas.evaluate("crows-pairs", data=sys.argv[1], model="smollm2-135m", cache=False, progress=False,
                         threads=threads)
print(json.dumps({"seconds": run.timing["seconds_scoring"], "engine": run.timing["engine"],
                  "outcomes": [(r["id"], round(r["likelihood_difference"], 3)) for r in run.records]}))
"""


def first_pairs(n: int, folder: Path) -> Path:
    """The first ``n`` rows of the English CrowS-Pairs file, as a file of their own."""
    with (DATA / CROWS).open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    out = folder / f"crows-en-first{n}.csv"
    with out.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows[: n + 1])
    return out


def measure(data: Path, threads: str, limit: float) -> dict:
    """One fresh process's scoring seconds, engine block and outcomes (seconds None past ``limit``),
    with the load average at its start."""
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "OMP_WAIT_POLICY")}
    env["PYTHONPATH"] = str(ROOT / "src")
    load = os.getloadavg()[0]
    try:
        done = subprocess.run([sys.executable, "-c", CHILD, str(data), threads], capture_output=True, text=True,
                              env=env, timeout=limit, check=True)
    except subprocess.TimeoutExpired:
        return {"seconds": None, "engine": {}, "outcomes": None, "load": load}
    except subprocess.CalledProcessError as exc:
        raise SystemExit(f"the measurement failed:\n{exc.stderr[-2000:]}") from None
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "load": load}


def start_load(count: int) -> list[subprocess.Popen]:
    """``count`` busy-loop processes (each spins one core until stopped)."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


def stop_load(procs: list[subprocess.Popen]) -> None:
    for proc in procs:
        proc.terminate()
    for proc in procs:
        proc.wait(timeout=10)


def busy_minute(seconds: float) -> None:
    """One busy loop per CPU for ``seconds``, then none."""
    procs = start_load(os.cpu_count() or 1)
    try:
        time.sleep(seconds)
    finally:
        stop_load(procs)


def run_situation(situation: str, settings: list[str], data: Path, args: argparse.Namespace) -> dict[str, dict]:
    """Every setting measured ``--repeat`` times in ``situation`` (see the module's docstring), the
    settings taken in turn within each round so that a drift in the machine's other work touches
    all of them; each setting's fastest measurement kept."""
    best: dict[str, dict] = {}
    procs = start_load(args.load) if situation == "loaded" else []
    try:
        if procs:
            time.sleep(args.warm)
        for _ in range(args.repeat):
            for name in settings:
                if situation == "after-busy":
                    busy_minute(args.busy)
                found = measure(data, name, args.limit)
                print(f"  {situation:10} {label(name):14} {cell(found, args.limit)}", flush=True)
                if name not in best or faster(found, best[name]):
                    best[name] = found
    finally:
        stop_load(procs)
    return best


def faster(found: dict, than: dict) -> bool:
    """Whether ``found`` finished in less time than ``than`` (a stopped run is the slowest)."""
    return found["seconds"] is not None and (than["seconds"] is None or found["seconds"] < than["seconds"])


def label(name: str) -> str:
    return "default" if name == "default" else f"--threads {name}"


def cell(found: dict, limit: float) -> str:
    """Seconds, threads used, the load average at the start and, for the default, what it read."""
    if found["seconds"] is None:
        return f">{limit:.0f} s (load {found['load']:.1f})"
    engine = found["engine"]
    read = engine.get("cpu_budget")
    idle = "" if read is None else f", read {read['idle_cpus']} idle over {read['window_s']} s ({read['source']})"
    return f"{found['seconds']:.2f} s ({engine.get('threads')} threads, load {found['load']:.1f}{idle})"


def ratio(results: dict, situation: str, over: list[str]) -> float | None:
    """The default's seconds over the best of ``over`` in ``situation`` (None if any is missing)."""
    row = results.get(situation, {})
    default = row.get("default", {}).get("seconds")
    others = [row.get(name, {}).get("seconds") for name in over]
    if default is None or not others or None in others:
        return None
    return default / min(others)


def goal_line(name: str, value: float | None, bound: float, against: str) -> str:
    if value is None:
        return f"{name}: not measured (goal: default ≤ {bound:.2f}x {against})"
    verdict = "met" if value <= bound else "NOT met"
    return f"{name}: default = {value:.2f}x {against} (goal ≤ {bound:.2f}x): {verdict}"


def report(results: dict, pinned: list[str], limit: float) -> None:
    """The table of every measurement, the two goals and the outcome check."""
    situations = list(results)
    print("\n| setting | " + " | ".join(situations) + " |")
    print("|---|" + "---|" * len(situations))
    for name in ["default", *pinned]:
        cells = [cell(results[s][name], limit) if name in results[s] else "" for s in situations]
        print(f"| {label(name)} | " + " | ".join(cells) + " |")
    print(goal_line("Goal A (after a busy minute)", ratio(results, "after-busy", pinned), GOAL_A,
                    "the best pinned count"))
    print(goal_line("Goal B (under busy loops)", ratio(results, "loaded", ["1"] if "1" in pinned else []), GOAL_B,
                    "one thread"))
    outcomes = {json.dumps(r["outcomes"]) for row in results.values() for r in row.values() if r["outcomes"]}
    print("same outcomes (3 decimals) in every finished run:", len(outcomes) == 1)


def options() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=100)
    parser.add_argument("--pinned", default="1,2", help="the pinned thread counts, comma-separated")
    parser.add_argument("--busy", type=float, default=60.0, help="seconds of busy loops before each after-busy run")
    parser.add_argument("--load", type=int, default=4, help="busy loops that keep running in the loaded situation")
    parser.add_argument("--warm", type=float, default=5.0, help="seconds the loops run before the first loaded run")
    parser.add_argument("--limit", type=float, default=600.0, help="seconds after which a measurement is stopped")
    parser.add_argument("--situations", default=",".join(SITUATIONS))
    parser.add_argument("--repeat", type=int, default=1, help="measurements per setting and situation (the fastest "
                        "is kept); after-busy pays a busy minute for each")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 5 pairs, 3 s busy, 1 s warm")
    args = parser.parse_args()
    if args.quick:
        args.pairs, args.busy, args.warm = 5, 3.0, 1.0
    unknown = [s for s in args.situations.split(",") if s not in SITUATIONS]
    if unknown or args.load > 32 or args.pairs < 1 or args.repeat < 1:
        parser.error(f"--situations from {', '.join(SITUATIONS)}; --load at most 32; --pairs and --repeat at least 1")
    return args


def main() -> None:
    args = options()
    pinned = [p.strip() for p in args.pinned.split(",") if p.strip()]
    settings = ["default", *pinned]
    print(f"{args.pairs} English CrowS-Pairs on smollm2-135m; {os.cpu_count()} CPUs; seconds of scoring, one "
          f"fresh process each, best of {args.repeat}; after-busy: {args.busy:g} s of {os.cpu_count()} busy loops "
          f"before each run; loaded: {args.load} busy loops")
    results: dict[str, dict[str, dict]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        data = first_pairs(args.pairs, Path(scratch))
        for situation in [s for s in args.situations.split(",") if s]:
            results[situation] = run_situation(situation, settings, data, args)
    report(results, pinned, args.limit)


if __name__ == "__main__":
    main()
