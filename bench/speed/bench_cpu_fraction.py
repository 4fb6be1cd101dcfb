"""The CPU goals of the engine: the fraction of this machine's matmul peak each path reaches.

* masked: ``MaskedLMScorer`` on the first ``--pairs`` English CrowS-Pairs pairs with a
  BERT-base-sized random model (``shapes.build_bert_base``); useful work
  ``measure.masked_flops`` (encoder over every masked copy, head at the masked positions);
* causal: ``CausalLMScorer`` on the same pairs (``sentence-ll``: every token read) with the
  packaged Gemma 3 270M (``gemma-3-270m``: its converted folder is made once, ~1 min);
  useful work ``measure.causal_flops``: the FLOPs a sentence log-likelihood needs, i.e. the
  decoder over every token of every sentence and the vocabulary projection at every read
  position (prefix sharing skips some of that decoder work, which still counts as useful:
  it is what the reading needs, done more cheaply).

Each of ``--rounds`` rounds measures the float32 matmul peak, then scores; the report gives
the best round (a shared machine only ever slows a run down) by wall time, and by process
CPU time, which other processes on the machine disturb less: FLOPs per CPU-second of ours
against FLOPs per CPU-second of the matmul. Both at ``--threads`` threads.

    python bench/speed/bench_cpu_fraction.py [--paths masked,causal] [--pairs 24] [--threads 2]
        [--rounds 3] [--max-batch-tokens N]
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import tempfile
import time
from pathlib import Path

import torch

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]  # speed/, bench/
from measure import causal_flops, masked_flops, rows_of  # noqa: E402
from shapes import CROWS_EN, build_bert_base, data_file  # noqa: E402

from biasatlas.benchmarks.crows_pairs import read_pairs  # noqa: E402
from biasatlas.probes import PairProbe  # noqa: E402
from biasatlas.scorers.inprocess.causal_lm import CausalLMScorer  # noqa: E402
from biasatlas.scorers.inprocess.masked_lm import MaskedLMScorer  # noqa: E402


def clocked(fn) -> tuple[float, float]:
    """(wall seconds, process CPU seconds) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def peak_round(seconds: float = 1.5, size: int = 4096) -> tuple[float, float]:
    """float32 matmul FLOP/s by wall time and per CPU-second, over ``seconds``."""
    a, b = torch.randn(size, size), torch.randn(size, size)
    a @ b
    count, wall, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - wall < seconds:
        a @ b
        count += 1
    flops = 2 * size**3 * count
    return flops / (time.perf_counter() - wall), flops / (time.process_time() - cpu)


def measure(name: str, scorer, probes: list, flops: float, rounds: int) -> None:
    scorer.score(probes[:2])  # warm-up
    results = []
    for _ in range(rounds):
        peak_wall, peak_cpu = peak_round()
        wall, cpu = clocked(lambda: scorer.score(probes))
        results.append((wall, cpu, peak_wall, peak_cpu))
        print(f"  {name} round: {wall:6.2f} s wall, {cpu:6.2f} s CPU; peak {peak_wall / 1e9:6.1f} GFLOP/s wall, "
              f"{peak_cpu / 1e9:6.1f} per CPU-s; fraction {flops / wall / peak_wall:6.1%} wall, "
              f"{flops / cpu / peak_cpu:6.1%} CPU", flush=True)
    wall, cpu = min(r[0] for r in results), min(r[1] for r in results)
    peak_wall, peak_cpu = max(r[2] for r in results), max(r[3] for r in results)
    print(f"{name}: {flops / 1e12:.3f} TFLOP useful; best {wall:.2f} s wall → {flops / wall / 1e9:.1f} GFLOP/s of a "
          f"{peak_wall / 1e9:.1f} GFLOP/s peak = {flops / wall / peak_wall:.1%}; best {cpu:.2f} CPU-s → "
          f"{flops / cpu / 1e9:.1f} GFLOP per CPU-s of {peak_cpu / 1e9:.1f} = {flops / cpu / peak_cpu:.1%}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--paths", default="masked,causal")
    parser.add_argument("--pairs", type=int, default=24)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--max-batch-tokens", type=int, default=None)
    parser.add_argument("--causal-model", default="gemma-3-270m")
    parser.add_argument("--no-share-prefixes", action="store_true",
                        help="causal: run every row whole (all the counted FLOPs are then executed)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    path = data_file(CROWS_EN)
    probes = [PairProbe(p.id, p.sent_more, p.sent_less) for p in read_pairs(path)[: args.pairs]]
    print(f"threads {torch.get_num_threads()}, cores {os.cpu_count()}, load average {os.getloadavg()[0]:.1f}, "
          f"{len(probes)} CrowS-Pairs pairs")
    if "masked" in args.paths:
        with open(path, encoding="utf-8") as handle:
            corpus = [r[k] for r in csv.DictReader(handle) for k in ("sent_more", "sent_less")]
        with tempfile.TemporaryDirectory() as tmp:
            build_bert_base(Path(tmp), corpus)
            scorer = MaskedLMScorer(tmp, max_batch_tokens=args.max_batch_tokens)
            rows = rows_of(scorer, probes)
            print(f"masked: BERT-base-sized, {len(rows)} masked copies, batch {scorer.batch_size} rows / "
                  f"{scorer.max_batch_tokens} tokens")
            measure("masked", scorer, probes, masked_flops(rows, scorer.model.config), args.rounds)
    if "causal" in args.paths:
        scorer = CausalLMScorer(args.causal_model, max_batch_tokens=args.max_batch_tokens,
                                share_prefixes=not args.no_share_prefixes)
        rows = rows_of(scorer, probes)
        print(f"causal: {args.causal_model}, {len(rows)} sentences, {sum(len(r.ids) for r in rows)} tokens, "
              f"{sum(len(r.positions) for r in rows)} read, batch {scorer.batch_size} rows / "
              f"{scorer.max_batch_tokens} tokens, prefixes shared: {scorer.share_prefixes}")
        measure("causal", scorer, probes, causal_flops(rows, scorer.model.config), args.rounds)
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
