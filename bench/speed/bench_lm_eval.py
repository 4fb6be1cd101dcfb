"""biasatlas against lm-evaluation-harness 0.4.13 on the same CrowS-Pairs work, in one run (issue 40, item 12).

The work: the first ``--pairs`` (100) English CrowS-Pairs pairs, both sentences of each scored after an
empty context, on the packaged SmolLM2-135M in float32 on the CPU. Each side is timed by its own
clock around its own scoring, the model already loaded:

* lm-eval: ``HFLM.loglikelihood`` on the 2 × pairs ``("", sentence)`` requests (what its
  ``crows_pairs_english`` task asks), in its own virtualenv (``.venvs/lm-eval``, made by
  ``scripts/setup.sh --test``), one long-lived subprocess, at ``--lm-eval-batch-size`` (default 64,
  our default; lm-eval's own default is 1);
* biasatlas: :func:`biasatlas.pipeline.run_benchmark` as the command line runs it (no score cache, the
  start line planned): its ``seconds_scoring`` (the run's own clock) and the whole call (load the
  pairs, plan, score, metrics); with ``--one-call``, also the scorer's ``score`` on every pair at once
  (one engine call instead of the pipeline's chunks), which shows what the chunks cost.

The machine is shared: the sides run interleaved (``--rounds`` rounds, the order alternating), each
with ``--threads`` torch threads, and the medians are compared. The load average is printed before
and after, and each time also as CPU seconds (``process_time``), which other processes' load moves
far less than the wall clock. Printed: every round, the medians, the ratio lm-eval / biasatlas (>1:
biasatlas faster), and the largest |Δ log-likelihood| between the two sides per sentence.

    python bench/speed/bench_lm_eval.py [--pairs 100] [--rounds 5] [--threads 1|default] [--lm-eval-batch-size 64]
        [--one-call] [--smoke]

``--threads default`` leaves each side its own thread count (torch's for lm-eval, biasatlas's
default choice, :mod:`biasatlas.scorers.threads`), which the lines print; before issue 47 the
biasatlas side always took its default choice, whatever ``--threads`` said.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
LM_EVAL_PYTHON = REPO / ".venvs" / "lm-eval" / "bin" / "python"
DATA = "crows-pairs-en/crows_pairs_anonymized.csv"

#: The lm-eval side: load once, then one timed ``loglikelihood`` per line "go" on its standard input.
WORKER = """
import json, sys, time, torch
asked = json.loads(sys.stdin.readline())
if asked["threads"]:
    torch.set_num_threads(asked["threads"])
from lm_eval.api.instance import Instance
from lm_eval.models.huggingface import HFLM
lm = HFLM(pretrained=asked["model"], batch_size=asked["batch_size"], device="cpu", dtype="float32")
requests = [Instance(request_type="loglikelihood", doc={}, arguments=(c, x), idx=i)
            for i, (c, x) in enumerate(asked["requests"])]
lm.loglikelihood(requests[:4], disable_tqdm=True)  # warm-up
print(json.dumps({"ready": True}), flush=True)
for line in sys.stdin:
    wall, cpu = time.perf_counter(), time.process_time()
    values = [v for v, _ in lm.loglikelihood(requests, disable_tqdm=True)]
    print(json.dumps({"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu, "values": values}),
          flush=True)
"""


def _threads(text: str) -> int | None:
    """``--threads``: a whole number of at least 1, or ``default`` (None)."""
    if text == "default":
        return None
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"a whole number of at least 1 or 'default', not {text!r}")
    return int(text)


def data_path() -> Path:
    root = Path(os.environ.get("BIASATLAS_SHARED_DATA", REPO.parent / "shared" / "data"))
    return root / DATA


class LmEval:
    """The lm-eval subprocess, loaded once."""

    def __init__(self, model: Path, requests: list[tuple[str, str]], batch_size: int, threads: int | None) -> None:
        if not LM_EVAL_PYTHON.exists():
            sys.exit(f"no lm-evaluation-harness at {LM_EVAL_PYTHON}: run `bash scripts/setup.sh --test`")
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
               **({"OMP_NUM_THREADS": str(threads)} if threads else {})}
        self.process = subprocess.Popen([str(LM_EVAL_PYTHON), "-c", WORKER], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
        self._send({"model": str(model), "requests": requests, "batch_size": batch_size, "threads": threads})
        self._read()

    def _send(self, value: Any) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(value) + "\n")
        self.process.stdin.flush()

    def _read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            sys.exit(f"the lm-eval subprocess ended (exit {self.process.wait()})")
        return dict(json.loads(line))

    def run(self) -> dict[str, Any]:
        self._send("go")
        return self._read()

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=60)


def ours(scorer: Any, pairs: int, threads: int | None) -> dict[str, Any]:
    """One run as the command line runs it (``--threads``: ``threads``, None its default choice): wall
    and CPU seconds of the call, its seconds_scoring, and the threads its engine used."""
    from biasatlas.benchmarks.crows_pairs import CrowsPairs
    from biasatlas.pipeline import run_benchmark
    from biasatlas.scorers.engines import LocalEngine

    bench = CrowsPairs(dataset=None, data=data_path(), limit=pairs)
    wall, cpu = time.perf_counter(), time.process_time()
    run = run_benchmark(bench, scorer, announce=lambda planned: None, engine=LocalEngine(threads))
    return {"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu,
            "scoring": run.timing["seconds_scoring"], "records": run.records, "batches": run.timing["counters"],
            "threads": run.timing["engine"].get("threads")}


def one_call(scorer: Any, pairs: int) -> dict[str, Any]:
    """Every pair in one ``score`` call (no pipeline chunks)."""
    from biasatlas.benchmarks.crows_pairs import CrowsPairs

    bench = CrowsPairs(dataset=None, data=data_path(), limit=pairs)
    probes = bench.probes(bench.load())
    wall, cpu = time.perf_counter(), time.process_time()
    scorer.score(probes)
    return {"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=_threads, default=1,
                        help="torch threads on each side, or 'default': each side's own (torch's; our choice)")
    parser.add_argument("--lm-eval-batch-size", type=int, default=64)
    parser.add_argument("--one-call", action="store_true", help="also time every pair in one score call")
    parser.add_argument("--smoke", action="store_true", help="4 pairs, 1 round: a check that it runs")
    args = parser.parse_args()
    if args.smoke:
        args.pairs, args.rounds = 4, 1
    import torch

    from biasatlas.scorers.inprocess.causal_lm import CausalLMScorer
    from biasatlas.scorers.inprocess.packaged import resolve_packaged_model

    if args.threads:
        torch.set_num_threads(args.threads)
    model = Path(resolve_packaged_model("smollm2-135m"))
    scorer = CausalLMScorer(str(model), start_token="empty-context")  # crows-pairs' default: lm-eval's
    print(f"smollm2-135m · {args.pairs} English CrowS-Pairs pairs ({2 * args.pairs} sentences) · threads "
          f"{args.threads} each · lm-eval batch size {args.lm_eval_batch_size}, ours {scorer.batch_size} · "
          f"cores {os.cpu_count()} · load average before {os.getloadavg()[0]:.1f}", flush=True)
    first = ours(scorer, args.pairs, args.threads)  # warm-up, and the sentences both sides score
    requests = [("", r[f"sent_{k}"]) for r in first["records"] for k in ("more", "less")]
    values = [r[f"sent_{k}_score"] for r in first["records"] for k in ("more", "less")]
    them = LmEval(model, requests, args.lm_eval_batch_size, args.threads)
    times: dict[str, list[dict[str, Any]]] = {"lm-eval": [], "biasatlas": [], "one call": []}
    try:
        for i in range(args.rounds):
            sides = [("lm-eval", them.run), ("biasatlas", lambda: ours(scorer, args.pairs, args.threads))]
            if args.one_call:
                sides.append(("one call", lambda: one_call(scorer, args.pairs)))
            for name, side in sides if i % 2 == 0 else sides[::-1]:
                times[name].append(side())
            print(f"round {i + 1}: " + " · ".join(f"{name} {t[-1]['wall']:.2f} s wall, {t[-1]['cpu']:.2f} s CPU"
                                                  + (f" (seconds_scoring {t[-1]['scoring']:.2f})" if "scoring" in t[-1]
                                                     else "") for name, t in times.items() if t)
                  + f" · load {os.getloadavg()[0]:.1f}", flush=True)
    finally:
        them.close()
    theirs = times["lm-eval"][-1]["values"]
    worst = max(abs(a - b) for a, b in zip(values, theirs))

    def median(name: str, key: str) -> float:
        return statistics.median(t[key] for t in times[name])

    print(f"\nmedians over {args.rounds} rounds:")
    print(f"  lm-eval   {median('lm-eval', 'wall'):7.2f} s wall  {median('lm-eval', 'cpu'):7.2f} s CPU")
    print(f"  biasatlas {median('biasatlas', 'scoring'):7.2f} s seconds_scoring  {median('biasatlas', 'wall'):7.2f} s "
          f"wall (the whole evaluate)  {median('biasatlas', 'cpu'):7.2f} s CPU · {first['batches']} · "
          f"threads {[t['threads'] for t in times['biasatlas']]}")
    if args.one_call:
        print(f"  one call  {median('one call', 'wall'):7.2f} s wall  {median('one call', 'cpu'):7.2f} s CPU")
    print(f"ratio lm-eval / biasatlas: {median('lm-eval', 'wall') / median('biasatlas', 'scoring'):.2f}x "
          f"(each side's own scoring time), {median('lm-eval', 'wall') / median('biasatlas', 'wall'):.2f}x "
          f"(our whole evaluate), {median('lm-eval', 'cpu') / median('biasatlas', 'cpu'):.2f}x (CPU seconds)"
          + (f"; one call {median('lm-eval', 'cpu') / median('one call', 'cpu'):.2f}x (CPU)" if args.one_call else ""))
    print(f"largest |Δ log-likelihood| per sentence, biasatlas vs lm-eval: {worst:.1e}")
    print(f"load average after {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
