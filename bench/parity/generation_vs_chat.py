"""Generated answers through /v1/chat/completions, /v1/completions and in process agree (issue 38).

On the packaged SmolLM2 served by vLLM (started as tests/vllm_server.py starts it, or ``--url`` for one
already running, its key in ``BENCH_VLLM_KEY``), generative BBQ's prompts of a seeded sample of BBQ en
(``--sample``, seed ``--seed``) under ``--chat-template model`` are answered three ways: through the chat
endpoint (``--served-api chat``: the user turn sent, the server renders its template), through
``/v1/completions`` with the template rendered by biasatlas, and in process (``transformers.generate`` on
the same rendering). Printed: per prompt whether the three texts are equal, and where two differ the first
token where they part (generation_vs_served.parting); then BBQ's generative scores of the same items
through the chat path and the completions path side by side.

    PYTHONPATH=src BIASATLAS_DATA_DIR=... python bench/parity/generation_vs_chat.py [--sample 30] [--seed 38]
        [--url URL]
"""

from __future__ import annotations

import argparse
import os
import signal
import tempfile
import time
from pathlib import Path
from typing import Any

from generation_vs_served import parting, start  # the same vLLM start-up and parting token

from biasatlas.benchmarks.bbq import BBQ
from biasatlas.scorers.inprocess.causal_lm import CausalLMScorer
from biasatlas.scorers.inprocess.packaged import resolve_packaged_model
from biasatlas.scorers.served.completions import ServedScorer
from biasatlas.scorers.served.chat_api import ServedChatScorer

HEADLINE = ("accuracy_amb", "accuracy_dis", "bias_amb", "bias_dis", "abstain_amb", "n")


def timed(scorer: Any, probes: list[Any]) -> tuple[dict[str, Any], float]:
    t0 = time.perf_counter()
    scored = scorer.score(probes)
    return dict(scored), time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sample", type=int, default=30)
    parser.add_argument("--seed", type=int, default=38)
    parser.add_argument("--max-new-tokens", type=int, default=32)
    parser.add_argument("--url", help="a vLLM serving the packaged SmolLM2 as 'smollm2' (key in BENCH_VLLM_KEY)")
    args = parser.parse_args()
    folder = resolve_packaged_model("smollm2-135m")
    proc = None
    if args.url is None:
        proc, url, key = start(folder, Path(tempfile.mkdtemp()) / "vllm.log")
        os.environ["BENCH_VLLM_KEY"] = key
    else:
        url = args.url
    try:
        chat = ServedChatScorer(url, served_model="smollm2", api_key_env="BENCH_VLLM_KEY")
        completions = ServedScorer(url, served_model="smollm2", api_key_env="BENCH_VLLM_KEY",
                                   start_token="empty-context", batch_size=8)
        local = CausalLMScorer(str(folder), start_token="empty-context")
        bench = BBQ(sample=args.sample, seed=args.seed, answers="generated", chat_template="model",
                    max_new_tokens=args.max_new_tokens)
        items = bench.load()
        asked = {name: bench.bind(s.info) for name, s in (("chat", chat), ("completions", completions),
                                                          ("local", local))}
        probes = {name: b.probes(items) for name, b in asked.items()}
        rendered = {p.id: p.prompt for p in probes["completions"]}
        assert rendered == {p.id: p.prompt for p in probes["local"]}, "the rendering differs by scorer"
        texts, seconds = {}, {}
        texts["chat"], seconds["chat"] = timed(chat, probes["chat"])
        texts["completions"], seconds["completions"] = timed(completions, probes["completions"])
        texts["local"], seconds["local"] = timed(local, probes["local"])
    finally:
        if proc is not None:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=60)
    print(f"vLLM {chat.facts.version}, root {chat.facts.root}; the server's template checked against ours: "
          f"{chat.chat_check}\n")
    print("| probe | chat = completions | completions = in process | where they part |")
    print("|---|---|---|---|")
    equal = {"cc": 0, "cl": 0}
    for p in probes["chat"]:
        a, b, c = (texts[k][p.id].text for k in ("chat", "completions", "local"))
        equal["cc"] += a == b
        equal["cl"] += b == c
        where = "" if a == b else "chat vs completions: " + parting(local, rendered[p.id], b, a)
        if b != c:
            where += ("; " if where else "") + "in process vs completions: " + parting(local, rendered[p.id], c, b)
        print(f"| {p.id} | {'yes' if a == b else 'NO'} | {'yes' if b == c else 'NO'} | {where} |")
    n = len(probes["chat"])
    alike = sum((texts["chat"][p.id].finish, texts["chat"][p.id].n_tokens)
                == (texts["completions"][p.id].finish, texts["completions"][p.id].n_tokens) for p in probes["chat"])
    print(f"\nwhy generation ended and the generated token count, chat = completions: {alike}/{len(probes['chat'])}")
    print(f"\n{equal['cc']}/{n} chat = completions, {equal['cl']}/{n} completions = in process (BBQ en, sample "
          f"{args.sample}, seed {args.seed}, max {args.max_new_tokens} new tokens, stop '\\n\\n', --chat-template "
          f"model); seconds: chat {seconds['chat']:.1f}, completions {seconds['completions']:.1f}, in process "
          f"{seconds['local']:.1f}.\n")
    print("| path | " + " | ".join(HEADLINE) + " | bias_amb 95% CI | bias_dis 95% CI | unparsed |")
    print("|---|" + "---|" * (len(HEADLINE) + 3))
    for name in ("chat", "completions", "local"):
        s = asked[name].score(items, texts[name]).summary
        overall = s.overall  # type: ignore[attr-defined]
        values = [getattr(overall, k) for k in HEADLINE]
        cells = " | ".join("–" if v is None else f"{v:.1f}" for v in values)
        cis = " | ".join(_interval(overall.interval(k)) for k in ("bias_amb", "bias_dis"))
        print(f"| {name} | {cells} | {cis} | {s.unparsed} |")  # type: ignore[attr-defined]


def _interval(bounds: tuple[float | None, float | None]) -> str:
    low, high = bounds
    return "–" if low is None or high is None else f"[{low:.1f}, {high:.1f}]"


if __name__ == "__main__":
    main()
