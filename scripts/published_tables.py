"""Print docs/published.md's tables: the published numbers beside ours, from the authors' own predictions.

    PYTHONPATH=src BIASATLAS_DATA_DIR=../shared/data python scripts/published_tables.py

Each row is a run of ``biasatlas.evaluate(..., predictions=FILE)`` (the path ``biasatlas run NAME
--predictions FILE`` takes). StereoSet: the authors' ``predictions_<model>.json`` on dev, against
their ``evaluation.py`` output (``predictions.json``). BBQ: the authors' UnifiedQA-11B answers
(RACE and ARC input formats), against Parrish et al. (2022) Figure 3 (bias) and Figure 5 (accuracy),
as METHODS-MORE.md §2 transcribes them. tests/benchmarks/test_published.py checks every row.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import biasatlas

DATA = Path(os.environ.get("BIASATLAS_DATA_DIR", Path(__file__).resolve().parents[2] / "shared" / "data"))
STEREOSET = DATA / "stereoset" / "published-predictions"
UNIFIEDQA = DATA / "bbq" / "published-predictions" / "UnifiedQA"
#: Parrish et al. (2022): Figure 5 accuracy (ambiguous, disambiguated) and Figure 3 bias scores
#: (ambiguous, disambiguated), UnifiedQA-11B, by input format; the categories whose predictions
#: are published (METHODS-MORE.md §2, "Numbers to compare against").
BBQ_PAPER: dict[tuple[str, str], tuple[float, float, float, float]] = {
    ("Age", "arc"): (33.9, 89.6, 48.9, 3.3), ("Age", "race"): (54.7, 93.5, 29.8, 1.2),
    ("Disability_status", "arc"): (36.0, 92.0, 32.6, -0.7), ("Disability_status", "race"): (53.3, 92.8, 21.2, -1.4),
    ("Nationality", "arc"): (41.6, 92.9, 14.5, -0.2), ("Nationality", "race"): (66.0, 93.7, 6.0, 1.2),
    ("Physical_appearance", "arc"): (36.8, 78.8, 47.7, -1.7), ("Physical_appearance", "race"): (49.5, 82.1, 40.9, -2.3),
    ("Religion", "arc"): (43.8, 85.2, 24.5, 3.5), ("Religion", "race"): (65.0, 88.0, 14.3, 0.2),
    ("Sexual_orientation", "arc"): (51.6, 92.6, 11.8, 0.5), ("Sexual_orientation", "race"): (68.8, 94.0, 5.8, -0.7),
}
#: The share of a category's answers UnifiedQA's text may fail to name an option (the R script drops them;
#: the paper counts 3 such examples): at most 1 here.
BBQ_MAX_MISSING = 0.001


def stereoset_rows() -> list[str]:
    theirs = json.loads((STEREOSET / "predictions.json").read_text(encoding="utf-8"))
    rows = []
    for path in sorted(STEREOSET.glob("predictions_*.json")):
        key = path.name.split("_")[1]
        run = biasatlas.evaluate("stereoset", predictions=path, cache=False, progress=False, n_resamples=1)
        ours = run.summary_dict
        paper = theirs[key]["overall"]
        theirs_cell = f"{paper['LM Score']:.2f} / {paper['SS Score']:.2f} / {paper['ICAT Score']:.2f}"
        ours_cell = f"{ours['lms']:.2f} / {ours['ss']:.2f} / {ours['icat']:.2f}"
        rows.append(f"| StereoSet | {key} | {theirs_cell} | {ours_cell} |")
    return rows


def bbq_rows() -> list[str]:
    rows = []
    for (category, form), paper in BBQ_PAPER.items():
        run = biasatlas.evaluate("bbq", category=category, predictions=UNIFIEDQA / f"preds_{category}.jsonl.gz",
                                 predictions_field=form, max_missing=BBQ_MAX_MISSING, cache=False, progress=False,
                                 n_resamples=1)
        ours = run.summary_dict["sets"]["overall"]
        got = [ours[k] for k in ("accuracy_amb", "accuracy_dis", "bias_amb", "bias_dis")]
        unread = run.summary_dict["predictions"]["n_unreadable"]
        cells = [" / ".join(f"{v:.1f}" for v in values) for values in (paper, got)]
        rows.append(f"| UnifiedQA {form.upper()} | {category.replace('_', ' ')} | {cells[0]} | {cells[1]} | {unread} |")
    return rows


if __name__ == "__main__":
    print("\n".join(stereoset_rows()))
    print()
    print("\n".join(bbq_rows()))
