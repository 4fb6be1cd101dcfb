"""lm-evaluation-harness's BBQ answers scored twice: by the harness's metric and by ours (BBQ's R script).

    PYTHONPATH=src BIASATLAS_DATA_DIR=../shared/data python scripts/rescore_lm_eval.py \\
        OUT/results/<model>/samples_bbq_<date>.jsonl OUT/bbq-data

The samples file and the folder of the same items come from ``scripts/lm_eval_samples.py --task bbq``.
Prints docs/published.md's re-scoring table: the harness's own numbers (its ``results_<date>.json``),
ours on the same log-likelihoods (``biasatlas.evaluate("bbq", data=FOLDER, predictions=FILE)``),
and per item where the two differ and why: accuracy (the harness counts any of its ten unknown
strings right in an ambiguous item: its target list ``range(2, 13)``, issue 3226) and the biased
answer (the harness derives it from ``stereotyped_groups``; the R script reads ``target_loc``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import biasatlas

UNKNOWN_AT = range(2, 12)  # where the harness's doc_to_choice puts its ten unknown strings (of 12 choices)


def harness(samples: Path) -> dict[str, Any]:
    date = samples.name.removeprefix("samples_bbq_").removesuffix(".jsonl")
    return dict(json.loads(samples.with_name(f"results_{date}.json").read_text())["results"]["bbq"])


def per_item(samples: Path, items: dict[str, dict[str, Any]]) -> dict[str, int]:
    """Counts of the items where the harness and the R script read one answer differently."""
    counts = {"items": 0, "acc differs": 0, "biased option differs": 0, "unknown chosen outside 2..11": 0,
              "targets name a 13th choice": 0}
    for line in samples.read_text().splitlines():
        record = json.loads(line)
        doc = record["doc"]
        ours = items.get(f"{doc['category']}/{doc['example_id']}")
        if ours is None:
            continue
        counts["items"] += 1
        values = [float(r[0]) for r in record["filtered_resps"]]
        pick = values.index(max(values))
        counts["acc differs"] += int(bool(record["acc"]) != bool(ours["correct"]))
        target = ours["options"][ours["target"]] if ours["target"] is not None else None
        counts["biased option differs"] += int(doc["biased_answers"] != [target])
        counts["unknown chosen outside 2..11"] += int(pick >= 2 and pick not in UNKNOWN_AT)
        counts["targets name a 13th choice"] += int(doc["label"] == ours["unknown"] and len(values) == 12)
    return counts


def main(samples: Path, folder: Path) -> None:
    run = biasatlas.evaluate("bbq", data=folder, predictions=samples, cache=False, progress=False)
    ours = run.summary_dict
    theirs = harness(samples)
    overall = ours["sets"]["overall"]
    rows = [("accuracy, ambiguous", 100 * theirs["accuracy_amb,none"], overall["accuracy_amb"]),
            ("accuracy, disambiguated", 100 * theirs["accuracy_disamb,none"], overall["accuracy_dis"]),
            ("bias, ambiguous", 100 * theirs["amb_bias_score,none"], overall["bias_amb"]),
            ("bias, disambiguated", 100 * theirs["disamb_bias_score,none"], overall["bias_dis"])]
    print(f"items: {ours['predictions']['n_matched']} answered of {ours['predictions']['n_asked']}; "
          f"harness acc {100 * theirs['acc,none']:.2f}")
    print("| | lm-eval's metric | ours (R script) |\n|---|---|---|")
    for name, a, b in rows:
        print(f"| {name} | {a:.2f} | {'—' if b is None else f'{b:.2f}'} |")
    print(json.dumps(per_item(samples, {r["id"]: r for r in run.records})))
    for group, scores in sorted(ours["sets"].items()):
        key = group.replace(" (names)", "")
        amb, dis = theirs.get(f"amb_bias_score_{key},none"), theirs.get(f"disamb_bias_score_{key},none")
        print(f"| {group} | {100 * amb:.1f} / {100 * dis:.1f} | "
              f"{scores['bias_amb'] if scores['bias_amb'] is None else round(scores['bias_amb'], 1)} / "
              f"{scores['bias_dis'] if scores['bias_dis'] is None else round(scores['bias_dis'], 1)} |"
              if amb is not None and dis is not None else f"| {group} | – | – |")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
