"""Generated answers in process and served agree (issue 38): the same prompts, greedy, on the packaged SmolLM2.

Starts vLLM the way the tests do (tests/vllm_server.py: ``.venvs/vllm``, float32, ``--enforce-eager``, on
127.0.0.1 with a key), asks generative BBQ's prompts of a seeded sample of BBQ en (``--sample``, seed
``--seed``) through ``/v1/completions`` and in process (``transformers.generate``), and prints per
prompt whether the texts are equal; where they differ, the first token where the two continuations
part, and the in-process model's log-probabilities of both tokens at that step (a near tie that
float arithmetic on two engines may break either way), with each engine's seconds.

    PYTHONPATH=src BIASATLAS_DATA_DIR=... python bench/parity/generation_vs_served.py [--sample 30] [--seed 38]
"""

from __future__ import annotations

import argparse
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from biasatlas.benchmarks.bbq import BBQ
from biasatlas.probes import GenerationProbe
from biasatlas.scorers.inprocess.causal_lm import CausalLMScorer
from biasatlas.scorers.inprocess.packaged import resolve_packaged_model
from biasatlas.scorers.served.completions import ServedScorer

ROOT = Path(__file__).resolve().parents[2]
VLLM = ROOT / ".venvs" / "vllm" / "bin" / "python"


def start(folder: Path, log: Path) -> tuple[subprocess.Popen[bytes], str, str]:
    import httpx

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    key = "sk-vllm-" + secrets.token_hex(12)
    env = {**os.environ, "VLLM_HOST_IP": "127.0.0.1", "VLLM_CPU_KVCACHE_SPACE": "1", "VLLM_API_KEY": key,
           "HF_HUB_OFFLINE": "1", "VLLM_NO_USAGE_STATS": "1", "DO_NOT_TRACK": "1"}
    env.pop("PYTHONPATH", None)
    proc = subprocess.Popen([str(VLLM), "-m", "vllm.entrypoints.openai.api_server", "--model", str(folder),
                             "--served-model-name", "smollm2", "--host", "127.0.0.1", "--port", str(port),
                             "--dtype", "float32", "--enforce-eager", "--max-model-len", "2048",
                             "--disable-log-stats"], env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT,
                            start_new_session=True)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 900
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit(f"vLLM exited while starting:\n{log.read_text(errors='replace')[-3000:]}")
        try:
            if httpx.get(f"{url}/models", headers={"Authorization": f"Bearer {key}"}, timeout=5).status_code == 200:
                return proc, url, key
        except httpx.TransportError:
            pass
        time.sleep(2)
    os.killpg(proc.pid, signal.SIGKILL)
    sys.exit("vLLM did not start within 900 s")


def parting(local: CausalLMScorer, prompt: str, a: str, b: str) -> str:
    """Where texts ``a`` (in process) and ``b`` (served) part: the first differing token of their
    continuations, and the in-process log-probabilities of both tokens at that step."""
    import torch

    tok = local.tokenizer
    ta, tb = tok(prompt + a)["input_ids"], tok(prompt + b)["input_ids"]
    k = next((i for i, (x, y) in enumerate(zip(ta, tb)) if x != y), min(len(ta), len(tb)))
    if k >= min(len(ta), len(tb)):
        return f"one text is a prefix of the other (tokens to {k}; a stop or length difference)"
    with torch.inference_mode():
        logits = local.model(input_ids=torch.tensor([ta[:k]])).logits[0, -1]
    logp = torch.log_softmax(logits.float(), dim=-1)
    return (f"token {k}: in process {tok.decode([ta[k]])!r} ({float(logp[ta[k]]):.5f}), served "
            f"{tok.decode([tb[k]])!r} ({float(logp[tb[k]]):.5f}), margin {float(logp[ta[k]] - logp[tb[k]]):.2e}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sample", type=int, default=30)
    parser.add_argument("--seed", type=int, default=38)
    parser.add_argument("--max-new-tokens", type=int, default=32)
    args = parser.parse_args()
    bench = BBQ(sample=args.sample, seed=args.seed, answers="generated", max_new_tokens=args.max_new_tokens)
    probes: list[Any] = [p for p in bench.probes(bench.load()) if isinstance(p, GenerationProbe)]
    folder = resolve_packaged_model("smollm2-135m")
    local = CausalLMScorer(str(folder))
    t0 = time.perf_counter()
    mine = local.score(probes)
    t_local = time.perf_counter() - t0
    log = Path(tempfile.mkdtemp()) / "vllm.log"
    proc, url, key = start(folder, log)
    try:
        os.environ["BENCH_VLLM_KEY"] = key
        served = ServedScorer(url, served_model="smollm2", served_prefix="<|im_start|>", api_key_env="BENCH_VLLM_KEY",
                              batch_size=8)
        t0 = time.perf_counter()
        theirs = served.score(probes)
        t_served = time.perf_counter() - t0
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=60)
    same = 0
    print("| probe | equal | where they part |")
    print("|---|---|---|")
    for p in probes:
        a, b = mine[p.id].text, theirs[p.id].text  # type: ignore[union-attr]
        same += a == b
        print(f"| {p.id} | {'yes' if a == b else 'NO'} | {'' if a == b else parting(local, p.prompt, a, b)} |")
    print(f"\n{same}/{len(probes)} generated texts equal (BBQ en, sample {args.sample}, seed {args.seed}, "
          f"max {args.max_new_tokens} new tokens, stop '\\n\\n'); in process {t_local:.1f} s, served {t_served:.1f} s "
          f"(vLLM {served.facts.version}, float32, on the same CPU).")


if __name__ == "__main__":
    main()
