"""A CrowS-Pairs run whose interval does not hold its score is refused when the run is
read, naming file and field (issue 21, item 10): the HTML report's category plot drew
the interval as arms from the score and stopped inside matplotlib ("'xerr' must not
contain negative values")."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from biasatlas.errors import DataError
from biasatlas.report import build_report, load_runs, render_html
from report_fixtures import crows_run


def _edit_summary(folder: Path, edit) -> None:
    path = folder / "summary.json"
    summary = json.loads(path.read_text(encoding="utf-8"))
    edit(summary)
    path.write_text(json.dumps(summary), encoding="utf-8")


def _metric_outside(s: dict) -> None:
    s["intervals"]["metric_score"] = [s["metric_score"] + 10, s["metric_score"] + 20]


def _category_outside(s: dict) -> None:
    s["by_category"]["gender"]["ci"] = [0.0, s["by_category"]["gender"]["score"] - 5]


def _backwards(s: dict) -> None:
    low, high = s["intervals"]["stereo_score"]
    s["intervals"]["stereo_score"] = [high, low]


CASES = [(_metric_outside, "intervals.metric_score", "does not hold its score"),
         (_category_outside, "by_category.gender.ci", "does not hold its score"),
         (_backwards, "intervals.stereo_score", "runs backwards")]


@pytest.mark.parametrize("edit,field,words", CASES, ids=["metric", "category", "backwards"])
def test_an_interval_that_leaves_out_its_score_is_refused_on_load(tmp_path, edit, field, words):
    folder = crows_run(tmp_path / "run")
    _edit_summary(folder, edit)
    with pytest.raises(DataError) as info:
        load_runs([folder])
    assert (Path(str(info.value.path)), info.value.field) == (folder / "summary.json", field)
    assert words in str(info.value)


def test_a_wilson_interval_a_hair_inside_100_percent_still_reads_and_draws(tmp_path):
    # 12 of 12 pairs "more": the score is 100, and statsmodels' Wilson upper end came out
    # 99.99999999999999 before stats.wilson pinned it to the estimate. Run folders written then
    # hold that floating-point noise, not damage: they load, and the plot (which stopped on it
    # with the same matplotlib error) draws.
    folder = crows_run(tmp_path / "run", outcomes=["more"] * 12)
    summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    assert summary["metric_score"] == 100.0 and summary["intervals"]["metric_score"][1] == 100.0
    _edit_summary(folder, lambda s: s["intervals"]["metric_score"].__setitem__(1, 99.99999999999999))
    (run,) = load_runs([folder])
    assert "<svg" in render_html(build_report([run], compare=False))


@pytest.mark.slow  # about a second: the full suite runs it, the fast loop does not
def test_the_report_command_says_so_in_one_line(tmp_path):
    folder = crows_run(tmp_path / "run")
    _edit_summary(folder, _category_outside)
    out = tmp_path / "report.html"
    done = subprocess.run([sys.executable, "-m", "biasatlas", "report", str(folder), "--out", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert str(folder / "summary.json") in lines[0] and "by_category.gender.ci" in lines[0]
    assert not out.exists()
