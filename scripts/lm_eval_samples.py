"""Make real lm-evaluation-harness per-item files (``samples_<task>_*.jsonl``) offline.

Run with the lm-eval virtualenv's Python (lm-evaluation-harness 0.4.13), not biasatlas's::

    .venvs/lm-eval/bin/python scripts/lm_eval_samples.py --task bbq --per-category 50 --out OUT
    .venvs/lm-eval/bin/python scripts/lm_eval_samples.py --task crows_pairs_english --out OUT
    .venvs/lm-eval/bin/python scripts/lm_eval_samples.py --task bbq_generate --per-category 4 \
        --batch-size 1 --max-gen-toks 32 --out OUT
    .venvs/lm-eval/bin/python scripts/lm_eval_samples.py --task bbq --per-category 1 --apply-chat-template --out OUT

The harness's tasks load their data from the Hugging Face hub (``oskarvanderwal/bbq``,
``jannalu/crows_pairs_multilingual``), which cannot be reached here. This script writes the
shared copies of the same data (``$BIASATLAS_SHARED_DATA``: ``bbq/*.jsonl``, the nyu-mll files;
``crows-pairs-en/crows_pairs_EN_revised+210.csv``, the English split of the multilingual set)
as local JSON Lines and a task of the same name whose YAML ``include``\\ s the installed task's
own file and changes only where the data comes from, so the prompts, choices, process_results
and metrics are the harness's own. ``--per-category N`` draws N BBQ examples per category
(``random.Random(seed)``): the whole set is 58,492 examples × 12 options, too slow on a CPU; the
drawn examples are also written as BBQ's own files (``OUT/bbq-data/``) for ``--data``.
The model is the packaged SmolLM2-135M-Instruct folder biasatlas converts once.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

SHARED = Path(os.environ.get("BIASATLAS_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
MODEL = Path.home() / ".cache" / "biasatlas" / "models" / "smollm2-135m--0.1.2"


def bbq_rows(per_category: int | None, seed: int) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for path in sorted((SHARED / "bbq").glob("*.jsonl")):
        records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        if per_category is not None:
            chosen = sorted(random.Random(f"{seed}/{path.stem}").sample(range(len(records)), per_category))
            records = [records[i] for i in chosen]
        rows += records
    return rows


def bbq_folder(rows: list[dict[str, object]], folder: Path) -> None:
    """The drawn rows as BBQ's own files (one per category, and the authors' metadata), so that
    ``biasatlas run bbq --data FOLDER --predictions samples_bbq_*.jsonl`` has exactly the items the
    harness answered: nothing missing, nothing extra."""
    folder.mkdir(parents=True, exist_ok=True)
    for category in sorted({str(r["category"]) for r in rows}):
        chosen = [r for r in rows if r["category"] == category]
        (folder / f"{category}.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in chosen),
                                                  encoding="utf-8")
    shutil.copy(SHARED / "bbq" / "additional_metadata.csv", folder / "additional_metadata.csv")


def crows_rows() -> list[dict[str, object]]:
    path = SHARED / "crows-pairs-en" / "crows_pairs_EN_revised+210.csv"
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle, delimiter="\t")
        header = next(reader)
        return [{"id": row[0], **dict(zip(header[1:], row[1:]))} for row in reader]


def task_yaml(task: str, data: Path) -> str:
    import lm_eval

    tasks = Path(lm_eval.__file__).parent / "tasks"
    original = {"bbq": tasks / "bbq" / "bbq_multiple_choice.yaml", "bbq_generate": tasks / "bbq" / "bbq_generate.yaml",
                "crows_pairs_english": tasks / "crows_pairs" / "crows_pairs_english.yaml"}[task]
    return (f"include: {original}\ntask: {task}\ndataset_path: json\ndataset_name: null\n"
            f"dataset_kwargs:\n  data_files:\n    test: {data}\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--task", choices=("bbq", "bbq_generate", "crows_pairs_english"), required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--per-category", type=int, default=None, help="BBQ: examples drawn per category")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--limit", type=int, default=None, help="lm-eval's --limit (the first N documents)")
    parser.add_argument("--batch-size", default="16")
    parser.add_argument("--data-only", action="store_true", help="write the task's data and stop")
    parser.add_argument("--max-gen-toks", type=int, default=None,
                        help="generate_until tasks: at most this many new tokens (lm-eval's default is 256)")
    parser.add_argument("--apply-chat-template", action="store_true",
                        help="the harness's --apply_chat_template (the model's own template)")
    args = parser.parse_args()
    folder = args.out / "task"
    folder.mkdir(parents=True, exist_ok=True)
    bbq = args.task.startswith("bbq")
    rows = bbq_rows(args.per_category, args.seed) if bbq else crows_rows()
    data = folder / f"{args.task}.jsonl"
    data.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    (folder / f"{args.task}.yaml").write_text(task_yaml(args.task, data), encoding="utf-8")
    if bbq:
        bbq_folder(rows, args.out / "bbq-data")
    if args.data_only:
        return
    command = [sys.executable, "-m", "lm_eval", "--model", "hf", "--model_args", f"pretrained={MODEL},dtype=float32",
               "--tasks", args.task, "--include_path", str(folder), "--device", "cpu", "--batch_size",
               args.batch_size, "--log_samples", "--output_path", str(args.out / "results")]
    if args.limit is not None:
        command += ["--limit", str(args.limit)]
    if args.max_gen_toks is not None:
        command += ["--gen_kwargs", f"max_gen_toks={args.max_gen_toks}"]
    if args.apply_chat_template:
        command += ["--apply_chat_template"]
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    print(" ".join(command), flush=True)
    raise SystemExit(subprocess.call(command, env=env))


if __name__ == "__main__":
    main()
