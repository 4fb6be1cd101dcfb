#!/usr/bin/env bash
# The whole GPU check in one script: every engine benchmark on CUDA, each printing a speed
# ratio measured in its own run and the fraction of the matmul peak measured in the same
# run, in the dtype in use. Sized to finish in under 5 minutes on one H200:
#
#   1. CrowS-Pairs, all 1,508 English pairs (41,172 masked copies), BERT-base-sized random
#      masked LM, bfloat16 and float32, --batch-size auto; reference: one mask per forward
#      on the first 100 pairs (bench_crows.py);
#   2. census US (masked LM reading), 30 sampled occupations, same model shape, bfloat16
#      and float32; reference: one forward per sentence (bench_census.py);
#   3. Gemma-3-270M-shaped random causal LM: census US, every sentence (48,984, the
#      conditional reading), and all 1,508 CrowS-Pairs pairs, bfloat16 and float32;
#      reference: one sentence per forward on 300 sentences (bench_causal_gemma_shape.py).
#
#   bash bench/gpu.sh            # on the GPU machine, from anywhere
#   bash bench/gpu.sh --smoke    # tiny models and sizes on the CPU: checks the script runs
#
# Needs python with torch and transformers only (PYTHON overrides the interpreter,
# e.g. PYTHON="python3 -S"); biasatlas is imported from src/. The CrowS-Pairs CSV is
# read from $BIASATLAS_DATA, <repo>/shared/data or <repo>/../shared/data.
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH="src${PYTHONPATH:+:$PYTHONPATH}"
read -ra PY <<< "${PYTHON:-python3}"

if [ "${1:-}" = "--smoke" ]; then
    DEVICE=cpu
    CROWS=(--smoke --pairs 12 --reference-pairs 3 --repeats 1 --threads 1)
    CENSUS=(--smoke --sample 1 --threads 1)
    CAUSAL=(--smoke --n 60 --pairs 10 --reference-rows 8 --repeats 1 --threads 1)
else
    DEVICE=cuda
    CROWS=(--pairs 0 --reference-pairs 100 --repeats 3 --batch-size auto)
    CENSUS=(--sample 30 --batch-size auto)
    CAUSAL=(--n 0 --pairs 0 --reference-rows 300 --repeats 2 --batch-size auto)
fi

started=$(date +%s)
"${PY[@]}" -c 'import sys, torch, transformers
print("python", sys.version.split()[0], "torch", torch.__version__, "transformers", transformers.__version__,
      "cuda", torch.version.cuda, torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no GPU")'

echo; echo "== 1. CrowS-Pairs (masked LM, BERT-base-sized, bfloat16 and float32)"
"${PY[@]}" bench/bench_crows.py --device "$DEVICE" --dtype bfloat16,float32 "${CROWS[@]}"

echo; echo "== 2. census US (masked LM, BERT-base-sized, bfloat16 and float32)"
"${PY[@]}" bench/bench_census.py --device "$DEVICE" --country us --dtype bfloat16,float32 "${CENSUS[@]}"

echo; echo "== 3. Gemma-3-270M-shaped causal LM: census US and CrowS-Pairs (bfloat16 and float32)"
"${PY[@]}" bench/bench_causal_gemma_shape.py --device "$DEVICE" --dtype bfloat16,float32 "${CAUSAL[@]}"

echo; echo "gpu.sh: all benchmarks done in $(( $(date +%s) - started )) s"
