"""biasatlas's ``discrim-eval`` against lm-evaluation-harness 0.4.13's ``discrim_eval_explicit`` on the same
model and prompts (issue 38, parity): per item and per level, side by side.

Reads lm-eval's output (``bench/parity/discrim_eval_vs_lm_eval_peer.py --out OUT [--chat]``: ``OUT/plain`` or
``OUT/chat``, its ``--log_samples`` file and results) and a biasatlas run folder of the same subset
(``biasatlas run discrim-eval --model smollm2-135m --scenarios 3 --seed 0 [--chat-template model]``, the
same seeded draw of scenarios), and prints:

* whether the first prompt is the same text on both sides (lm-eval's request context against our
  ``chat_prompt_first``, one prompt per side; the rest follow from the same code path);
* per item, the largest |Δ log P| over the four forms and |Δ logit p(yes)|: max and median;
* per level, lm-eval's metric (its mixed-model coefficient; |age|) beside our coefficient.

    python bench/parity/discrim_eval_vs_lm_eval.py LM_EVAL_FOLDER RUN_FOLDER
"""

from __future__ import annotations

import json
import math
import statistics
import sys
from pathlib import Path
from typing import Any

#: lm-eval's metric names → our level names.
METRICS = {"black_bias": "black", "asian_bias": "asian", "hispanic_bias": "hispanic",
           "native_american_bias": "native american", "female_bias": "female", "non_binary_bias": "non-binary",
           "age_bias": "age"}


def _key(scenario: Any, age: Any, gender: str, race: str) -> tuple[int, float, str, str]:
    return int(scenario), float(age), gender.lower(), race.lower()


def lm_eval_side(folder: Path) -> tuple[dict[tuple[int, float, str, str], list[float]], dict[str, float], str]:
    """Per item its four log-likelihoods (yes, Yes, no, No), the metrics, and the first doc's context."""
    samples_file = next(folder.rglob("samples_*.jsonl"))
    items, first = {}, ""
    for line in samples_file.read_text().splitlines():
        s = json.loads(line)
        doc = s["doc"]
        items[_key(doc["decision_question_id"], doc["age"], doc["gender"], doc["race"])] = [
            float(r[0]) for r in (x[0] if isinstance(x[0], list) else x for x in s["filtered_resps"])]
        if s.get("doc_id") == 0:
            first = _first_context(s["arguments"])
    results = json.loads(next(folder.rglob("results_*.json")).read_text())["results"]
    task = next(iter(results.values()))
    metrics = {name: float(task[f"{name},none"]) for name in METRICS if f"{name},none" in task}
    return items, metrics, first


def _first_context(arguments: Any) -> str:
    """The context of a sample's first request (a list of [context, continuation], or lm-eval's
    ``{"gen_args_0": {"arg_0": context, …}, …}``)."""
    if isinstance(arguments, dict):
        return str(arguments["gen_args_0"]["arg_0"])
    return str(arguments[0][0])


def ours(run: Path) -> tuple[dict[tuple[int, float, str, str], list[float]], dict[str, Any], str]:
    items = {}
    for line in (run / "items.jsonl").read_text().splitlines():
        r = json.loads(line)
        items[_key(r["scenario"], r["age"], r["gender"], r["race"])] = [r[f"logprob_{f}"] for f in ("yes", "Yes", "no",
                                                                                                     "No")]
    summary = json.loads((run / "summary.json").read_text())
    config = json.loads((run / "config.json").read_text())
    return items, summary, config["benchmark"].get("chat_prompt_first") or ""


def logit(lp: list[float]) -> float:
    yes = math.log(math.exp(lp[0]) + math.exp(lp[1]))
    no = math.log(math.exp(lp[2]) + math.exp(lp[3]))
    return yes - no


def main() -> None:
    theirs, metrics, first_theirs = lm_eval_side(Path(sys.argv[1]))
    mine, summary, first_mine = ours(Path(sys.argv[2]))
    shared = sorted(set(theirs) & set(mine))
    print(f"items: lm-eval {len(theirs)}, biasatlas {len(mine)}, shared {len(shared)}")
    print(f"first prompt identical: {first_theirs == first_mine}")
    worst = [max(abs(a - b) for a, b in zip(theirs[k], mine[k])) for k in shared]
    dlogit = [abs(logit(theirs[k]) - logit(mine[k])) for k in shared]
    print(f"max |Δ log P| over 4 forms: max {max(worst):.2e}, median {statistics.median(worst):.2e}")
    print(f"|Δ logit p(yes)|: max {max(dlogit):.2e}, median {statistics.median(dlogit):.2e}")
    print(f"{'level':<18}{'lm-eval':>12}{'biasatlas':>12}{'95% CI':>24}{'|Δ|':>10}")
    levels = summary.get("levels", {})
    for name, level in METRICS.items():
        ours_value = levels.get(level, {}).get("estimate")
        ci = (levels.get(level, {}).get("intervals") or {}).get("estimate")
        compared = abs(ours_value) if name == "age_bias" and ours_value is not None else ours_value
        delta = abs(metrics[name] - compared) if name in metrics and compared is not None else float("nan")
        ci_text = f"[{ci[0]:+.3f}, {ci[1]:+.3f}]" if ci else "–"
        print(f"{level:<18}{metrics.get(name, float('nan')):>12.4f}{compared:>12.4f}{ci_text:>24}{delta:>10.2e}")
    print(f"biasatlas: mean p(yes) {summary.get('mean_p_yes'):.3f}, below mass 0.99: {summary.get('n_low_mass')} of "
          f"{summary.get('n')}, converged {summary.get('converged')} (age: lm-eval reports |coefficient|)")


if __name__ == "__main__":
    main()
