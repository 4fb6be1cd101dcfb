"""docs/published.md, row by row: the published numbers beside ours, from the authors' own
predictions read by the predictions scorer (biasatlas.scorers.predictions.scorer), the path
``biasatlas run NAME --predictions FILE`` takes.

The published numbers are the authors': StereoSet's from their ``evaluation.py`` output
(``predictions.json``, read from the file here); BBQ's from Parrish et al. (2022), Figure 5
(accuracy) and Figure 3 (bias scores), UnifiedQA-11B's ARC and RACE columns, as METHODS-MORE.md §2
transcribes them from the paper's PDF, written out below. A row we do not reproduce is tested to
stay as docs/published.md explains it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from biasatlas import registry
from biasatlas.benchmarks.bbq import BBQ
from biasatlas.benchmarks.stereoset import StereoSet
from biasatlas.scorers.predictions.scorer import from_file
from shared_data import REPO_ROOT, shared_data_dir

pytestmark = pytest.mark.slow  # each row reads a whole published file (seconds)

DATA = shared_data_dir()
STEREOSET = DATA / "stereoset" / "published-predictions"
UNIFIEDQA = DATA / "bbq" / "published-predictions" / "UnifiedQA"
PAGE = REPO_ROOT / "docs" / "published.md"

#: Parrish et al. (2022), UnifiedQA-11B: Figure 5 accuracy (ambiguous, disambiguated) and Figure 3
#: bias score (ambiguous, disambiguated), ×100, for each category whose predictions are published.
PAPER: dict[tuple[str, str], tuple[float, float, float, float]] = {
    ("Age", "arc"): (33.9, 89.6, 48.9, 3.3), ("Age", "race"): (54.7, 93.5, 29.8, 1.2),
    ("Disability_status", "arc"): (36.0, 92.0, 32.6, -0.7), ("Disability_status", "race"): (53.3, 92.8, 21.2, -1.4),
    ("Nationality", "arc"): (41.6, 92.9, 14.5, -0.2), ("Nationality", "race"): (66.0, 93.7, 6.0, 1.2),
    ("Physical_appearance", "arc"): (36.8, 78.8, 47.7, -1.7), ("Physical_appearance", "race"): (49.5, 82.1, 40.9, -2.3),
    ("Religion", "arc"): (43.8, 85.2, 24.5, 3.5), ("Religion", "race"): (65.0, 88.0, 14.3, 0.2),
    ("Sexual_orientation", "arc"): (51.6, 92.6, 11.8, 0.5), ("Sexual_orientation", "race"): (68.8, 94.0, 5.8, -0.7),
}
#: The rows whose bias scores we do not reproduce (docs/published.md says why): their accuracy we do.
BIAS_NOT_REPRODUCED = {("Physical_appearance", "arc"), ("Physical_appearance", "race")}


@pytest.fixture(autouse=True)
def _shared(isolated_run: Path) -> None:
    """The benchmarks read the shared data."""


def _scored(bench: Any, path: Path, **options: Any) -> dict[str, Any]:
    scorer = from_file(predictions=path, **registry.declared_predictions(), **options)  # BBQ's declared readers
    bound = bench.bind(scorer.info)
    items = bound.load()
    probes = bound.probes(items)
    scorer.join(probes)  # refuses a file that does not answer the items (beyond the allowed share)
    return bound.score(items, scorer.score(probes)).written()


@pytest.mark.parametrize("path", sorted(STEREOSET.glob("predictions_*.json")), ids=lambda p: p.name.split("_")[1])
def test_stereoset_row(path: Path) -> None:
    theirs = json.loads((STEREOSET / "predictions.json").read_text())[path.name.split("_")[1]]["overall"]
    ours = _scored(StereoSet(n_resamples=1), path)
    assert ours["reading"] == "given"
    for field, key in (("LM Score", "lms"), ("SS Score", "ss"), ("ICAT Score", "icat"), ("Count", "count")):
        assert ours[key] == pytest.approx(theirs[field], abs=1e-9), field


@pytest.mark.parametrize(("category", "form"), sorted(PAPER))
def test_bbq_unifiedqa_row(category: str, form: str) -> None:
    # UnifiedQA's text names no option in at most one example of a category (the R script drops it)
    ours = _scored(BBQ(category=category, n_resamples=1), UNIFIEDQA / f"preds_{category}.jsonl.gz",
                   predictions_field=form, max_missing=0.001)["sets"]["overall"]
    got = [round(ours[k], 1) for k in ("accuracy_amb", "accuracy_dis", "bias_amb", "bias_dis")]
    paper = list(PAPER[(category, form)])
    assert got[:2] == paper[:2]
    if (category, form) in BIAS_NOT_REPRODUCED:
        assert got[2:] != paper[2:]
    else:
        assert got[2:] == paper[2:]


def _page_rows(prefix: str) -> list[list[str]]:
    rows = [line for line in PAGE.read_text(encoding="utf-8").splitlines() if line.startswith(prefix)]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in rows]


def test_page_lists_the_papers_numbers() -> None:
    rows = _page_rows("| UnifiedQA")
    assert len(rows) == len(PAPER)
    for model, category, paper, _ours, _unread in rows:
        form = model.split()[-1].lower()
        numbers = tuple(float(x) for x in re.split(r"\s*/\s*", paper.replace("−", "-")))
        assert numbers == PAPER[(category.replace(" ", "_"), form)], (category, form)


def test_page_lists_every_stereoset_model() -> None:
    theirs = json.loads((STEREOSET / "predictions.json").read_text())
    rows = _page_rows("| StereoSet")
    assert sorted(r[1] for r in rows) == sorted(theirs)
    for row in rows:
        paper = theirs[row[1]]["overall"]
        assert row[2] == f"{paper['LM Score']:.2f} / {paper['SS Score']:.2f} / {paper['ICAT Score']:.2f}"
