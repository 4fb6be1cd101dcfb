"""EsBBQ and CaBBQ against lm-evaluation-harness 0.4.13's ``esbbq`` and ``cabbq`` tasks, per item.

A parity check, not a speed script (bench/parity/): it needs a real model and two virtualenvs, and it
prints its table. Steps (each one a subcommand, so the slow halves can run apart):

``lm-eval``  decompress the shared JSONL to a scratch folder, write one local task yaml per category
             (``include`` of the installed task config, ``dataset_path: json`` with ``data_files`` on
             the scratch copy), and run ``lm_eval --model hf`` on the packaged Gemma folder with
             ``--samples`` (the indices our ``--sample N --seed S`` draws, one category at a time)
             and ``--log_samples``;
``ours``     ``biasatlas.evaluate("bbq", dataset=…, category=…, sample=N, seed=S, options="lm-eval")``
             on the same model folder; items.jsonl kept;
``compare``  per item: the 11 log-likelihoods, the answer (0, 1 or unknown), and the four metrics of
             the authors' ``bias_score.py`` (lm-eval's aggregation) beside ours on the same items.

Both sides read Gemma with its tokenizer's own start token: lm-eval's ``hf`` leaves
``add_bos_token`` unset, so the tokenizer adds ``<bos>`` to the context (and to context +
continuation, which it then splits); ours reads ``start_token="empty-context"`` (the family's
default): the prompt begins as the tokenizer begins a text, i.e. ``<bos>`` on Gemma.

    python bench/parity/esbbq_vs_lm_eval.py all --out /tmp/esbbq-parity
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
LM_EVAL = REPO / ".venvs" / "lm-eval"
TASKS = LM_EVAL / "lib" / "python3.11" / "site-packages" / "lm_eval" / "tasks"
DATA = Path(os.environ.get("BIASATLAS_SHARED_DATA", REPO.parent / "shared" / "data"))
MODEL = Path.home() / ".cache" / "biasatlas" / "models" / "gemma-3-270m--1.0.0"
#: lm-eval's task name suffix for each category file (its per-category yamls).
SUFFIX = {"Age": "age", "DisabilityStatus": "disability_status", "Gender": "gender", "LGBTQIA": "lgbtqia",
          "Nationality": "nationality", "PhysicalAppearance": "physical_appearance",
          "RaceEthnicity": "race_ethnicity", "Religion": "religion", "SES": "ses",
          "SpanishRegion": "spanish_region"}


def indices(dataset: str, category: str, n: int, seed: int) -> list[int]:
    """The line indices ``--category C --sample n --seed seed`` draws (draw_sample's rule:
    numpy default_rng(seed).choice without replacement, kept in file order)."""
    with gzip.open(DATA / dataset / f"{category}.full.jsonl.gz", "rt", encoding="utf-8") as f:
        total = sum(1 for _ in f)
    return sorted(int(i) for i in np.random.default_rng(seed).choice(total, size=n, replace=False))


def run_lm_eval(out: Path, datasets: list[str], categories: list[str], n: int, seed: int) -> None:
    tasks_dir = out / "tasks"
    tasks_dir.mkdir(parents=True, exist_ok=True)
    samples: dict[str, list[int]] = {}
    for dataset in datasets:
        for category in categories:
            plain = out / "data" / dataset / f"{category}.full.jsonl"
            plain.parent.mkdir(parents=True, exist_ok=True)
            plain.write_bytes(gzip.decompress((DATA / dataset / f"{category}.full.jsonl.gz").read_bytes()))
            task = f"local_{dataset}_{SUFFIX[category]}"
            (tasks_dir / f"{task}.yaml").write_text(
                f"include: {TASKS / dataset / f'_{dataset}_common_yaml'}\n"
                f"task: {task}\ndataset_path: json\ndataset_name: null\n"
                f"dataset_kwargs:\n  data_files:\n    test: {plain}\n", encoding="utf-8")
            samples[task] = indices(dataset, category, n, seed)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    subprocess.run([str(LM_EVAL / "bin" / "lm_eval"), "--model", "hf",
                    "--model_args", f"pretrained={MODEL},dtype=float32", "--device", "cpu", "--batch_size", "1",
                    "--include_path", str(tasks_dir), "--tasks", ",".join(samples),
                    "--samples", json.dumps(samples), "--log_samples", "--output_path", str(out / "lm-eval")],
                   check=True, env=env)


def run_ours(out: Path, datasets: list[str], categories: list[str], n: int, seed: int) -> None:
    import biasatlas

    for dataset in datasets:
        for category in categories:
            biasatlas.evaluate("bbq", model=str(MODEL), dataset=dataset, category=category, sample=n, seed=seed,
                               options="lm-eval", n_resamples=20, progress=False, cache=False,
                               out=out / "ours" / f"{dataset}-{category}", force=True)


def lm_eval_samples(out: Path, dataset: str, category: str) -> dict[int, dict]:
    """lm-eval's logged samples of one task, by the doc's instance_id."""
    found = sorted((out / "lm-eval").rglob(f"samples_local_{dataset}_{SUFFIX[category]}_*.jsonl"))
    if not found:
        raise SystemExit(f"no lm-eval samples for {dataset} {category} under {out / 'lm-eval'}")
    rows = [json.loads(line) for line in found[-1].read_text(encoding="utf-8").splitlines() if line]
    return {int(r["doc"]["instance_id"]): r for r in rows}


def _theirs(rows: list[dict]) -> dict[str, float]:
    """The four metrics of the authors' bias_score.py, recomputed from lm-eval's logged answers."""
    amb = [r for r in rows if r["doc"]["context_condition"] == "ambig"]
    dis = [r for r in rows if r["doc"]["context_condition"] == "disambig"]
    out = {"acc_ambig": float(np.mean([r["acc_ambig"][0] for r in amb])) if amb else float("nan"),
           "acc_disambig": float(np.mean([r["acc_disambig"][0] for r in dis])) if dis else float("nan")}
    out["bias_score_ambig"] = (sum(r["bias_score_ambig"][1] - r["bias_score_ambig"][2] for r in amb) / len(amb)
                               if amb else float("nan"))
    pro = [r for r in dis if r["doc"]["question_type"] == "pro-stereo"]
    anti = [r for r in dis if r["doc"]["question_type"] == "anti-stereo"]
    out["bias_score_disambig"] = (np.mean([r["bias_score_disambig"][2] for r in pro])
                                  - np.mean([r["bias_score_disambig"][3] for r in anti])
                                  if pro and anti else float("nan"))
    return out


def compare(out: Path, datasets: list[str], categories: list[str]) -> None:
    worst = 0.0
    print("| dataset | category | items (amb/dis) | same answer | max abs Δ log-lik | lm-eval acc amb / dis "
          "| ours acc amb / dis | lm-eval bias amb / dis | ours bias amb / dis |")
    print("|---|---|---|---|---|---|---|---|---|")
    for dataset in datasets:
        for category in categories:
            theirs = lm_eval_samples(out, dataset, category)
            folder = out / "ours" / f"{dataset}-{category}"
            ours = [json.loads(line) for line in (folder / "items.jsonl").read_text(encoding="utf-8").splitlines()]
            summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
            same, delta = 0, 0.0
            for record in ours:
                their = theirs[int(record["id"].rsplit("/", 1)[1])]
                lls = [float(v[0]) for v in their["filtered_resps"]]
                delta = max(delta, max(abs(a - b) for a, b in zip(record["values"], lls, strict=True)))
                their_answer = min(int(np.argmax(lls)), 2)
                same += their_answer == record["choice"]
            worst = max(worst, delta)
            if len(ours) != len(theirs):
                raise SystemExit(f"{dataset} {category}: {len(ours)} items of ours, {len(theirs)} of lm-eval's")
            m = _theirs(list(theirs.values()))
            n_amb = sum(r["context_condition"] == "ambig" for r in ours)
            print(f"| {dataset} | {category} | {n_amb}/{len(ours) - n_amb} | {same}/{len(ours)} | {delta:.2e} "
                  f"| {100 * m['acc_ambig']:.1f} / {100 * m['acc_disambig']:.1f} "
                  f"| {_f(summary.get('accuracy_amb'))} / {_f(summary.get('accuracy_dis'))} "
                  f"| {100 * m['bias_score_ambig']:.1f} / {100 * m['bias_score_disambig']:.1f} "
                  f"| {_f(summary.get('diff_bias_amb'))} / {_f(summary.get('diff_bias_dis'))} |")
    print(f"largest |Δ log-likelihood| over every option: {worst:.2e}")


def _f(value: float | None) -> str:
    return "nan" if value is None else f"{value:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=("lm-eval", "ours", "compare", "all"))
    parser.add_argument("--out", type=Path, default=Path("/tmp/esbbq-parity"))
    parser.add_argument("--datasets", default="esbbq,cabbq")
    parser.add_argument("--categories", default="Gender,SpanishRegion")
    parser.add_argument("--sample", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    a = parser.parse_args()
    datasets, categories = a.datasets.split(","), a.categories.split(",")
    if a.step in ("lm-eval", "all"):
        run_lm_eval(a.out, datasets, categories, a.sample, a.seed)
    if a.step in ("ours", "all"):
        run_ours(a.out, datasets, categories, a.sample, a.seed)
    if a.step in ("compare", "all"):
        compare(a.out, datasets, categories)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
