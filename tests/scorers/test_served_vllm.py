"""The served scorer against a real vLLM (tests/vllm_server.py, slow): the same answers as the
in-process causal scorer on the same model folder, a SIGKILLed run resumed byte-identically,
another model behind the same name never answered from the cache, and the API key nowhere in
what a run writes."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from vllm_server import NAME, PREFIX, vllm_server  # noqa: F401 (the fixture)

pytestmark = pytest.mark.slow
FILES = ("config.json", "items.jsonl", "summary.json", "skipped.jsonl")


@pytest.fixture(scope="module")
def in_process():
    """The in-process causal scorer on the same folder, one per start-token convention (built once)."""
    pytest.importorskip("torch", reason="the in-process reference needs the torch extra")
    from biasatlas.scorers.inprocess.causal_lm import CausalLMScorer

    built: dict[str, CausalLMScorer] = {}

    def get(start_token: str = "always") -> CausalLMScorer:
        if start_token not in built:
            built[start_token] = CausalLMScorer("smollm2-135m", start_token=start_token)
        return built[start_token]

    return get


def _served(server, **options):
    from biasatlas.scorers.served.completions import ServedScorer

    os.environ["BIASATLAS_TEST_VLLM_KEY"] = server.key
    return ServedScorer(server.url, served_prefix=PREFIX, api_key_env="BIASATLAS_TEST_VLLM_KEY", **options)


@pytest.mark.parametrize(("benchmark", "options", "start_token"), [
    ("crows-pairs", {"dataset": "en", "sample": 16}, None),
    ("bbq", {"sample": 12}, None),
    ("stereoset", {"sample": 4}, None),
    ("bbq", {"sample": 4}, "always"),
])
def test_served_answers_equal_in_process_ones(vllm_server, in_process, shared_data, monkeypatch,  # noqa: F811
                                              benchmark, options, start_token):
    """Per probe, |Δ log-likelihood| ≤ 1e-3 nats (the issue's bound; measured: ~1e-4) and the
    same token counts, on items sampled from the shared data, each benchmark read under its own
    start-token convention (CrowS-Pairs and BBQ empty-context, StereoSet first-only: both tasks)
    as a run would read it (``ModelOptions.for_benchmark``), or under the one named."""
    from biasatlas.registry import load_benchmark
    from biasatlas.request import ModelOptions

    monkeypatch.setenv("BIASATLAS_DATA_DIR", str(shared_data))
    bench = load_benchmark(benchmark, **options)
    start = ModelOptions(model=vllm_server.url, start_token=start_token).for_benchmark(bench).start_token
    defaults = {"crows-pairs": "empty-context", "bbq": "empty-context", "stereoset": "first-only"}
    assert start == (start_token or defaults[benchmark])
    served = _served(vllm_server, start_token=start)
    bench = bench.bind(served.info)
    probes = bench.probes(bench.load())
    ours, theirs = served.score(probes), in_process(start).score(probes)
    assert set(ours) == set(theirs) and len(ours) == len(probes)
    worst = 0.0
    for pid, answer in ours.items():
        reference = theirs[pid]
        got, want = _numbers(answer), _numbers(reference)
        assert len(got) == len(want)
        worst = max(worst, max(abs(a - b) for a, b in zip(got, want)))
        assert max(abs(a - b) for a, b in zip(got, want)) <= 1e-3, pid
        assert _counts(answer) == _counts(reference), pid
    print(f"\n{benchmark} ({start}): {len(probes)} probes, max |delta| served vs in-process {worst:.2g} nats")


def _numbers(answer) -> list[float]:
    if hasattr(answer, "score_a"):
        return [answer.score_a, answer.score_b]
    if hasattr(answer, "logprobs"):
        return list(answer.logprobs)
    return [answer.logprob]


def _counts(answer) -> tuple:
    if hasattr(answer, "n_tokens_a"):
        return (answer.n_tokens_a, answer.n_tokens_b)
    return tuple(answer.n_tokens) if isinstance(answer.n_tokens, tuple) else (answer.n_tokens,)


def _command(server, out: Path) -> list[str]:
    return [sys.executable, "-m", "biasatlas", "run", "crows-pairs", "--dataset", "en", "--limit", "240",
            "--model", server.url, "--served-prefix", PREFIX, "--api-key-env", "BIASATLAS_TEST_VLLM_KEY",
            "--batch-size", "16", "--concurrency", "2", "--out", str(out)]


def _env(server, shared_data: Path, cache: Path) -> dict[str, str]:
    return {**os.environ, "BIASATLAS_DATA_DIR": str(shared_data), "BIASATLAS_CACHE_DIR": str(cache),
            "BIASATLAS_TEST_VLLM_KEY": server.key}


def _cached(cache: Path) -> int:
    from biasatlas.cache import TABLE

    db = cache / "scores.sqlite"
    if not db.exists():
        return 0
    try:
        return int(sqlite3.connect(db, timeout=30).execute(f"SELECT COUNT(*) FROM {TABLE}").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


def test_sigkill_then_resume_writes_the_same_run_folder_and_no_key(vllm_server, shared_data,  # noqa: F811
                                                                   tmp_path):
    clean, out = tmp_path / "clean", tmp_path / "out"
    done = subprocess.run(_command(vllm_server, clean), env=_env(vllm_server, shared_data, tmp_path / "c1"),
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    env = _env(vllm_server, shared_data, tmp_path / "c2")
    proc = subprocess.Popen(_command(vllm_server, out), env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.time() + 600
    while _cached(tmp_path / "c2") == 0 and proc.poll() is None and time.time() < deadline:
        time.sleep(0.02)
    assert proc.poll() is None, "the run finished before it could be killed"
    proc.send_signal(signal.SIGKILL)
    said, _ = proc.communicate()
    at_kill = _cached(tmp_path / "c2")
    assert 0 < at_kill < 240
    resumed = subprocess.run(_command(vllm_server, out), env=env, capture_output=True, text=True, timeout=900)
    assert resumed.returncode == 0, resumed.stderr
    timing = json.loads((out / "timing.json").read_text())
    assert timing["cache_hits"] >= at_kill and timing["scored"] > 0
    for name in FILES:
        assert (out / name).read_bytes() == (clean / name).read_bytes(), name
    # the key: in no file of the run folders and caches, in nothing the runs printed
    key = vllm_server.key.encode()
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert written and not [p for p in written if key in p.read_bytes()]
    for text in (done.stdout, done.stderr, said, resumed.stdout, resumed.stderr):
        assert vllm_server.key not in (text if isinstance(text, str) else text.decode(errors="replace"))


def test_another_model_behind_the_same_name_is_refused_by_its_fingerprint(vllm_server):  # noqa: F811
    """The server and its model stay; what reaches the scorer is changed in flight: every
    log-probability shifted by 0.01 nats, as a retrained model behind the same name would."""
    import httpx

    from biasatlas.probes import SentenceProbe
    from biasatlas.scorers.served.http import ServerError

    served = _served(vllm_server)
    served.score([SentenceProbe("s", "The nurse said that she was tired.")])
    real = httpx.HTTPTransport()

    def shifted(request: httpx.Request) -> httpx.Response:
        response = real.handle_request(request)
        body = json.loads(response.read())
        for choice in body.get("choices", []):
            lp = choice["logprobs"]["token_logprobs"]
            choice["logprobs"]["token_logprobs"] = [v if v is None else v - 0.01 for v in lp]
        return httpx.Response(response.status_code, json=body)

    served.client._http._transport = httpx.MockTransport(shifted)
    with pytest.raises(ServerError, match=f"model behind .*{NAME}.* changed during the run"):
        served.score([SentenceProbe("t", "The doctor said that he was tired.")])
