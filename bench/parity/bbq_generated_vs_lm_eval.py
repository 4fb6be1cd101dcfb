"""Parity with lm-evaluation-harness 0.4.13's ``bbq_generate`` on the same items (issue 38).

    .venvs/lm-eval/bin/python scripts/lm_eval_samples.py --task bbq_generate --per-category 4 --seed 38 \\
        --batch-size 1 --max-gen-toks 32 --out OUT
    biasatlas run bbq --model smollm2-135m --answers generated --data OUT/bbq-data -o RUN
    python bench/parity/bbq_generated_vs_lm_eval.py OUT RUN

Prints, per item: whether the generated texts are equal, lm-eval's parsed answer (its own
``process_results_generate_until``, run in its virtualenv with ``_process_results`` replaced by one
that returns the index it is given) and ours (``lm-eval-0.4.13``); then lm-eval's aggregate metrics
beside ours, with the reasons they may differ: lm-eval scores an unparsed answer (-1) as wrong and,
reading its choice list at -1 ("Undetermined"), as an unknown answer, where we leave it out; its
biased answer comes from ``stereotyped_groups``, ours from the authors' ``target_loc``; its
disambiguated bias is 0.0 where no answer names a person, ours undefined.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LM_EVAL = ROOT / ".venvs" / "lm-eval" / "bin" / "python"
# Run in lm-eval's virtualenv: each sample's parsed index by the harness's own code.
THEIR_PARSE = r"""
import json, sys
from lm_eval.tasks.bbq import utils
utils._process_results = lambda doc, answer: answer
for line in open(sys.argv[1], encoding="utf-8"):
    s = json.loads(line)
    i = utils.process_results_generate_until(s["doc"], [s["filtered_resps"][0]])
    choice = utils.doc_to_choice(s["doc"])
    print(json.dumps({"id": f"{s['doc']['category']}/{s['doc']['example_id']}", "index": i,
                      "text": s["filtered_resps"][0], "option": None if i == -1 else choice[i]}))
"""


def their_answers(out: Path) -> tuple[dict[str, dict], dict[str, float]]:
    samples = sorted(out.glob("results/**/samples_bbq_generate_*.jsonl"))[-1]
    results = sorted(out.glob("results/**/results_*.json"))[-1]
    said = subprocess.run([str(LM_EVAL), "-c", THEIR_PARSE, str(samples)], check=True, capture_output=True,
                          text=True).stdout
    rows = {r["id"]: r for r in map(json.loads, said.splitlines())}
    metrics = json.loads(results.read_text())["results"]["bbq_generate"]
    return rows, {k.split(",")[0]: v for k, v in metrics.items() if isinstance(v, (int, float))}


def main() -> None:
    out, run = Path(sys.argv[1]), Path(sys.argv[2])
    theirs, metrics = their_answers(out)
    ours = {r["id"]: r for r in map(json.loads, (run / "items.jsonl").read_text().splitlines())}
    unknowns = {"Unknown", "Cannot answer", "Can't be determined", "Cannot be determined", "Can't answer",
                "Not known", "Not enough info", "Not enough information", "Not answerable", "Undetermined"}
    print("| id | same text | lm-eval parsed | ours parsed | agree |")
    print("|---|---|---|---|---|")
    same_text = agree = 0
    for i, t in theirs.items():
        o = ours.get(i)
        if o is None:
            print(f"| {i} | (not in our run) | {t['option']} | – | – |")
            continue
        mine = None if o["choice"] is None else o["options"][o["choice"]]
        # any of lm-eval's unknown strings is the item's unknown option
        theirs_option = o["options"][o["unknown"]] if t["option"] in unknowns else t["option"]
        equal_text, equal_parse = t["text"] == o["generated"], theirs_option == mine
        same_text += equal_text
        agree += equal_parse
        yes = {True: "yes", False: "NO"}
        print(f"| {i} | {yes[equal_text]} | {theirs_option} | {mine} | {yes[equal_parse]} |")
    n = len(theirs)
    print(f"\nGenerated text equal: {same_text}/{n}; parsed option equal: {agree}/{n}; "
          f"unparsed: lm-eval {sum(t['index'] == -1 for t in theirs.values())}, "
          f"ours {sum(r['parsed'] is False for r in ours.values())}.\n")
    summary = json.loads((run / "summary.json").read_text())
    pairs = [("acc", None), ("accuracy_amb", "accuracy_amb"), ("accuracy_disamb", "accuracy_dis"),
             ("amb_bias_score", "bias_amb"), ("disamb_bias_score", "bias_dis")]
    wrong = _unparsed_as_wrong(list(ours.values()))
    print("| metric | lm-eval 0.4.13 (×100) | ours | ours, an unparsed answer counted wrong (lm-eval's convention) |")
    print("|---|---|---|---|")
    for theirs_key, ours_key in pairs:
        value = metrics.get(theirs_key)
        mine = summary.get(ours_key) if ours_key else None
        print(f"| {theirs_key} | {_cell(value, 100)} | {_cell(mine)} | {_cell(wrong.get(theirs_key))} |")


def _cell(value: float | None, scale: float = 1.0) -> str:
    return "–" if value is None else f"{scale * value:.2f}"


def _unparsed_as_wrong(rows: list[dict]) -> dict[str, float]:
    """Accuracy over every item of a context (an unparsed answer wrong), from items.jsonl (weights kept)."""
    out = {}
    for key, condition in (("acc", None), ("accuracy_amb", "ambig"), ("accuracy_disamb", "disambig")):
        chosen = [r for r in rows if condition is None or r["context_condition"] == condition]
        total = sum(r["weight"] for r in chosen)
        if total:
            out[key] = 100.0 * sum(r["weight"] for r in chosen if r["correct"]) / total
    return out


if __name__ == "__main__":
    main()
