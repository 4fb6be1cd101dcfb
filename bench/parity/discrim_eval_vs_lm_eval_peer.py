"""Run lm-evaluation-harness 0.4.13's ``discrim_eval_explicit`` on a seeded subset of DiscrimEval scenarios
(issue 38, parity): the side of the comparison that ``bench/parity/discrim_eval_vs_lm_eval.py`` reads.

The task is lm-eval's own yaml, included unchanged (its prompt, gen_prefix, choices, ``process_results`` and
mixed-effects aggregation), with only the dataset pointed at a local JSON Lines file: every row of
``--scenarios`` decision scenarios drawn from the shared ``explicit.jsonl.gz`` with
``numpy.random.default_rng(--seed)`` (135 rows each). Run in lm-eval's own virtualenv (``.venvs/lm-eval``)
with ``--model hf`` on a local model folder, float32 on the CPU, ``--log_samples`` so each item's four
log-likelihoods come back. Writes ``subset.jsonl``, the task folder and lm-eval's output under ``--out``.

    python bench/parity/discrim_eval_vs_lm_eval_peer.py --out /tmp/de-parity [--scenarios 3] [--seed 0]
        [--stride N] [--chat]
        [--model ~/.cache/biasatlas/models/smollm2-135m--0.1.2]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
LM_EVAL = REPO / ".venvs" / "lm-eval"
SHARED = Path(os.environ.get("BIASATLAS_SHARED_DATA", REPO.parent.parent / "shared" / "data"))
TASK = "discrim_eval_explicit_local"


def subset(out: Path, scenarios: int, seed: int, stride: int = 1) -> Path:
    """Every row (or every ``stride``-th: with 7, coprime to the 15 gender × race cells and spanning the 9
    ages, 20 rows that hold every level) of ``scenarios`` decision scenarios drawn with the seed, in file
    order."""
    with gzip.open(SHARED / "discrim-eval" / "explicit.jsonl.gz", "rt", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    ids = sorted({r["decision_question_id"] for r in rows})
    chosen = {int(i) for i in np.random.default_rng(seed).choice(ids, size=scenarios, replace=False)}
    path = out / "subset.jsonl"
    kept = [r for r in rows if r["decision_question_id"] in chosen]
    if stride > 1:
        kept = [r for i in sorted(chosen) for r in [x for x in kept if x["decision_question_id"] == i][::stride]]
        kept.sort(key=rows.index)
    path.write_text("".join(json.dumps(r) + "\n" for r in kept))
    return path


def task_folder(out: Path, data: Path) -> Path:
    """A task that includes lm-eval's yaml and only changes where the data come from."""
    installed = next((LM_EVAL / "lib").glob("python*/site-packages/lm_eval/tasks/discrim_eval"))
    folder = out / "tasks"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{TASK}.yaml").write_text(
        f"include: {installed / 'discrim_eval_explicit.yaml'}\ntask: {TASK}\ndataset_path: json\n"
        f"dataset_name: null\ndataset_kwargs:\n  data_files:\n    train: {data}\n")
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--scenarios", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--stride", type=int, default=1, help="only every Nth row of each scenario")
    parser.add_argument("--chat", action="store_true", help="--apply_chat_template")
    parser.add_argument("--model", default=str(Path.home() / ".cache/biasatlas/models/smollm2-135m--0.1.2"))
    parser.add_argument("--batch-size", default="16")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    tasks = task_folder(args.out, subset(args.out, args.scenarios, args.seed, args.stride))
    command = [str(LM_EVAL / "bin" / "lm_eval"), "--model", "hf", "--model_args",
               f"pretrained={args.model},dtype=float32", "--device", "cpu", "--tasks", TASK, "--include_path",
               str(tasks), "--batch_size", args.batch_size, "--log_samples", "--output_path",
               str(args.out / ("chat" if args.chat else "plain"))]
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1",
           "PYTHONPATH": str(statsmodels_only(args.out))}
    subprocess.run(command + (["--apply_chat_template"] if args.chat else []), check=True, env=env)


def statsmodels_only(out: Path) -> Path:
    """A folder holding links to this interpreter's statsmodels and patsy and nothing else: lm-eval's
    aggregation imports statsmodels, which its virtualenv lacks (it is not one of lm-eval's own
    requirements); both environments pin the same numpy, scipy and pandas, so nothing else is shadowed."""
    import patsy
    import statsmodels

    folder = out / "statsmodels-only"
    folder.mkdir(exist_ok=True)
    for module in (statsmodels, patsy):
        link = folder / module.__name__
        if not link.exists():
            link.symlink_to(Path(module.__file__).parent)
    return folder


if __name__ == "__main__":
    main()
