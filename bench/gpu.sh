#!/usr/bin/env bash
# The whole GPU check of issue 28 in one run (bench/speed/gpu_check.py, which says what each section
# measures and how long each should take on one H200): CrowS-Pairs EN on a BERT-base shape in
# bfloat16 and float32 (seconds, pairs/s, fraction of each dtype's measured matmul peak,
# outcome flips); census US and CrowS-Pairs on a Gemma-3-270M shape; StereoSet and BBQ (one line
# each: both have landed, the check has no section for them yet); every implemented benchmark's full data on a 7B-shaped Llama drawn in
# bfloat16 on the GPU; a torch.profiler profile of the slowest run; then every goal, met or not.
#
#   bash bench/gpu.sh                 # on the GPU machine, from anywhere (3½–4½ minutes estimated)
#   bash bench/gpu.sh --no-profile    # the same without the profile
#   bash bench/gpu.sh --smoke         # tiny models and sizes on the CPU: checks the whole script runs
#
# Needs python with torch and transformers only (PYTHON overrides the interpreter,
# e.g. PYTHON="python3 -S"); biasatlas is imported from src/. The shared data (CrowS-Pairs
# CSVs) is read from $BIASATLAS_DATA, <repo>/shared/data or <repo>/../shared/data.
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH="src${PYTHONPATH:+:$PYTHONPATH}"
read -ra PY <<< "${PYTHON:-python3}"
exec "${PY[@]}" bench/speed/gpu_check.py "$@"
