"""Speed of StereoSet's causal readings against a one-candidate-per-forward reference.

Prints sentences/s for ours (``CausalLMScorer.score`` on the probes the benchmark asks:
intrasentence ``sentence`` fields and intersentence P(" " + candidate | context), the three
candidates of an example sharing their context through the scorer's prefix sharing) and for
the straightforward reference (one candidate per forward pass, batch size 1, the start token
then the text, full log-softmax, the candidate's tokens summed), their ratio, and the largest
per-sentence difference of the mean token log-probability between the two.

    python bench/speed/bench_stereoset.py [--model smollm2-135m] [--examples 20] [--threads N]
        [--data ../shared/data/stereoset/dev.json] [--smoke]

``--examples`` is per task (the first N of each). ``--smoke`` takes 2 examples per task: a
check that the script runs, not a measurement. Needs torch and transformers (run from the
repository root with ``PYTHONPATH=src``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch

from biasatlas.benchmarks.stereoset.data import Example, read_split
from biasatlas.probes import ContinuationProbe, SentenceProbe
from biasatlas.registry import load_scorer

ROOT = Path(__file__).resolve().parents[2]


def probes(examples: list[Example]) -> list[SentenceProbe | ContinuationProbe]:
    """The causal probes, as the benchmark builds them (benchmarks/stereoset/benchmark.py)."""
    out: list[SentenceProbe | ContinuationProbe] = []
    for e in examples:
        for c in e.candidates:
            out.append(SentenceProbe(c.id, c.sentence) if e.task == "intrasentence"
                       else ContinuationProbe(c.id, (e.context,), " " + c.sentence))
    return out


def reference(model, tokenizer, start: int, examples: list[Example]) -> dict[str, tuple[float, int]]:
    """Sentence id → (sum of log-probabilities, tokens): one candidate per forward pass."""
    scores = {}
    with torch.inference_mode():
        for e in examples:
            prefix = [] if e.task == "intrasentence" else tokenizer(e.context, add_special_tokens=False)["input_ids"]
            for c in e.candidates:
                text = c.sentence if e.task == "intrasentence" else f"{e.context} {c.sentence}"
                ids = [start, *tokenizer(text, add_special_tokens=False)["input_ids"]]
                logp = torch.log_softmax(model(torch.tensor([ids])).logits[0].float(), dim=-1)
                first = 1 + len(prefix)  # the candidate's first token (the context's own tokens come first)
                scores[c.id] = (sum(float(logp[i - 1, ids[i]]) for i in range(first, len(ids))), len(ids) - first)
    return scores


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="smollm2-135m")
    parser.add_argument("--examples", type=int, default=20)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "stereoset" / "dev.json")
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    n = 2 if args.smoke else args.examples
    split = read_split(args.data)
    examples = [e for e in split if e.task == "intrasentence"][:n] + [e for e in split if e.task == "intersentence"][:n]
    scorer = load_scorer(args.model, "causal-lm")
    asked = probes(examples)
    scorer.score(asked[:3])  # warm-up, for both sides: one-time costs (kernels, batch probing) are not timed
    reference(scorer.model, scorer.tokenizer, scorer.prefix_id, examples[:1])
    began = time.perf_counter()
    ours = scorer.score(asked)
    ours_s = time.perf_counter() - began
    began = time.perf_counter()
    theirs = reference(scorer.model, scorer.tokenizer, scorer.prefix_id, examples)
    theirs_s = time.perf_counter() - began
    worst = 0.0
    for p in asked:
        answer = ours[p.id]
        logprob, tokens = (answer.logprob, answer.n_tokens) if isinstance(p, SentenceProbe) else (
            answer.logprobs[0], answer.n_tokens[0])
        ref_logprob, ref_tokens = theirs[p.id]
        if tokens != ref_tokens:
            sys.exit(f"{p.id}: {tokens} tokens here, {ref_tokens} in the reference")
        worst = max(worst, abs(logprob / tokens - ref_logprob / ref_tokens))
    sentences = len(asked)
    print(f"model {args.model}, {len(examples)} examples ({sentences} sentences), threads {torch.get_num_threads()}")
    print(f"ours      {sentences / ours_s:8.2f} sentences/s ({ours_s:.1f} s)")
    print(f"reference {sentences / theirs_s:8.2f} sentences/s ({theirs_s:.1f} s)")
    print(f"ratio     {theirs_s / ours_s:8.2f}x; largest |Δ mean token log-probability| {worst:.2e}")


if __name__ == "__main__":
    main()
