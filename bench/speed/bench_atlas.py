"""The moonshot: every implemented benchmark's full data on a 7B-shaped causal LM in bfloat16.

A random Llama of Llama 2 7B's shape (``shapes.LLAMA_7B``: 32 layers, hidden 4,096, FFN
11,008, 32 heads, 32,000-token vocabulary; timing does not depend on the weights) is
drawn in bfloat16 on the device itself and handed to ``CausalLMScorer`` in memory
(``shapes.preloaded``); its byte-level BPE tokenizer is trained on the atlas's sentences.
Then, one benchmark after the other, as a causal LM is asked them by default
(``workloads.atlas``: census US/FR/NO in the conditional reading, CrowS-Pairs EN and
FR+210 as sentence log-likelihoods, zh-neutral's keyword slots), it prints the seconds of
``CausalLMScorer.score`` on all the benchmark's probes (after a 4-probe warm-up, best of
``--repeats``), the probes answered, and the useful FLOP/s as a fraction of the bfloat16
matmul peak measured in the same run: ``measure.needed_flops``, 2 × the decoder's matrix
weights × the tokens of the rows' prefix tree (a prefix several rows begin with counted
once) + 2 × the head's weights × the read positions. Then the whole atlas: the seconds
summed, the FLOPs summed over them. Last, unless ``--no-profile``, the slowest benchmark
once more under torch.profiler (``kernel_profile``): top kernels and host gaps.

    python bench/speed/bench_atlas.py --device cuda [--limit N] [--repeats 1] [--no-profile]
    python bench/speed/bench_atlas.py --smoke       # a tiny Llama on the CPU, 24 probes each

Needs torch and transformers only (run it from the repository root with ``PYTHONPATH=src``).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import torch

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]  # speed/, bench/
from kernel_profile import print_profile, profile_run  # noqa: E402
from measure import best_time, machine_line, matmul_peak, needed_flops, rows_of  # noqa: E402
from shapes import build_llama_shaped, preloaded  # noqa: E402
from workloads import atlas, sentences  # noqa: E402

from biasatlas.scorers.inprocess.causal_lm import CausalLMScorer  # noqa: E402


def bench_one(scorer: CausalLMScorer, name: str, probes: list, peak: float, args: argparse.Namespace) -> dict:
    """One benchmark's probes: the rows they need, then the timed scoring; prints two lines."""
    rows = rows_of(scorer, probes)  # a dry run: the model is never called
    flops, distinct, reads = needed_flops(rows, scorer.model.config)
    scorer.score(probes[:4])  # warm-up
    seconds, times, scored = best_time(lambda: scorer.score(probes), args.repeats, args.device)
    batches, shared = (scored.work.get(key, 0) for key in ("batches", "batches_shared"))  # the last call's work
    print(f"\n[{name}] {len(scored.answers)}/{len(probes)} probes answered; {len(rows)} rows, "
          f"{sum(len(r.ids) for r in rows)} tokens ({distinct} distinct prefixes' tokens), {reads} read "
          f"positions; {batches} batches ({shared} sharing prefixes)")
    print(f"  seconds {seconds:.3f} (best of {[round(t, 3) for t in times]}); needed {flops / 1e12:.2f} TFLOP, "
          f"{flops / seconds / 1e12:.2f} TFLOP/s; fraction of the bfloat16 peak {flops / seconds / peak:.1%}")
    return {"name": name, "seconds": seconds, "flops": flops, "fraction": flops / seconds / peak,
            "answered": len(scored.answers), "probes": len(probes)}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--limit", type=int, default=None, help="probes per benchmark (0: all; smoke: 24)")
    parser.add_argument("--batch-size", default=None, help="rows cap, or auto (default: 64 on CPU, auto on CUDA)")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--profile", action=argparse.BooleanOptionalAction, default=True,
                        help="profile the slowest benchmark once more (default: yes)")
    parser.add_argument("--smoke", action="store_true", help="tiny layers on the CPU: checks the script runs")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    args.batch_size = args.batch_size or ("auto" if torch.device(args.device).type == "cuda" else 64)
    works = atlas(args.limit if args.limit is not None else (24 if args.smoke else 0))
    print(machine_line(args.device))
    with tempfile.TemporaryDirectory() as tmp:
        built = time.perf_counter()
        model = build_llama_shaped(Path(tmp), sentences(list(works.values())), smoke=args.smoke, device=args.device)
        print(f"random Llama-7B-shaped model ({'tiny, ' if args.smoke else ''}"
              f"{sum(p.numel() for p in model.parameters()) / 1e6:,.1f}M parameters, bfloat16, on {args.device}) "
              f"and its tokenizer built in {time.perf_counter() - built:.1f} s")
        with preloaded(model):
            scorer = CausalLMScorer(tmp, batch_size=args.batch_size, device=args.device, dtype="bfloat16")
        print(f"batch size {scorer.batch_described}, max {scorer.max_batch_tokens} tokens, attention "
              f"{scorer.describe()['attention']}, fast head {scorer.head is not None}")
        peak = matmul_peak(args.device, "bfloat16")
        results = [bench_one(scorer, name, probes, peak, args) for name, probes in works.items()]
        seconds, flops = sum(r["seconds"] for r in results), sum(r["flops"] for r in results)
        print(f"\nwhole atlas: {sum(r['probes'] for r in results)} probes in {seconds:.2f} s; needed "
              f"{flops / 1e12:.2f} TFLOP at {flops / seconds / 1e12:.2f} TFLOP/s of a {peak / 1e12:.2f} TFLOP/s "
              f"bfloat16 matmul peak: {flops / seconds / peak:.1%}")
        slowest = max(results, key=lambda r: r["seconds"])["name"]
        profiled = None
        if args.profile:
            print()
            wall, events = profile_run(lambda: scorer.score(works[slowest]), args.device)
            profiled = print_profile(f"{slowest} (the slowest benchmark)", wall, events, args.device)
    return {"benchmarks": results, "seconds": seconds, "fraction": flops / seconds / peak, "profile": profiled}


if __name__ == "__main__":
    main()
