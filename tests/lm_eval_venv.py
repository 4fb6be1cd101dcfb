"""lm-evaluation-harness 0.4.13, the reference the causal readings are checked against, run in its
own virtualenv (``<repo>/.venvs/lm-eval``, made by ``scripts/setup.sh --test``): a subprocess, so
its pins never meet ours.

Outside CI a machine without that virtualenv skips these tests, saying why; under CI
(``CI=true``) a missing virtualenv fails them, so the comparison cannot silently stop running.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
LM_EVAL_PYTHON = REPO / ".venvs" / "lm-eval" / "bin" / "python"
LM_EVAL_VERSION = "0.4.13"


def lm_eval_python() -> Path:
    """The virtualenv's python, once it imports lm_eval at the version the tests pin."""
    problem = None
    if not LM_EVAL_PYTHON.exists():
        problem = f"no lm-evaluation-harness virtualenv at {LM_EVAL_PYTHON}"
    else:
        version = "import importlib.metadata as m; print(m.version('lm_eval'))"
        found = subprocess.run([str(LM_EVAL_PYTHON), "-c", version], capture_output=True, text=True)
        if found.returncode or found.stdout.strip() != LM_EVAL_VERSION:
            said = (found.stdout + found.stderr).strip()[-200:]
            problem = f"{LM_EVAL_PYTHON} has no lm_eval {LM_EVAL_VERSION} ({said})"
    if problem is None:
        return LM_EVAL_PYTHON
    message = f"{problem}: run `bash scripts/setup.sh --test`"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message)
    pytest.skip(message)


def run_in_lm_eval(script: str, payload: Any, *, timeout: float = 900) -> Any:
    """Run ``script`` (Python source) in the lm-eval virtualenv with ``payload`` as JSON on its
    standard input; it prints one JSON value last, which is returned."""
    done = subprocess.run([str(lm_eval_python()), "-c", script], input=json.dumps(payload), capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, "TOKENIZERS_PARALLELISM": "false",
                                                           "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})
    if done.returncode:
        raise AssertionError(f"lm-eval subprocess failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


#: HFLM's loglikelihood of each request, one at a time, in float32 on the CPU.
LM_EVAL_SCRIPT = """
import json, sys
from lm_eval.api.instance import Instance
from lm_eval.models.huggingface import HFLM
asked = json.load(sys.stdin)
lm = HFLM(pretrained=asked["model"], batch_size=1, device="cpu", dtype="float32")
requests = [Instance(request_type="loglikelihood", doc={}, arguments=(c, x), idx=i)
            for i, (c, x) in enumerate(asked["requests"])]
print(json.dumps([value for value, _ in lm.loglikelihood(requests, disable_tqdm=True)]))
"""


def lm_eval_loglikelihoods(model: Path | str, requests: list[tuple[str, str]]) -> list[float]:
    """HFLM's log-likelihood of each (context, continuation) of ``requests`` on ``model``."""
    return run_in_lm_eval(LM_EVAL_SCRIPT, {"model": str(model), "requests": requests})
