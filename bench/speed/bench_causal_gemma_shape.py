"""The causal-LM engine on a Gemma-3-270M-shaped model against one sentence per forward.

Prints, in one run, on a random causal LM of Gemma 3 270M's shape (``shapes.GEMMA_3_270M``:
18 layers, hidden 640, 262,144-token vocabulary, sliding-window layers; timing does not
depend on the weights) with a byte-level BPE tokenizer trained on the sentences, for each
``--dtype`` and each workload —

* ``census``: the US census plan asked as the package asks a causal LM (the ``conditional``
  reading: log P(occupation phrase | identifier + predicate), one sentence per context;
  48,984 sentences with every occupation), or its first ``--n`` sentences;
* ``crows``: English CrowS-Pairs pairs as sentence log-likelihoods (``sentence-ll``: every
  token read), the first ``--pairs`` (0: all 1,508) —

the sentences/s of ours (``CausalLMScorer.score`` on all the probes, best of ``--repeats``)
and of the reference (one sentence per forward on the same device in the same dtype, the
model's full forward, float32 ``log_softmax`` over the whole vocabulary at every position,
on every k-th sentence up to ``--reference-rows``), their ratio, the largest |score
difference|, and the useful FLOP/s of ours (``measure.causal_flops``: decoder over every
token, vocabulary projection at the read positions only) as a fraction of the matmul peak
measured in the same run in the same dtype.

    python bench/speed/bench_causal_gemma_shape.py [--device cuda] [--dtype bfloat16,float32]
        [--work census,crows] [--n 0] [--pairs 0] [--reference-rows 300] [--smoke]

``--smoke`` keeps the vocabulary but makes the layers tiny: a check that the script runs.
Needs torch and transformers only; run it from the repository root with ``PYTHONPATH=src``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import torch

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]  # speed/, bench/
from measure import best_time, causal_flops, machine_line, matmul_peak, rows_of  # noqa: E402
from shapes import build_gemma_shaped  # noqa: E402

from workloads import Question, asked, census_probes, crows_probes, sentences  # noqa: E402

from biasatlas.probes import PairProbe  # noqa: E402
from biasatlas.scorers.inprocess.causal_lm import CausalLMScorer  # noqa: E402
from biasatlas.scorers.spans import split_continuation  # noqa: E402


def answers_in_order(probes: list, answers) -> list[float]:
    out: list[float] = []
    for p in probes:
        a = answers[p.id]
        out += [a.score_a, a.score_b] if isinstance(p, PairProbe) else list(a.logprobs)
    return out


def reference_logprob(scorer: CausalLMScorer, context: str, continuation: str) -> float:
    """log P(continuation | prefix + context): one row, the model's full forward, float32
    log-softmax over the whole vocabulary at every position (lm-evaluation-harness's
    arithmetic, unbatched). The continuation's tokens are those after the context's own
    encoding, the context's trailing space moved to the continuation."""
    context, continuation = split_continuation(context, continuation)
    whole = scorer.encode(context + continuation)
    start = len(scorer.encode(context)) if context else 0
    ids = torch.tensor([[scorer.prefix_id, *whole]], device=scorer.device)
    with torch.inference_mode():
        logp = torch.log_softmax(scorer.model(ids).logits[0].float(), dim=-1)
    targets = ids[0, start + 1:]
    return float(logp[torch.arange(start, len(whole), device=ids.device), targets].double().sum())


def bench_work(scorer: CausalLMScorer, work: str, probes: list, questions: list[Question], dtype: str,
               peak: float, args: argparse.Namespace) -> dict:
    rows = rows_of(scorer, probes)
    scorer.score(probes[:4])  # warm-up
    best, times, ours = best_time(lambda: scorer.score(probes), args.repeats, args.device)
    got = answers_in_order(probes, ours)
    step = max(1, -(-len(questions) // args.reference_rows))
    picked = list(range(0, len(questions), step))
    t_ref, _, ref = best_time(lambda: [reference_logprob(scorer, *questions[i]) for i in picked], 1, args.device)
    diff = max(abs(got[i] - r) for i, r in zip(picked, ref))
    flops = causal_flops(rows, scorer.model.config)
    n, rate, ref_rate = len(questions), len(questions) / best, len(picked) / t_ref
    print(f"\n[{dtype} · {work}] {n} sentences, {len(rows)} rows, {sum(len(r.ids) for r in rows)} tokens, "
          f"{sum(len(r.positions) for r in rows)} read positions; {ours.work.get('batches', 0)} "
          f"batches ({ours.work.get('batches_shared', 0)} sharing prefixes)")
    print(f"  ours:      {rate:10.1f} sentences/s ({best:.3f} s, best of {[round(t, 3) for t in times]})")
    print(f"  reference: {ref_rate:10.1f} sentences/s ({t_ref:.1f} s on {len(picked)} sentences, one per "
          f"forward, full log-softmax)")
    print(f"  speed-up:  {rate / ref_rate:10.1f}x (measured in this run); max |score difference| {diff:.1e}")
    print(f"  useful: {flops / 1e12:.2f} TFLOP, {flops / best / 1e12:.3f} TFLOP/s; {dtype} matmul peak "
          f"{peak / 1e12:.2f} TFLOP/s; fraction {flops / best / peak:.1%}")
    return {"work": work, "dtype": dtype, "seconds": best, "speedup": rate / ref_rate,
            "fraction": flops / best / peak, "sentences": n}


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--dtype", default="float32", help="comma-separated: float32,bfloat16,float16")
    parser.add_argument("--work", default="census,crows")
    parser.add_argument("--n", type=int, default=2000, help="census sentences (0: all US, 48,984)")
    parser.add_argument("--pairs", type=int, default=100, help="CrowS-Pairs pairs (0: all 1,508)")
    parser.add_argument("--batch-size", default=None, help="rows cap, or auto (default: 64 on CPU, auto on CUDA)")
    parser.add_argument("--reference-rows", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--smoke", action="store_true", help="tiny layers: checks the script runs")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    args.batch_size = args.batch_size or ("auto" if torch.device(args.device).type == "cuda" else 64)
    works = {}
    if "census" in args.work:
        works["census"] = census_probes("us", args.n)
    if "crows" in args.work:
        works["crows"] = crows_probes("en", args.pairs)
    works = {name: (probes, asked(probes)) for name, probes in works.items()}
    corpus = sentences([probes for probes, _ in works.values()] + [crows_probes("en")])  # tokenizer
    print(machine_line(args.device))
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        built = time.perf_counter()
        build_gemma_shaped(Path(tmp), corpus, smoke=args.smoke, device=args.device)
        print(f"random Gemma-3-270M-shaped model built in {time.perf_counter() - built:.1f} s")
        for dtype in args.dtype.split(","):
            loaded = time.perf_counter()
            scorer = CausalLMScorer(tmp, batch_size=args.batch_size, device=args.device, dtype=dtype)
            described = scorer.describe()
            print(f"\n{dtype}: loaded in {time.perf_counter() - loaded:.1f} s; batch size {described['batch_size']}, "
                  f"max {scorer.max_batch_tokens} tokens, attention {described['attention']}, fast head "
                  f"{scorer.head is not None}")
            peak = matmul_peak(args.device, dtype)
            for work, (probes, questions) in works.items():
                results.append(bench_work(scorer, work, probes, questions, dtype, peak, args))
            del scorer
            if torch.cuda.is_available():
                torch.cuda.empty_cache()
    print("\nsummary: " + "; ".join(f"{r['dtype']} {r['work']} {r['sentences']} sentences {r['seconds']:.2f} s, "
                                    f"{r['speedup']:.1f}x reference, {r['fraction']:.1%} of peak" for r in results))
    return results


if __name__ == "__main__":
    main()
