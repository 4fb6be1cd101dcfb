"""Speed of the causal-LM scorer against one sentence per forward pass, on real work.

Prints, in one run, for each packaged causal model (SmolLM2-135M, Gemma-3-270m, float32)
and two workloads — 100 real English CrowS-Pairs (200 sentences, ``sentence-ll``) and the
census main job (``Census(country="no", sample=12)``: conditional continuation probes plus
the occupation-free baseline) — the sentences/s of:

* ours: ``CausalLMScorer.score`` on all the probes at once (token-budget batches, head at
  read positions only), and through ``pipeline.run_benchmark`` as the CLI runs it (no score
  cache: its ``seconds_scoring``, which scores in chunks of a tenth of the probes and
  includes hashing the model files for the cache key);
* the reference: one sentence per forward, the model's full forward, float32
  ``log_softmax`` over the whole vocabulary at every position, then the read positions
  summed (lm-evaluation-harness's arithmetic without its batching);
* with ``--old``, the previous engine: length-sorted batches of ``batch_size`` rows, the
  model's full forward, ``log_softmax`` of the read positions' ``[M, V]`` logits copied to
  the host and the targets picked there (:func:`old_engine`, kept here for comparison);

their ratio, the largest |score difference| (must be ≤ 1e-4), and the useful FLOP/s of
ours — decoder over every real token, attention over the positions each token sees,
vocabulary projection at the read positions only — as a fraction of this machine's float32
``torch.matmul`` throughput, measured in the same run, at the same thread count.

    python bench/speed/bench_causal.py [--models smollm2-135m,gemma-3-270m] [--work crows,census]
        [--repeats 3] [--threads N] [--batch-size 64] [--reference-rows 400] [--old]

The reference is slow on the census job (a 262,144-way log-softmax per position on
Gemma), so it runs on every k-th row up to ``--reference-rows``; its speed and the score
difference are taken on those rows. Other processes on the machine change every number:
the load average is printed before and after.

Why the engine is shaped so (torch.profiler, self CPU time by kind, 2 threads, idle
machine, CrowS-Pairs work; previous engine → this one):

* SmolLM2-135M: matrix products 75 → 83 %, element-wise kernels (rotary ``mul``/``cat``/
  ``neg``, RMSNorm ``pow``/``mean``, SiLU) 14 → 7 %, [M, V] gather and copies 4 → 1 %,
  log-softmax 4 → 5 %, attention 3 %; 5.2 → 4.1 s.
* Gemma-3-270m: matrix products 74 → 81 %, gather and copies 9 → 0 %, log-softmax 9 →
  12 % (same work, less else), element-wise 6 → 5 %; 11.1 → 8.9 s. On the census job,
  where 9,294 of 24,216 tokens are read, matrix products 51.7 → 31.9 s (the 262,144-way
  head no longer runs on the contexts), gather and copies 5 → 0 %; 62.3 → 39.4 s.

On a loaded machine (load average 4–5 on the 2 cores) the previous engine's 64-row
batches spent 55 % in element-wise kernels: their activations spill out of cache and every
kernel waits on memory and on the descheduled second thread. What is left is the decoder's
matrix products (~70 % of the isolated-GEMM rate) and the vocabulary projection at every
read position, exact float32 log-softmax included (a quarter of the time on CrowS-Pairs,
where every token is read).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import torch

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]  # speed/, bench/
from measure import causal_flops, rows_of  # noqa: E402
from measure import matmul_peak as device_matmul_peak  # noqa: E402

from biasatlas.benchmarks.census.benchmark import Census  # noqa: E402
from biasatlas.benchmarks.crows_pairs import CrowsPairs  # noqa: E402
from biasatlas.pipeline import run_benchmark  # noqa: E402
from biasatlas.probes import ContinuationProbe, PairProbe, SlotProbe  # noqa: E402
from biasatlas.scorers.batching import Request, chunks, pad_rows  # noqa: E402
from biasatlas.scorers.inprocess.causal_lm import CausalLMScorer  # noqa: E402
from biasatlas.scorers.spans import split_continuation  # noqa: E402

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "crows-pairs-en" / "crows_pairs_anonymized.csv"

# One "sentence" = one (text, read-from) question: a CrowS-Pairs side, a census context
# with its continuation, a baseline sentence with one filler.
Question = tuple[str, str]  # (context, continuation); context "" = whole sentence


def crows_work(pairs: int) -> tuple[CrowsPairs, list, list[Question]]:
    bench = CrowsPairs(dataset=None, data=DATA, limit=pairs)
    probes = bench.probes(bench.load())
    return bench, probes, [("", s) for p in probes for s in (p.a, p.b)]


def census_work(scorer: CausalLMScorer, sample: int) -> tuple[Census, list, list[Question]]:
    bench = Census(country="no", sample=sample)
    bound = bench.bind(scorer.info)  # run_benchmark() binds again; the probes are the same
    probes = bound.probes(bound.load())
    questions: list[Question] = []
    for p in probes:
        if isinstance(p, ContinuationProbe):
            questions += [(c, p.continuation) for c in p.contexts]
        elif isinstance(p, SlotProbe):
            questions += [("", p.left + f + p.right) for f in p.fillers]
    return bench, probes, questions


def answers_in_order(probes: list, answers: dict) -> list[float]:
    """Our answers flattened in the order of the work's questions."""
    out: list[float] = []
    for p in probes:
        a = answers[p.id]
        out += [a.score_a, a.score_b] if isinstance(p, PairProbe) else list(a.logprobs)
    return out


def reference_logprob(model, scorer: CausalLMScorer, context: str, continuation: str) -> float:
    """log P(continuation | prefix + context): one row, full forward, full log-softmax.

    Tokenized as lm-evaluation-harness does: the whole text once, the continuation being
    the tokens after the context's own encoding (context whitespace moved first).
    """
    context, continuation = split_continuation(context, continuation)
    whole = scorer.encode(context + continuation)
    start = len(scorer.encode(context)) if context else 0
    ids = [scorer.prefix_id, *whole]
    with torch.inference_mode():
        logp = torch.log_softmax(model(torch.tensor([ids])).logits[0].float(), dim=-1)
    return sum(float(logp[t, ids[t + 1]]) for t in range(start, len(whole)))


def old_engine(scorer: CausalLMScorer) -> Callable[[list[Request]], list[float]]:
    """The previous engine: rows of batch_size, [M, V] log-softmax picked on the host."""
    def logprobs(rows):
        pad = scorer.tokenizer.pad_token_id
        ids, attention, b_idx, p_idx = pad_rows(rows, pad if pad is not None else scorer.prefix_id)
        with torch.inference_mode():
            logits = scorer.model(input_ids=ids, attention_mask=attention).logits
            return torch.log_softmax(logits[b_idx, p_idx].float(), dim=-1).cpu()

    def run(requests: list[Request]) -> list[float]:
        wanted: dict = defaultdict(set)
        for row, targets in requests:
            wanted[row].add(targets)
        results = {}
        for batch in chunks(sorted(wanted, key=lambda r: len(r.ids)), scorer.batch_size):
            logp, start = logprobs(batch), 0
            for row in batch:
                block = logp[start:start + len(row.positions)]
                for targets in wanted[row]:
                    picked = block[torch.arange(len(targets)), torch.tensor(targets)]
                    results[(row, targets)] = float(picked.double().sum())
                start += len(row.positions)
        return [results[(row, targets)] for row, targets in requests]

    return run


useful_flops = causal_flops


def matmul_peak() -> float:
    """float32 FLOP/s of one large square matmul at the current thread count (best of 3)."""
    return device_matmul_peak("cpu", "float32", seconds=3.0)


def timed(fn: Callable[[], dict], repeats: int) -> tuple[list[float], dict]:
    times, out = [], {}
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return times, out


def bench_one(model: str, work: str, args: argparse.Namespace) -> None:
    scorer = CausalLMScorer(model, batch_size=args.batch_size,
                            max_batch_tokens=args.max_batch_tokens)
    bench, probes, questions = (crows_work(args.pairs) if work == "crows"
                                else census_work(scorer, args.sample))
    rows = rows_of(scorer, probes)
    n = len(questions)
    scorer.score(probes[:2])  # warm-up
    peak_before = matmul_peak()
    times, ours = timed(lambda: scorer.score(probes), args.repeats)
    pipeline = min(run_benchmark(bench, scorer).timing["seconds_scoring"] for _ in range(args.repeats))
    peak = max(peak_before, matmul_peak())
    got = answers_in_order(probes, ours)
    step = max(1, -(-n // args.reference_rows))
    picked = list(range(0, n, step))
    start = time.perf_counter()
    ref = [reference_logprob(scorer.model, scorer, *questions[i]) for i in picked]
    t_ref = time.perf_counter() - start
    diff = max(abs(got[i] - r) for i, r in zip(picked, ref))
    best = min(times)
    flops = useful_flops(rows, scorer.model.config)
    print(f"\n{model} · {work}: {n} sentences, {len(rows)} rows, "
          f"{sum(len(r.ids) for r in rows)} tokens, {sum(len(r.positions) for r in rows)} read "
          f"positions; batch_size {scorer.batch_size} rows, "
          f"max_batch_tokens {scorer.max_batch_tokens}, fast head {scorer.head is not None}")
    print(f"  ours:      {n / best:8.1f} sentences/s (best of {[round(t, 2) for t in times]} s)")
    print(f"  ours through pipeline.run_benchmark: {n / pipeline:8.1f} sentences/s "
          f"(seconds_scoring {pipeline:.2f}, best of {args.repeats})")
    print(f"  reference: {len(picked) / t_ref:8.1f} sentences/s ({t_ref:.1f} s on {len(picked)} "
          f"sentences, one per forward, full log-softmax)")
    print(f"  speed-up over reference: {(n / best) / (len(picked) / t_ref):.2f}x; "
          f"max |score difference| {diff:.1e} ({'ok' if diff <= 1e-4 else 'OVER 1e-4'})")
    if args.old:
        engine = old_engine(scorer)
        scorer._launch = lambda requests: (lambda values: lambda: values)(engine(requests))  # type: ignore[method-assign]
        old_times, old = timed(lambda: scorer.score(probes), args.old_repeats)
        del scorer._launch
        old_diff = max(abs(a - b) for a, b in zip(got, answers_in_order(probes, old)))
        print(f"  old engine: {n / min(old_times):7.1f} sentences/s (best of "
              f"{[round(t, 2) for t in old_times]} s); ours is {min(old_times) / best:.2f}x; "
              f"max |difference| {old_diff:.1e}")
    print(f"  useful: {flops / 1e12:.2f} TFLOP, {flops / best / 1e9:.1f} GFLOP/s; matmul peak "
          f"{peak / 1e9:.1f} GFLOP/s; fraction {flops / best / peak:.0%}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", default="smollm2-135m,gemma-3-270m")
    parser.add_argument("--work", default="crows,census")
    parser.add_argument("--pairs", type=int, default=100)
    parser.add_argument("--sample", type=int, default=12, help="census occupations")
    parser.add_argument("--batch-size", type=int, default=64, help="rows cap (the CLI default)")
    parser.add_argument("--max-batch-tokens", type=int, default=None)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--reference-rows", type=int, default=400)
    parser.add_argument("--old", action="store_true", help="also time the previous engine")
    parser.add_argument("--old-repeats", type=int, default=1)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    print(f"threads {torch.get_num_threads()}, cores {os.cpu_count()}, torch {torch.__version__}, "
          f"load average {os.getloadavg()[0]:.1f}")
    for model in args.models.split(","):
        for work in args.work.split(","):
            bench_one(model, work, args)
    print(f"\nload average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
