"""Forward passes and speed of the census benchmark against one forward pass per sentence.

Prints, in one run, on a BERT-base-sized masked LM (12 layers, hidden 768, 30,522-token
vocabulary, random weights: timing does not depend on them; tokenizer trained here on the
census sentences, so identifiers are single tokens as in real BERT) and the same census
sentences for both, for each ``--dtype``:

* sentences (the paper's unit), distinct masked contexts (our probes) and the forward
  passes (model input rows) we make: forward passes per sentence;
* wall seconds of ``MaskedLMScorer.score`` on the census plan's probes, and of the
  straightforward reading of Touileb et al. (2023): for every (template, identifier)
  sentence and spelling variant, mask the identifier, one full forward on the same device
  in the same dtype, float32 log-softmax over the vocabulary at every position;
* both turned into female shares by the same eq. 1–2 arithmetic (:func:`shares`): the
  speed ratio, and whether both give the same shares and classes;
* the useful FLOP/s we reach as a fraction of the matmul peak measured in the same run,
  in the same dtype, on the same device.

    python bench/speed/bench_census.py [--country us] [--sample 10] [--batch-size 64|auto]
        [--threads 1] [--device cpu|cuda] [--dtype float32[,bfloat16]] [--smoke]

``--sample 0`` takes every occupation. The probes come from the census plan
(``benchmarks.census.templates``), not ``pipeline.run_benchmark``, so the script needs torch and
transformers only (the census metrics need scipy); run it from the repository root with
``PYTHONPATH=src``.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import torch

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]  # speed/, bench/
from measure import best_time, machine_line, masked_flops, matmul_peak  # noqa: E402
from shapes import build_bert_base  # noqa: E402

from biasatlas.benchmarks.census.language import COUNTRY_LANGUAGE  # noqa: E402
from biasatlas.benchmarks.census.table import load_census  # noqa: E402
from biasatlas.benchmarks.census.templates import CensusPlan, build_plan  # noqa: E402
from biasatlas.scorers.inprocess.masked_lm import MaskedLMScorer  # noqa: E402


def reference_logprob(model, tokenizer, left: str, word: str, right: str) -> float:
    """log P(word | sentence with the word's tokens masked): one full forward pass."""
    enc = tokenizer(left + word + right, return_offsets_mapping=True)
    start, end = len(left), len(left) + len(word)
    positions = [i for i, (s, e) in enumerate(enc["offset_mapping"]) if e > s and s < end and e > start]
    ids = torch.tensor([enc["input_ids"]])
    targets = ids[0, positions].clone()
    ids[0, positions] = tokenizer.mask_token_id
    device = model.get_input_embeddings().weight.device
    with torch.inference_mode():
        logp = torch.log_softmax(model(ids.to(device)).logits[0].float(), dim=-1)  # [L, V]: every position
    return float(logp[positions, targets.to(device)].sum())


def shares(plan: CensusPlan, mass: Callable[[str, int], float]) -> dict[str, float]:
    """Female share (%) per occupation by eq. 1–2: ``mass(probe id, filler index)`` is P(i | t)
    of one spelling variant; variants add, identifiers average per gender and template,
    templates average per occupation."""
    probs: dict[str, dict[str, dict[str, list[float]]]] = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for cell in plan.cells:
        total = sum(mass(cell.probe_id, i) for i in cell.filler_indices)
        probs[cell.occupation][cell.template][cell.gender].append(total)
    out = {}
    for occupation, templates in probs.items():
        f = sum(sum(t["f"]) / len(t["f"]) for t in templates.values()) / len(templates)
        m = sum(sum(t["m"]) / len(t["m"]) for t in templates.values()) / len(templates)
        out[occupation] = 100 * f / (f + m)
    return out


def reference_shares(plan: CensusPlan, model, tokenizer) -> tuple[dict[str, float], int]:
    """The shares with one forward per sentence and spelling variant (each computed once)."""
    probes = {p.id: p for p in plan.probes}
    done: dict[tuple[str, int], float] = {}

    def mass(probe_id: str, index: int) -> float:
        if (probe_id, index) not in done:
            p = probes[probe_id]
            done[(probe_id, index)] = math.exp(reference_logprob(model, tokenizer, p.left, p.fillers[index],
                                                                 p.right))
        return done[(probe_id, index)]

    return shares(plan, mass), len(done)


def klass(pct: float) -> str:
    return "female" if pct > 55 else "male" if pct < 45 else "balanced"


def bench_dtype(folder: str, plan: CensusPlan, dtype: str, args: argparse.Namespace) -> dict:
    scorer = MaskedLMScorer(folder, batch_size=args.batch_size, device=args.device, dtype=dtype)
    scorer.score(list(plan.probes[:4]))  # warm-up
    t_ours, times, answers = best_time(lambda: scorer.score(list(plan.probes)), args.repeats, args.device)
    got = shares(plan, lambda pid, i: math.exp(answers[pid].logprobs[i]))
    rows = list({scorer._slot_request(p.left, f, p.right)[0][0] for p in plan.probes for f in p.fillers})
    start = time.perf_counter()
    want, ref_passes = reference_shares(plan, scorer.model, scorer.tokenizer)
    t_ref = time.perf_counter() - start
    peak = matmul_peak(args.device, dtype)
    flops = masked_flops(rows, scorer.model.config)
    diff = max(abs(got[o] - want[o]) for o in want)
    same_classes = sum(klass(got[o]) == klass(want[o]) for o in want)
    n_sentences, batches = len(plan.cells), answers.work.get("batches", 0)
    print(f"\n[{dtype}] {len(got)} occupations, {n_sentences} sentences, {len(plan.probes)} masked contexts; "
          f"batch size {scorer.describe()['batch_size']}, max {scorer.max_batch_tokens} tokens")
    print(f"  forward passes: ours {len(rows)} rows in {batches} batches = {len(rows) / n_sentences:.3f} per "
          f"sentence; reference {ref_passes} (one per sentence and spelling variant)")
    print(f"  ours:      {t_ours:8.3f} s ({n_sentences / t_ours:9.1f} sentences/s, best of "
          f"{[round(t, 3) for t in times]})")
    print(f"  reference: {t_ref:8.3f} s ({n_sentences / t_ref:9.1f} sentences/s)")
    print(f"  speed-up:  {t_ref / t_ours:8.1f}x (measured in this run)")
    print(f"  same shares: max |difference| {diff:.2e} percentage points; same classes: {same_classes}/{len(want)}")
    print(f"  useful FLOP/s: {flops / t_ours / 1e12:.3f} TFLOP/s of a {peak / 1e12:.2f} TFLOP/s {dtype} matmul "
          f"peak ({flops / t_ours / peak:.1%})")
    return {"dtype": dtype, "seconds": t_ours, "speedup": t_ref / t_ours, "fraction": flops / t_ours / peak}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--country", default="us", choices=("us", "fr", "no"))
    parser.add_argument("--sample", type=int, default=10, help="occupations drawn (0: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--batch-size", default=None, help="rows cap, or auto (default: 64 on CPU, auto on CUDA)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (1: steady on a shared machine)")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--dtype", default="float32", help="comma-separated: float32,bfloat16,float16")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--smoke", action="store_true", help="tiny model: checks the script runs")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    args.batch_size = args.batch_size or ("auto" if torch.device(args.device).type == "cuda" else 64)
    language, table = COUNTRY_LANGUAGE[args.country], load_census(args.country)
    plan = build_plan(language, table, sample=args.sample or None, seed=args.seed)
    sentences = [c.text for c in build_plan(language, table).cells]  # tokenizer corpus
    print(machine_line(args.device))
    with tempfile.TemporaryDirectory() as tmp:
        build_bert_base(Path(tmp), sentences, smoke=args.smoke)
        results = [bench_dtype(tmp, plan, dtype, args) for dtype in args.dtype.split(",")]
    print("\nsummary: " + "; ".join(f"{r['dtype']} {r['seconds']:.2f} s, {r['speedup']:.1f}x reference, "
                                    f"{r['fraction']:.1%} of peak" for r in results))


if __name__ == "__main__":
    main()
