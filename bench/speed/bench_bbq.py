"""Speed of BBQ's option scoring against a one-option-per-forward reference (issue 24).

Prints options/s for ours (``CausalLMScorer.score`` on the probes the benchmark asks: each
option as a continuation of the example's prompt, the options of an example sharing that
prompt through the scorer's prefix sharing, :mod:`biasatlas.scorers.prefix`) and for the
straightforward reference (one option per forward pass, batch size 1, as lm-evaluation-harness
computes ``loglikelihood``: the start token, the prompt and the option, full log-softmax, the
option's tokens summed), their ratio, and the largest per-option log-likelihood difference.

    python bench/speed/bench_bbq.py [--model smollm2-135m] [--examples 24] [--seed 0] [--options 3|lm-eval]
        [--threads N] [--data ../shared/data/bbq] [--smoke]

The examples are a seeded sample of all of BBQ (``--sample`` of the benchmark). ``--options
lm-eval`` scores lm-eval's 12 options per example. ``--smoke`` takes 2 examples: a check that
the script runs, not a measurement. Needs torch and transformers (run from the repository root
with ``PYTHONPATH=src``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch

from biasatlas.benchmarks.bbq import BBQ
from biasatlas.benchmarks.bbq.benchmark import choices, prompt
from biasatlas.benchmarks.bbq.data import Example
from biasatlas.probes import ContinuationProbe
from biasatlas.registry import load_scorer

ROOT = Path(__file__).resolve().parents[2]


def reference(model, tokenizer, start: int, examples: list[Example], form: str) -> dict[str, tuple[float, int]]:
    """Probe id → (sum of the option's log-probabilities, its tokens): one option per forward pass,
    the option's tokens being those after the prompt's own (lm-eval's context/continuation split)."""
    scores = {}
    with torch.inference_mode():
        for e in examples:
            asked = prompt(e.context, e.question)
            first = 1 + len(tokenizer(asked, add_special_tokens=False)["input_ids"])
            for k, (text, _) in enumerate(choices(e, form)):
                ids = [start, *tokenizer(f"{asked} {text}", add_special_tokens=False)["input_ids"]]
                logp = torch.log_softmax(model(torch.tensor([ids])).logits[0].float(), dim=-1)
                scores[f"{e.id}#{k}"] = (sum(float(logp[i - 1, ids[i]]) for i in range(first, len(ids))),
                                         len(ids) - first)
    return scores


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="smollm2-135m")
    parser.add_argument("--examples", type=int, default=24)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--options", choices=("3", "lm-eval"), default="3")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "bbq")
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    bench = BBQ(data=args.data, sample=2 if args.smoke else args.examples, seed=args.seed, options=args.options)
    examples = [e for e in bench.load() if e.target is not None]
    asked = [p for p in bench.probes(examples) if isinstance(p, ContinuationProbe)]
    scorer = load_scorer(args.model, "causal-lm")
    scorer.score(asked[:3])  # warm-up, for both sides: one-time costs (kernels, batch probing) are not timed
    reference(scorer.model, scorer.tokenizer, scorer.prefix_id, examples[:1], args.options)
    began = time.perf_counter()
    ours = scorer.score(asked)
    ours_s = time.perf_counter() - began
    began = time.perf_counter()
    theirs = reference(scorer.model, scorer.tokenizer, scorer.prefix_id, examples, args.options)
    theirs_s = time.perf_counter() - began
    worst = 0.0
    for p in asked:
        answer = ours[p.id]
        ref_logprob, ref_tokens = theirs[p.id]
        if answer.n_tokens[0] != ref_tokens:
            sys.exit(f"{p.id}: {answer.n_tokens[0]} tokens here, {ref_tokens} in the reference")
        worst = max(worst, abs(answer.logprobs[0] - ref_logprob))
    n = len(asked)
    print(f"model {args.model}, {len(examples)} examples, {n} options ({args.options}-option form), "
          f"threads {torch.get_num_threads()}")
    print(f"ours      {n / ours_s:8.2f} options/s ({ours_s:.1f} s)")
    print(f"reference {n / theirs_s:8.2f} options/s ({theirs_s:.1f} s)")
    print(f"ratio     {theirs_s / ours_s:8.2f}x; largest |Δ option log-likelihood| {worst:.2e}")


if __name__ == "__main__":
    main()
