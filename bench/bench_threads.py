"""Scoring time by thread setting, on the machine as it is and with added load, in one run.

The job (issue 40, item 1): the first ``--pairs`` English CrowS-Pairs on the packaged SmolLM2
(5 pairs: 10 rows in 2 forward passes), no score cache. Each measurement is a fresh process
(OpenMP reads its wait policy once, when torch loads it) running ``biasatlas.evaluate``; its
``seconds_scoring`` is read from the run (model loading and hashing are timed apart). Settings:

* ``before``: what biasatlas did until now: torch imported before biasatlas (so OpenMP keeps its
  default spin-then-sleep wait) and torch's own thread count (one per core);
* ``default``: biasatlas's default now (:mod:`biasatlas.scorers.threads`: the CPUs the process
  can get that the load leaves idle, ``OMP_WAIT_POLICY=PASSIVE``); the count it chose is printed;
* ``--threads 1`` and ``--threads N`` (N: the usable CPUs), passive wait: the hand-tuned settings.

Conditions: ``ambient`` (the machine as it is: on a shared machine that is not idle, so the
load average is printed beside every row) and ``loaded`` (``--load`` busy-loop processes that
this script starts, lets run ``--warm`` seconds so that the 1-minute load average sees them,
and stops). Every setting must give the same outcomes (the scores are compared to 3 decimals:
the thread count may move the last bits, see the module above). A run that passes ``--limit``
seconds is stopped and shown as ``>limit``.

    PYTHONPATH=src python bench/bench_threads.py [--pairs 5] [--load 4] [--warm 45] [--limit 300]
        [--conditions ambient,loaded] [--settings before,default,1,N]
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

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("BIASATLAS_SHARED_DATA", ROOT.parent.parent / "shared" / "data"))
CROWS = "crows-pairs-en/crows_pairs_anonymized.csv"

# One measurement, in a fresh interpreter: argv[1] the data file, argv[2] the threads (or "none"),
# argv[3] "torch-first" to import torch before biasatlas (the old wait policy).
CHILD = r"""
import json, sys
if sys.argv[3] == "torch-first":
    import torch
import biasatlas
threads = None if sys.argv[2] == "none" else int(sys.argv[2])
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


def measure(data: Path, threads: str, torch_first: bool, limit: float) -> dict:
    """One fresh process's scoring seconds, engine block and outcomes (seconds None past ``limit``)."""
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "OMP_WAIT_POLICY")}
    env["PYTHONPATH"] = str(ROOT / "src")
    load = os.getloadavg()[0]
    try:
        done = subprocess.run([sys.executable, "-c", CHILD, str(data), threads,
                               "torch-first" if torch_first else "biasatlas-first"],
                              capture_output=True, text=True, env=env, timeout=limit, check=True)
    except subprocess.TimeoutExpired:
        return {"seconds": None, "engine": {}, "outcomes": None, "load": load}
    except subprocess.CalledProcessError as exc:
        raise SystemExit(f"the measurement failed:\n{exc.stderr[-2000:]}") from None
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "load": load}


def torch_default_threads() -> int:
    """torch's own thread count in a fresh process with no OMP_NUM_THREADS (one per core)."""
    env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
    out = subprocess.run([sys.executable, "-c", "import torch; print(torch.get_num_threads())"],
                         capture_output=True, text=True, env=env, check=True)
    return int(out.stdout.strip())


def start_load(count: int) -> list[subprocess.Popen]:
    """``count`` busy-loop processes (each spins one core until stopped)."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


def stop_load(procs: list[subprocess.Popen]) -> None:
    for proc in procs:
        proc.terminate()
    for proc in procs:
        proc.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--load", type=int, default=4, help="busy-loop processes in the loaded condition")
    parser.add_argument("--warm", type=float, default=45.0, help="seconds the load runs before the first measurement")
    parser.add_argument("--limit", type=float, default=300.0, help="seconds after which a measurement is stopped")
    parser.add_argument("--conditions", default="ambient,loaded")
    parser.add_argument("--settings", default="before,default,1,N")
    args = parser.parse_args()
    if args.load > 32:
        raise SystemExit("--load: at most 32 busy loops")
    sys.path.insert(0, str(ROOT / "src"))
    from biasatlas.scorers.threads import CpuBudget

    usable, torch_threads = CpuBudget.here().usable, torch_default_threads()
    settings = {"before": (str(torch_threads), True), "default": ("none", False), "1": ("1", False),
                "N": (str(usable), False)}
    chosen = [s for s in args.settings.split(",") if s]
    print(f"{args.pairs} English CrowS-Pairs on smollm2-135m; {os.cpu_count()} CPUs, {usable} usable; "
          f"torch's default {torch_threads} threads; seconds of scoring (load average at the start)")
    results: dict[tuple[str, str], dict] = {}
    with tempfile.TemporaryDirectory() as scratch:
        data = first_pairs(args.pairs, Path(scratch))
        for condition in [c for c in args.conditions.split(",") if c]:
            procs = start_load(args.load) if condition == "loaded" else []
            try:
                if procs:
                    time.sleep(args.warm)
                for name in chosen:
                    threads, torch_first = settings[name]
                    results[(condition, name)] = found = measure(data, threads, torch_first, args.limit)
                    print(f"  {condition:8} {label(name, usable, torch_threads):32} {cell(found, args.limit)}",
                          flush=True)
            finally:
                stop_load(procs)
    table(results, chosen, usable, torch_threads, args.limit)


def label(name: str, usable: int, torch_threads: int) -> str:
    return {"before": f"before ({torch_threads} threads, spin wait)", "default": "default (auto, passive)",
            "1": "--threads 1 (passive)", "N": f"--threads {usable} (passive)"}[name]


def cell(found: dict, limit: float) -> str:
    if found["seconds"] is None:
        return f">{limit:.0f} s (load {found['load']:.1f})"
    used = found["engine"].get("threads")
    return f"{found['seconds']:.1f} s (load {found['load']:.1f}, {used} threads)"


def table(results: dict, chosen: list[str], usable: int, torch_threads: int, limit: float) -> None:
    conditions = list(dict.fromkeys(c for c, _ in results))
    print("\n| setting | " + " | ".join(conditions) + " |")
    print("|---|" + "---|" * len(conditions))
    for name in chosen:
        cells = [cell(results[(c, name)], limit) for c in conditions]
        print(f"| {label(name, usable, torch_threads)} | " + " | ".join(cells) + " |")
    for condition in conditions:
        before, default = results.get((condition, "before")), results.get((condition, "default"))
        if before and default and before["seconds"] and default["seconds"]:
            print(f"{condition}: before / default = {before['seconds'] / default['seconds']:.2f}x")
    outcomes = {json.dumps(r["outcomes"]) for r in results.values() if r["outcomes"] is not None}
    print("same outcomes (3 decimals) in every finished run:", len(outcomes) == 1)


if __name__ == "__main__":
    main()
