"""Speed of the CrowS-Pairs masked-LM engine against a one-mask-per-forward reference.

Prints, in one run, on a BERT-base-sized model (12 layers, hidden 768, 30,522-token
vocabulary; random weights: timing does not depend on them) and real English CrowS-Pairs
rows, for each ``--dtype``: pairs/s for ours (``MaskedLMScorer.score`` on all the pairs,
best of ``--repeats``) and for the straightforward reference (nyu-mll ``metric.py``: one
masked copy per forward pass, full vocabulary projection at every position, on the same
device, in the same dtype, on the first ``--reference-pairs`` pairs), their ratio, whether
both give the same outcomes, and the useful FLOP/s we reach — encoder over every masked
copy plus vocabulary projection at the masked positions only (``measure.masked_flops``) —
as a fraction of the matmul peak measured in the same run, in the same dtype, on the same
device; then, with two dtypes, the pairs whose outcome differs between them (flips).

    python bench/speed/bench_crows.py [--pairs 48] [--batch-size 64|auto] [--device cpu|cuda]
        [--dtype float32[,bfloat16]] [--reference-pairs N] [--threads N] [--smoke]

``--pairs 0`` takes all 1,508 English pairs (41,172 masked copies). ``--smoke`` builds the
model tiny (2 layers, hidden 64): a check that the script runs, not a measurement. Needs
torch and transformers only (run from the repository root with ``PYTHONPATH=src``).
"""

from __future__ import annotations

import argparse
import csv
import difflib
import sys
import tempfile
import time
from pathlib import Path

import torch

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]  # speed/, bench/
from measure import best_time, machine_line, masked_flops, matmul_peak  # noqa: E402
from shapes import CROWS_EN, build_bert_base, data_file  # noqa: E402

from biasatlas.benchmarks.crows_pairs import read_pairs  # noqa: E402
from biasatlas.probes import PairProbe  # noqa: E402
from biasatlas.scorers.inprocess.masked_lm import MaskedLMScorer  # noqa: E402

# Kept for scripts that imported the builder from here.
build_model = build_bert_base
useful_flops = masked_flops


def reference_scores(model, tokenizer, sent1: str, sent2: str) -> tuple[float, float]:
    """nyu-mll metric.py, literally: one masked copy per forward pass, batch size 1, on the
    model's device, float32 log-softmax over the whole vocabulary."""
    device = model.get_input_embeddings().weight.device
    ids = [tokenizer.encode(s, return_tensors="pt")[0] for s in (sent1, sent2)]
    ops = difflib.SequenceMatcher(None, [str(x) for x in ids[0].tolist()],
                                  [str(x) for x in ids[1].tolist()]).get_opcodes()
    spans = ([i for o in ops if o[0] == "equal" for i in range(o[1], o[2])],
             [i for o in ops if o[0] == "equal" for i in range(o[3], o[4])])
    scores = [0.0, 0.0]
    for side in (0, 1):
        for pos in spans[side][1:-1]:
            masked = ids[side].clone()
            masked[pos] = tokenizer.mask_token_id
            with torch.inference_mode():
                logits = model(masked.unsqueeze(0).to(device)).logits[0, pos]
            scores[side] += float(torch.log_softmax(logits.float(), -1)[ids[side][pos]])
    return scores[0], scores[1]


def outcome(a: float, b: float) -> str:
    a, b = round(a, 3), round(b, 3)
    return "tie" if a == b else ("a" if a > b else "b")


def bench_dtype(folder: str, probes: list[PairProbe], dtype: str, args: argparse.Namespace) -> dict:
    """One dtype: ours on every pair, the reference on the first ones, the peak; prints a block."""
    loaded = time.perf_counter()
    ours = MaskedLMScorer(folder, batch_size=args.batch_size, device=args.device, dtype=dtype)
    loaded = time.perf_counter() - loaded
    ours.score(probes[:8])  # warm-up: kernels chosen, caches filled
    t_ours, times, fast = best_time(lambda: ours.score(probes), args.repeats, args.device)
    rows = {r for p in probes for side in ours._pair_plan(p) for r, _ in side}
    subset = probes[: args.reference_pairs] if args.reference_pairs else probes
    t_ref, _, slow = best_time(lambda: {p.id: reference_scores(ours.model, ours.tokenizer, p.a, p.b)
                                        for p in subset}, 1, args.device)
    peak = matmul_peak(args.device, dtype)
    flops = masked_flops(rows, ours.model.config)
    differ = sum(outcome(fast[p.id].score_a, fast[p.id].score_b) != outcome(*slow[p.id]) for p in subset)
    max_diff = max(max(abs(fast[p.id].score_a - slow[p.id][0]), abs(fast[p.id].score_b - slow[p.id][1]))
                   for p in subset)
    ours_rate, ref_rate = len(probes) / t_ours, len(subset) / t_ref
    described = ours.describe()
    print(f"\n[{dtype}] {len(probes)} pairs, {len(rows)} masked copies, {fast.work.get('batches', 0)} "
          f"batches; batch size {described['batch_size']}, max {ours.max_batch_tokens} tokens, attention "
          f"{described['attention']} (load + batch probe {loaded:.1f} s)")
    print(f"  ours:      {ours_rate:9.1f} pairs/s ({t_ours:.3f} s scoring, best of {[round(t, 3) for t in times]})")
    print(f"  reference: {ref_rate:9.1f} pairs/s ({t_ref:.1f} s on {len(subset)} pairs, one mask per forward)")
    print(f"  speed-up:  {ours_rate / ref_rate:9.1f}x (measured in this run)")
    print(f"  same outcomes as the reference: {len(subset) - differ}/{len(subset)} "
          f"(max |score difference| {max_diff:.2e})")
    print(f"  useful: {flops / 1e12:.2f} TFLOP, {flops / t_ours / 1e12:.2f} TFLOP/s; {dtype} matmul peak "
          f"{peak / 1e12:.2f} TFLOP/s; fraction {flops / t_ours / peak:.1%}")
    subset_flops = masked_flops({r for p in subset for side in ours._pair_plan(p) for r, _ in side}, ours.model.config)
    print(f"  reference useful FLOP/s fraction: {subset_flops / t_ref / peak:.2%}")
    return {"dtype": dtype, "seconds": t_ours, "speedup": ours_rate / ref_rate, "fraction": flops / t_ours / peak,
            "pairs": len(probes), "outcomes": {p.id: outcome(fast[p.id].score_a, fast[p.id].score_b) for p in probes}}


def print_flips(results: list[dict]) -> int | None:
    """Pairs whose outcome (a, b or tie at 3 decimals, as the benchmark rounds) differs
    between the first two dtypes' runs; None with fewer than two dtypes. Random weights
    give pairs close scores, so a trained model of the shape flips fewer."""
    if len(results) < 2:
        return None
    first, second = results[0], results[1]
    flips = sum(first["outcomes"][pid] != second["outcomes"][pid] for pid in first["outcomes"])
    print(f"outcome flips {first['dtype']} vs {second['dtype']}: {flips} of {len(first['outcomes'])} pairs "
          "(random weights: close scores, more flips than a trained model)")
    return flips


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=48, help="first N English pairs (0: all 1,508)")
    parser.add_argument("--batch-size", default=None, help="rows cap, or auto (default: 64 on CPU, auto on CUDA)")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--dtype", default="float32", help="comma-separated: float32,bfloat16,float16")
    parser.add_argument("--reference-pairs", type=int, default=None,
                        help="pairs the reference scores (default: all on CPU, 100 on CUDA)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--smoke", action="store_true", help="tiny model: checks the script runs")
    parser.add_argument("--data", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    on_cuda = torch.device(args.device).type == "cuda"
    args.batch_size = args.batch_size or ("auto" if on_cuda else 64)
    if args.reference_pairs is None:
        args.reference_pairs = 100 if on_cuda else 0
    csv_path = args.data or data_file(CROWS_EN)
    pairs = read_pairs(csv_path)
    with open(csv_path, encoding="utf-8") as handle:
        corpus = [r[k] for r in csv.DictReader(handle) for k in ("sent_more", "sent_less")]
    chosen = pairs[: args.pairs] if args.pairs else pairs
    probes = [PairProbe(p.id, p.sent_more, p.sent_less) for p in chosen]
    print(machine_line(args.device))
    with tempfile.TemporaryDirectory() as tmp:
        build_bert_base(Path(tmp), corpus, smoke=args.smoke)
        results = [bench_dtype(tmp, probes, dtype, args) for dtype in args.dtype.split(",")]
    print("\nsummary: " + "; ".join(f"{r['dtype']} {r['seconds']:.2f} s, {r['speedup']:.1f}x reference, "
                                    f"{r['fraction']:.1%} of peak" for r in results))
    return {"runs": results, "flips": print_flips(results)}


if __name__ == "__main__":
    main()
