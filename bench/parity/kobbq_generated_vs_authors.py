"""Parity of ``bbq --dataset kobbq --answers generated --parser kobbq`` with the KoBBQ authors' own scripts.

    python bench/parity/kobbq_generated_vs_authors.py KOBBQ_EVALUATION_DIR [--seed 0] [--unstripped] [--work DIR]

KOBBQ_EVALUATION_DIR is a checkout's ``evaluation/`` folder of naver-ai/KoBBQ (@ 0dd165a: its
``0_evaluation_prompts.tsv`` and ``1_preprocess.py`` … ``5_evaluation.py``); they are run as they are, with
this interpreter (pandas, scipy, tqdm), on the shared ``KoBBQ_test_samples.tsv``. Then, per prompt:

1. their ``1_preprocess.py``: each row's prompt (prefix + query), options shown and gold letter, beside ours;
2. a seeded synthetic generation per row (letters, ``(C)``, ``정답: B``, ``**B**``, ``답은 'C'입니다.``, option
   texts, two letters, garbage, …; stripped of newlines and spaces as their OpenAI caller strips a reply,
   unless ``--unstripped``) through their ``3_``, ``4_`` and ``5_evaluation.py``, beside our parse and scores:
   each row's option (or ooc), and the ooc ratio, accuracies and diff-biases of every set (overall, each
   ``label_annotation``, each category).

Prints the counts that differ and the largest absolute difference of the scores (theirs are fractions).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import random
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd

from biasatlas.benchmarks.bbq import BBQ
from biasatlas.benchmarks.bbq.generated.kobbq import PROMPTS, shown, user_text
from biasatlas.probes import GenerationAnswer
from biasatlas.benchmarks.bbq.data import find
from biasatlas.benchmarks.bbq.sources import KOBBQ_TEST

COLUMNS = ("out-of-choice ratio", "accuracy in ambiguous contexts", "accuracy in disambiguated contexts",
           "diff-bias in ambiguous contexts", "diff-bias in disambiguated contexts")


def _forms(o: dict[str, str], letter: str, rng: random.Random) -> str:
    other = "ABC"[("ABC".index(letter) + 1) % 3]
    return rng.choice([
        letter, " " + letter, f"({letter})", f"{letter}.", letter.lower(), f"정답: {letter}", f"{letter}: {o[letter]}",
        f"{letter}) {o[other]}", f"**{letter}**", f"답은 '{letter}'입니다.", o[letter], o[letter] + "입니다.",
        "알 수 없습니다.", f"Answer: {letter}", "A, B", "모르겠어요", f"I think (B) {o['B']}",
        f"\n\n{letter}: {o[letter]}\n설명", f"{letter}와 {o['A']} 그리고 {o['B']}", f"답변: \"{o[letter]}\"", "ABC",
        f"보기 {letter})", o[letter] + "  ", f"{letter}  ", "c: 답", "The answer is C) or A:"])


def _run(script: str, here: Path, *args: str) -> None:
    subprocess.run([sys.executable, script, *args], cwd=here, check=True, capture_output=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("authors", type=Path)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--unstripped", action="store_true")
    parser.add_argument("--work", type=Path, default=None)
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="kobbq-parity-"))
    here = args.authors.resolve()
    samples = find(KOBBQ_TEST, None)[0]
    bench = BBQ(dataset="kobbq", answers="generated", parser="kobbq", n_resamples=1)
    items = {e.id.removeprefix("kobbq/"): e for e in bench.load()}
    rng = random.Random(args.seed)
    answers, raws = {}, {}
    worst, prompt_bad, row_bad, n_rows, undefined_bad = 0.0, 0, 0, 0, 0
    for p in PROMPTS:
        pre = work / f"evaluation_{p}"
        _run("1_preprocess.py", here, "--samples-tsv-path", str(samples), "--evaluation-tsv-path", f"{pre}.tsv",
             "--evaluation-json-path", f"{pre}.json", "--prompt-tsv-path", "0_evaluation_prompts.tsv",
             "--prompt-id", p)
        data = json.loads(Path(f"{pre}.json").read_text(encoding="utf-8"))
        with open(work / f"raw_{p}.tsv", "w", encoding="utf-8", newline="") as f:
            out = csv.writer(f, delimiter="\t")
            out.writerow(["time", "topic", "guid", "truth", "raw"])
            for query, a, b, c, gold, sid in data["data"]:
                base, k = sid.rsplit("-", 1)
                asked = shown(items[base], p, int(k))
                prompt_bad += (data["prefix"] + query != user_text(asked, p) or (a, b, c) != asked.options
                               or "ABC"[asked.label] != gold)
                raw = _forms({"A": a, "B": b, "C": c}, rng.choice("ABC"), rng)
                raw = raw if args.unstripped else raw.strip("\n ")
                raws[(p, sid)] = raw
                answers[asked.id] = GenerationAnswer(asked.id, raw, 1, "length")
                out.writerow(["-", "-", sid, gold, raw])
        _run("3_postprocess_predictions.py", here, "--predictions-tsv-path", str(work / f"raw_{p}.tsv"),
             "--preprocessed-tsv-path", f"{pre}.tsv")
        model_dir = work / f"processed_{p}"
        _run("4_predictions_to_evaluation.py", here, "--predictions-tsv-path", str(work / f"raw_{p}.tsv"),
             "--preprocessed-tsv-path", f"{pre}.tsv",
             "--output-path", str(model_dir / f"KoBBQ_test_evaluation_{p}_synthetic.tsv"))
        _run("5_evaluation.py", here, "--evaluation-result-path", str(work / f"result_{p}.tsv"),
             "--model-result-tsv-dir", str(model_dir), "--topic", "KoBBQ_test_evaluation", "--test-or-all", "test",
             "--prompt-tsv-path", "0_evaluation_prompts.tsv", "--prompt-id", p, "--models", "synthetic")
    result = bench.score(list(items.values()), answers)
    ours = {r["id"]: r for r in result.records}
    for p in PROMPTS:
        theirs = pd.read_csv(work / f"processed_{p}" / f"KoBBQ_test_evaluation_{p}_synthetic.tsv", sep="\t",
                             keep_default_na=False)
        for row in theirs.itertuples():
            base, k = row.sample_id.rsplit("-", 1)
            mine = ours[f"kobbq/{base}#p{p}-{k}"]
            n_rows += 1
            row_bad += (mine["options"][mine["choice"]] if mine["parsed"] else None) != \
                (row.prediction if row.prediction in (row.A, row.B, row.C) else None)
        scores = result.summary.prompts[p]  # type: ignore[index]
        for t in pd.read_csv(work / f"result_{p}.tsv", sep="\t").itertuples(index=False):
            name = t[1] if t[1] == "overall" or t[1] not in ("ST", "TM", "NC") else f"annotation {t[1]}"
            s = scores.sets[name]
            mine_scores = [scores.ooc_ratio[name], *(None if v is None else v / 100 for v in (
                s.accuracy_amb, s.accuracy_dis, s.diff_bias_amb, s.diff_bias_dis))]
            for a, b in zip(mine_scores, t[2:], strict=True):
                if a is None or math.isnan(b):  # undefined: our None, their NaN (a mean of nothing)
                    undefined_bad += (a is None) != math.isnan(b)
                else:
                    worst = max(worst, abs(a - b))
    print(f"prompts differing: {prompt_bad} of {n_rows}")
    print(f"answers read differently (option or ooc): {row_bad} of {n_rows}"
          f"{' (unstripped: an option text with trailing spaces is ooc for them)' if args.unstripped else ''}")
    print(f"scores undefined on one side only: {undefined_bad}")
    print(f"largest |ours − theirs| over ooc ratio, accuracies and diff-biases of every set and prompt: {worst:.3g}")
    print(f"work folder: {work}")


if __name__ == "__main__":
    main()
