"""Forward passes and speed of the census benchmark against one forward pass per sentence.

Prints, in one run, on a BERT-base-sized masked LM (12 layers, hidden 768, 30,522-token
vocabulary, random weights: timing does not depend on them; tokenizer trained here on the
census sentences, so identifiers are single tokens as in real BERT) and the same census
sentences for both:

* sentences (the paper's unit), distinct masked contexts (our probes) and the forward
  passes (model input rows) we make: forward passes per sentence;
* wall and CPU seconds of ``evaluate(Census(...), MaskedLMScorer(...))`` (probes, scoring
  and metric) and of the straightforward reading of Touileb et al. (2023): for every
  (template, identifier) sentence and spelling variant, mask the identifier, one full
  forward, softmax over the vocabulary at every position, then eq. 1–2;
* the speed ratio, and whether both give the same female shares and classes;
* the useful FLOP/s we reach as a fraction of this machine's float32 matmul throughput.

    python bench/bench_census.py [--country us] [--sample 10] [--batch-size 64] [--threads 1]

Run it from the repository root (it reuses the model builder of ``bench_crows.py``).
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import torch

from biasatlas.benchmarks.census import load_language
from biasatlas.benchmarks.census.benchmark import Census
from biasatlas.pipeline import evaluate
from biasatlas.scorers.masked_lm import MaskedLMScorer

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_crows import build_model, matmul_peak, useful_flops  # noqa: E402


def reference_logprob(model, tokenizer, left: str, word: str, right: str) -> float:
    """log P(word | sentence with the word's tokens masked): one full forward pass."""
    enc = tokenizer(left + word + right, return_offsets_mapping=True)
    start, end = len(left), len(left) + len(word)
    positions = [i for i, (s, e) in enumerate(enc["offset_mapping"]) if e > s and s < end and e > start]
    ids = torch.tensor([enc["input_ids"]])
    targets = ids[0, positions].clone()
    ids[0, positions] = tokenizer.mask_token_id
    with torch.inference_mode():
        logp = torch.log_softmax(model(ids).logits[0], dim=-1)  # [L, V]: every position
    return float(logp[positions, targets].sum())


def reference_shares(bench: Census, model, tokenizer) -> tuple[dict[str, float], int]:
    """p(O) per occupation by eq. 1–2, one forward per sentence and spelling variant."""
    forms = {i.id: i.forms for i in load_language(bench.template_language).identifiers}
    contexts = {p.id: (p.left, p.right) for p in bench.plan.probes}
    probs: dict[str, dict[str, dict[str, list[float]]]] = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    passes = 0
    for cell in bench.plan.cells:
        left, right = contexts[cell.probe_id]
        mass = 0.0
        for form in forms[cell.identifier]:
            mass += math.exp(reference_logprob(model, tokenizer, left, form, right))
            passes += 1
        probs[cell.occupation][cell.template][cell.gender].append(mass)
    shares = {}
    for occupation, templates in probs.items():
        f = sum(sum(t["f"]) / len(t["f"]) for t in templates.values()) / len(templates)
        m = sum(sum(t["m"]) / len(t["m"]) for t in templates.values()) / len(templates)
        shares[occupation] = 100 * f / (f + m)
    return shares, passes


def timed(fn):
    wall, cpu = time.perf_counter(), time.process_time()
    value = fn()
    return value, time.perf_counter() - wall, time.process_time() - cpu


def klass(pct: float) -> str:
    return "female" if pct > 55 else "male" if pct < 45 else "balanced"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--country", default="us", choices=("us", "fr", "no"))
    parser.add_argument("--sample", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (1: steady on a shared machine)")
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    bench = Census(country=args.country, sample=args.sample, seed=args.seed)
    sentences = [c.text for c in Census(country=args.country).plan.cells]  # tokenizer corpus
    with tempfile.TemporaryDirectory() as tmp:
        build_model(Path(tmp), sentences)
        scorer = MaskedLMScorer(tmp, batch_size=args.batch_size, device=args.device)
        evaluate(Census(country=args.country, sample=2, seed=args.seed + 1), scorer)  # warm-up
        scorer.counters.clear()
        run, t_ours, c_ours = timed(lambda: evaluate(bench, scorer))
        rows = list({req[0] for p in bench.plan.probes for f in p.fillers
                     for req in [scorer._slot_request(p.left, f, p.right)[0]]})
        (want, ref_passes), t_ref, c_ref = timed(lambda: reference_shares(bench, scorer.model, scorer.tokenizer))
        peak = matmul_peak(args.device)
        flops = useful_flops(rows, scorer.model.config)
    got = {r["occupation"]: r["model_female_pct"] for r in run.records}
    diff = max(abs(got[o] - want[o]) for o in want)
    same_classes = all(klass(want[o]) == r["model_class"] for o, r in ((r["occupation"], r) for r in run.records))
    s = run.summary
    print(f"census {args.country}: {s['n_occupations']} occupations, {s['n_probes']} sentences, "
          f"{s['n_contexts']} masked contexts; BERT-base-sized MLM, threads {torch.get_num_threads()}, "
          f"device {args.device}, batch {args.batch_size}")
    print(f"forward passes: ours {s['n_forward_passes']} rows in {s['n_batches']} batches = "
          f"{s['forward_passes_per_probe']:.3f} per sentence; reference {ref_passes} "
          f"(one per sentence and spelling variant)")
    print(f"ours:      {t_ours:7.2f} s wall, {c_ours:7.2f} s CPU ({s['n_probes'] / t_ours:8.1f} sentences/s)")
    print(f"reference: {t_ref:7.2f} s wall, {c_ref:7.2f} s CPU ({s['n_probes'] / t_ref:8.1f} sentences/s)")
    print(f"speed-up:  {t_ref / t_ours:7.1f}x wall, {c_ref / c_ours:7.1f}x CPU")
    print(f"same shares: max |difference| {diff:.2e} percentage points; same classes: {same_classes}")
    print(f"useful FLOP/s: {flops / t_ours / 1e9:.1f} GFLOP/s of a {peak / 1e9:.1f} GFLOP/s matmul peak "
          f"({flops / t_ours / peak:.1%})")


if __name__ == "__main__":
    main()
