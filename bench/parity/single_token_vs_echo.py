"""Served DiscrimEval read two ways, in one run: every answer form echoed whole (``--single-token
echo``, the reading before issue 36's follow-up) and one prompt per decision through vLLM's
``logprob_token_ids`` (``auto``; src/biasatlas/scorers/served/tokens.py).

For each chat template (plain, the model's), the same probes (``--scenarios``, seed 0) are scored by both
readings against the same server, in turn, and the script prints per reading: the ``/v1/completions``
requests and prompts sent while scoring (start-up checks not counted), the scoring seconds, and the largest
difference between the two readings' log-probabilities (nats). The load average is printed before and
after: the machine may be shared.

    PYTHONPATH=src BIASATLAS_DATA_DIR=... python bench/parity/single_token_vs_echo.py --url http://127.0.0.1:8000/v1
        [--scenarios 2] [--templates none,model] [--concurrency 4] [--batch-size 64]

Start the server first on the packaged SmolLM2 folder (docs/serving.md), so that its folder is readable here:
the one-token check reads the served folder's tokenizer.
"""

from __future__ import annotations

import argparse
import os
import time
from collections import Counter
from typing import Any

from biasatlas.registry import load_benchmark, load_scorer


def counted(served: Any) -> Counter[str]:
    """Count ``served``'s completion requests and prompts from now on, by reading (echo or by id)."""
    seen: Counter[str] = Counter()
    post = served.client.post

    def counting(path: str, body: Any) -> Any:
        if path == "completions":
            kind = "by id" if body.get("logprob_token_ids") else "echo"
            seen[f"{kind} requests"] += 1
            seen[f"{kind} prompts"] += len(body["prompt"])
        return post(path, body)

    served.client.post = counting
    return seen


def run(args: Any, template: str, reading: str) -> tuple[Any, Counter[str], float, str]:
    served = load_scorer(args.url, "served", start_token="empty-context", single_token=reading,
                         concurrency=args.concurrency, batch_size=args.batch_size)
    bench = load_benchmark("discrim-eval", scenarios=args.scenarios, seed=0, chat_template=template)
    probes = bench.bind(served.info).probes(bench.load())
    seen = counted(served)
    started = time.perf_counter()
    scored = served.score(probes)
    return scored, seen, time.perf_counter() - started, served.single_token


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000/v1")
    parser.add_argument("--scenarios", type=int, default=2)
    parser.add_argument("--templates", default="none,model")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=64)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}; discrim-eval --scenarios {args.scenarios} --seed 0")
    print("| template | reading | probes | requests | prompts | seconds | max abs Δ vs echo (nats) |")
    print("|---|---|---|---|---|---|---|")
    for template in args.templates.split(","):
        echo, echo_seen, echo_s, _ = run(args, template, "echo")
        by_id, id_seen, id_s, used = run(args, template, "auto")
        worst = max(abs(a - b) for pid in echo for a, b in zip(echo[pid].logprobs, by_id[pid].logprobs))
        for label, seen, seconds, delta in (("echo", echo_seen, echo_s, "0"), (used, id_seen, id_s, f"{worst:.1e}")):
            print(f"| {template} | {label} | {len(echo)} | {sum(v for k, v in seen.items() if 'requests' in k)} | "
                  f"{sum(v for k, v in seen.items() if 'prompts' in k)} | {seconds:.0f} | {delta} |", flush=True)
        print(f"| {template} | speed-up | | | | {echo_s / id_s:.2f}× | |", flush=True)
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
