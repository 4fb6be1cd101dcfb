"""Served vs in-process parity and throughput, in one run (issue 36).

For each workload (the probes a benchmark asks of a seeded sample of its items), the same probes
are answered by the served scorer (the model behind an OpenAI-compatible server) and by the
in-process causal scorer on the same model folder, and the script prints, per workload:

- ``max |Δ|``: the largest difference between the two answers' log-likelihoods over every number
  of every probe (a pair's two sentences, each option of a continuation or slot), in nats;
- ``same choice``: the share of probes whose preferred option (a pair's higher sentence, the
  highest-scoring option of a continuation or slot) is the same in both;
- ``same counts``: the share whose token counts agree;
- probes per second of each, and served / in-process as a ratio (both measured here, in turn,
  on the same machine: a server on the same CPU competes with the in-process model for it).

    PYTHONPATH=src python bench/parity/served_vs_inprocess.py --url http://127.0.0.1:8000/v1
        [--served-prefix '<|im_start|>'] [--model smollm2-135m] [--sample 40] [--concurrency 4] [--batch-size 64]
        [--only crows-pairs-en,...] [--lm-eval-python .venvs/lm-eval/bin/python] [--readings echo,auto]

``--readings``: the served scorer's ``--single-token`` settings to measure, each a row per workload
(``echo``: every option echoed whole; ``auto``: an option of one token after its context read through
``logprob_token_ids`` where the server is trusted with it; src/biasatlas/scorers/served/tokens.py).

With ``--lm-eval-python``, lm-evaluation-harness's ``local-completions`` reads the same requests
from the same server (bench/parity/served_vs_lm_eval_peer.py, in that python): the largest difference
from the served scorer's numbers, its probes per second, and the served scorer's speed over it.

Start the server first, on the same model folder (docs/serving.md), e.g. for the packaged SmolLM2:
``python -m vllm.entrypoints.openai.api_server --model ~/.cache/biasatlas/models/smollm2-135m--0.1.2
--served-model-name smollm2 --dtype float32 --enforce-eager --host 127.0.0.1 --port 8000``.
Needs httpx, torch and transformers; the shared data (``BIASATLAS_DATA_DIR``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from biasatlas.probes import ContinuationProbe, PairProbe, SentenceProbe, SlotProbe
from biasatlas.registry import load_benchmark, load_scorer
from biasatlas.scorers.spans import split_continuation

HERE = Path(__file__).resolve().parent

WORKLOADS: dict[str, tuple[str, dict[str, Any]]] = {
    "crows-pairs-en": ("crows-pairs", {"dataset": "en"}),
    "bbq-3": ("bbq", {"options": "3"}),
    "bbq-lm-eval": ("bbq", {"options": "lm-eval"}),
    "stereoset-intra": ("stereoset", {"task": "intrasentence"}),
    "stereoset-inter": ("stereoset", {"task": "intersentence"}),
    "census-us-conditional": ("census", {"country": "us", "causal_reading": "conditional"}),
    "winogender": ("winogender", {}),
}


def numbers(answer: Any) -> list[float]:
    if hasattr(answer, "score_a"):
        return [answer.score_a, answer.score_b]
    if hasattr(answer, "logprobs"):
        return list(answer.logprobs)
    return [answer.logprob]


def counts(answer: Any) -> tuple[int, ...]:
    if hasattr(answer, "n_tokens_a"):
        return (answer.n_tokens_a, answer.n_tokens_b)
    return tuple(answer.n_tokens) if isinstance(answer.n_tokens, tuple) else (answer.n_tokens,)


def choice(answer: Any) -> int:
    """The preferred option: the index of the largest number (a lone sentence: 0)."""
    values = numbers(answer)
    return max(range(len(values)), key=values.__getitem__)


def timed(scorer: Any, probes: list[Any]) -> tuple[Any, float]:
    started = time.perf_counter()
    scored = scorer.score(probes)
    return scored, time.perf_counter() - started


def lm_eval_pairs(probes: list[Any], prefix: str) -> list[tuple[str, str]]:
    """The (context, continuation) requests lm-eval's ``loglikelihood`` reads for ``probes``, in
    the order of :func:`numbers`. An empty context gets lm-eval's own start token; a non-empty one
    gets none in lm-eval, so ours is written before it (biasatlas conditions every text on it)."""
    pairs: list[tuple[str, str]] = []
    for p in probes:
        if isinstance(p, PairProbe):
            pairs += [("", p.a), ("", p.b)]
        elif isinstance(p, SentenceProbe):
            pairs.append(("", p.text))
        elif isinstance(p, SlotProbe):
            pairs += [("", p.left + f + p.right) for f in p.fillers]
        elif isinstance(p, ContinuationProbe):
            for context, rest in (split_continuation(c, p.continuation) for c in p.contexts):
                pairs.append((prefix + context if context else "", rest))
    return pairs


def lm_eval(python: str, pairs: list[tuple[str, str]], args: Any) -> tuple[list[float], float]:
    """lm-eval's ``local-completions`` on ``pairs`` (bench/parity/served_vs_lm_eval_peer.py, run by ``python``)."""
    with tempfile.TemporaryDirectory() as folder:
        asked, answered = Path(folder) / "requests.json", Path(folder) / "values.json"
        asked.write_text(json.dumps(pairs), encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        if os.environ.get("LM_EVAL_PYTHONPATH"):
            env["PYTHONPATH"] = os.environ["LM_EVAL_PYTHONPATH"]
        subprocess.run([python, str(HERE / "served_vs_lm_eval_peer.py"), str(asked), str(answered),
                        "--url", args.url, "--model", args.lm_eval_model, "--tokenizer", args.tokenizer,
                        "--batch-size", str(args.batch_size), "--concurrent", str(args.concurrency)],
                       env=env, check=True, capture_output=True)
        got = json.loads(answered.read_text(encoding="utf-8"))
    return got["values"], got["seconds"]


def compare(label: str, served: Any, local: Any, sample: int, args: Any = None) -> str:
    name, options = WORKLOADS[label]
    bench = load_benchmark(name, sample=sample, seed=0, **options).bind(served.info)
    probes = bench.probes(bench.load())
    ours, t_served = timed(served, probes)
    theirs, t_local = timed(local, probes)
    shared = [pid for pid in ours if pid in theirs]
    delta = max((abs(a - b) for pid in shared for a, b in zip(numbers(ours[pid]), numbers(theirs[pid]))),
                default=float("nan"))
    same = sum(choice(ours[pid]) == choice(theirs[pid]) for pid in shared)
    same_counts = sum(counts(ours[pid]) == counts(theirs[pid]) for pid in shared)
    n = max(len(shared), 1)
    row = (f"| {label} ({served.single_token}) | {len(probes)} | {len(shared)} | {delta:.2e} | "
           f"{100 * same / n:.1f} % | "
           f"{100 * same_counts / n:.1f} % | {len(probes) / t_served:.1f} | {len(probes) / t_local:.1f} | "
           f"{t_local / t_served:.2f} |")
    if args is None or not args.lm_eval_python:
        return row
    answered = [p for p in probes if p.id in ours]
    values, t_peer = lm_eval(args.lm_eval_python, lm_eval_pairs(answered, served.prefix), args)
    mine = [v for p in answered for v in numbers(ours[p.id])]
    peer = max((abs(a - b) for a, b in zip(mine, values)), default=float("nan"))
    return row + f" {peer:.2e} | {len(probes) / t_peer:.1f} | {t_peer / t_served:.2f} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000/v1")
    parser.add_argument("--served-model", default=None)
    parser.add_argument("--served-prefix", default="<|im_start|>")
    parser.add_argument("--api-key-env", default=None)
    parser.add_argument("--model", default="smollm2-135m", help="the in-process model: the server's folder")
    parser.add_argument("--sample", type=int, default=40)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--only", default=",".join(WORKLOADS))
    parser.add_argument("--lm-eval-python", default=None, help="a python with lm-eval[api]: compare its "
                        "local-completions on the same server (LM_EVAL_PYTHONPATH: its PYTHONPATH)")
    parser.add_argument("--lm-eval-model", default="smollm2", help="the served model's id, for lm-eval")
    parser.add_argument("--tokenizer", default=None, help="the model folder, for lm-eval's tokenizer")
    parser.add_argument("--readings", default="auto", help="--single-token settings to measure, in turn")
    args = parser.parse_args()
    readings = [load_scorer(args.url, "served", served_model=args.served_model, served_prefix=args.served_prefix,
                            api_key_env=args.api_key_env, concurrency=args.concurrency, batch_size=args.batch_size,
                            single_token=reading) for reading in args.readings.split(",")]
    served = readings[0]
    local = load_scorer(args.model, "causal-lm")
    if args.lm_eval_python and args.tokenizer is None:
        args.tokenizer = str(local.resolved.location)
    print(f"served: {served.where}, {served.facts.version or '?'}; in-process: {args.model}; "
          f"sample {args.sample} items, seed 0; load average {os.getloadavg()[0]:.1f}")
    peer = " lm-eval max abs Δ vs served | lm-eval probes/s | served speed / lm-eval |" if args.lm_eval_python else ""
    print("| workload | probes | compared | max abs Δ (nats) | same choice | same counts | served probes/s "
          "| in-process probes/s | served / in-process |" + peer)
    print("|---|---|---|---|---|---|---|---|---|" + "---|" * (3 if args.lm_eval_python else 0))
    for label in args.only.split(","):
        for each in readings:
            print(compare(label.strip(), each, local, args.sample, args), flush=True)
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
