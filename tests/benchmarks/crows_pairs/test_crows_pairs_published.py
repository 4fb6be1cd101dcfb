"""docs/published.md's Dutch CrowS-Pairs rows: the seven masked LMs whose per-pair scores Strazda &
Spanakis (2025) publish, scored by ``crows-pairs --predictions FILE`` (the ``crows-results`` reader),
beside the numbers the authors' ``mlm_metric.py`` prints for the same file.

The reference here is a straightforward reading of ``mlm_metric.py``'s counting, written in the test
from the file's own columns: a pair is neutral when its two (3-decimal) scores are equal; otherwise it
counts for its direction, and is a win when ``sent_more`` scores higher. Metric score = wins / N
(ties in N), stereotype score = stereo wins / non-tied stereo pairs, anti-stereotype alike, and each
bias type's score = its wins / its non-tied pairs. The file's own ``score`` column (the authors'
pair outcome) must agree with the wins. Ours: the run's summary. Our per-category score keeps ties in
N (Nangia et al.'s metric score on the category's pairs), theirs does not: the two are equal where a
category has no tie and differ by that share where it has one, which the test checks too.
"""

from __future__ import annotations

import csv
import io
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from biasatlas.benchmarks.crows_pairs.benchmark import CrowsPairs
from biasatlas.scorers.predictions.scorer import from_file
from shared_data import REPO_ROOT, shared_data_dir

pytestmark = pytest.mark.slow  # each row scores a whole published file

DATA = shared_data_dir() / "crows-pairs-nl"
RESULTS = DATA / "results" / "results_mlms"
PAGE = REPO_ROOT / "docs" / "published.md"
#: docs/published.md's name of each file's model, the file, and the dataset it was scored on.
ROWS = {"RobBERT v2": ("dutch_mlms/results_robbert.csv", "nl"), "BERTje": ("dutch_mlms/results_bertje.csv", "nl"),
        "mBERT": ("dutch_mlms/results_mbert.csv", "nl"), "BERT base uncased": ("eng_mlms/results_bert.csv", "en"),
        "RoBERTa large": ("eng_mlms/results_roberta.csv", "en"),
        "CamemBERT base": ("french_mlms/results_camembert.csv", "fr"),
        "FlauBERT base uncased": ("french_mlms/results_flaubert.csv", "fr")}
DATASETS = {"en": DATA / "datasets" / "crows_eng.csv", "fr": DATA / "datasets" / "crows_french.csv"}


@pytest.fixture(autouse=True)
def _shared(isolated_run: Path) -> None:
    """The benchmark reads the shared data."""


def _theirs(path: Path) -> dict[str, Any]:
    """mlm_metric.py's printed numbers for a results file, counted from its columns."""
    raw = path.read_bytes()
    text = raw.decode("mac_roman") if path.parent.name == "dutch_mlms" else raw.decode("utf-8")
    delimiter = ";" if text.split("\n", 1)[0].count(";") > 2 else ","
    rows = list(csv.DictReader(io.StringIO(text, newline=None), delimiter=delimiter))
    wins = {"stereo": 0, "antistereo": 0}
    counted = {"stereo": 0, "antistereo": 0}
    by_type: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # wins, non-tied pairs
    neutral = 0
    for row in rows:
        more, less = float(row["sent_more_score"]), float(row["sent_less_score"])
        assert row["score"] == ("1" if more > less else "0")  # their pair outcome is the comparison
        if more == less:
            neutral += 1
            continue
        direction = row["stereo_antistereo"]
        counted[direction] += 1
        by_type[row["bias_type"]][1] += 1
        if more > less:
            wins[direction] += 1
            by_type[row["bias_type"]][0] += 1
    n = len(rows)
    return {"n": n, "metric": round(100 * (wins["stereo"] + wins["antistereo"]) / n, 2),
            "stereo": round(100 * wins["stereo"] / counted["stereo"], 2),
            "anti": round(100 * wins["antistereo"] / counted["antistereo"], 2), "neutral": neutral,
            "by_type": {k: round(100 * w / c, 2) for k, (w, c) in by_type.items()},
            "ties_by_type": {k: sum(1 for r in rows if r["bias_type"] == k
                                    and float(r["sent_more_score"]) == float(r["sent_less_score"])) for k in by_type}}


def _ours(file: str, dataset: str) -> dict[str, Any]:
    bench = CrowsPairs(dataset="nl") if dataset == "nl" else CrowsPairs(data=DATASETS[dataset])
    scorer = from_file(predictions=RESULTS / file)
    bound = bench.bind(scorer.info)
    items = bound.load()
    probes = bound.probes(items)
    join = scorer.join(probes)
    assert (join.missing, join.unreadable, join.extra) == ((), (), ())
    written: dict[str, Any] = bound.score(items, scorer.score(probes)).written()
    return written


@pytest.mark.parametrize("model", sorted(ROWS))
def test_published_row(model: str) -> None:
    file, dataset = ROWS[model]
    theirs, ours = _theirs(RESULTS / file), _ours(file, dataset)
    assert ours["n"] == theirs["n"] == 1463 and ours["neutral"] == theirs["neutral"]
    got = [round(ours[k], 2) for k in ("metric_score", "stereo_score", "antistereo_score")]
    assert got == [theirs["metric"], theirs["stereo"], theirs["anti"]]
    for category, score in theirs["by_type"].items():
        entry = ours["by_category"][category]
        ties = theirs["ties_by_type"][category]
        # ours keeps the category's ties in N: scaled back to non-tied pairs it is theirs
        assert entry["n"] - ties > 0
        assert round(entry["score"] * entry["n"] / (entry["n"] - ties), 2) == score, category
        assert (round(entry["score"], 2) == score) is (ties == 0), category
    row = _page_row(model)
    assert row[1] == dataset
    assert row[2] == row[3] == " / ".join(f"{v:.2f}" for v in got) + f" / {theirs['neutral']}"


def _page_row(model: str) -> list[str]:
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in PAGE.read_text(encoding="utf-8").splitlines()
            if line.startswith(f"| {model} |")]
    assert len(rows) == 1, model
    return rows[0]


def test_page_lists_the_seven_files_and_no_paper_number_as_ours() -> None:
    section = PAGE.read_text(encoding="utf-8").split("## Dutch CrowS-Pairs", 1)[1].split("\n## ", 1)[0]
    assert sorted(re.findall(r"^\| ([^|]+?) \| (?:nl|en|fr) \|", section, re.M)) == sorted(ROWS)
