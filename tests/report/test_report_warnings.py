"""A run's warnings reach every report format: the census occupation-free baseline warning
(the README calls it "the point") was in the terminal and summary.json only."""

from __future__ import annotations

import json

import pytest

from biasatlas.benchmarks.census.view import census_notices
from biasatlas.errors import DataError
from biasatlas.report import build_report, load_run, render
from report_fixtures import census_run

WARNING = ("identifier priors alone give a 64.2 % female share (occupation-free baseline, outside 45–55); "
           "'søstrene' holds 62 % of its templates' mass")
SCORES = {"normative": 40.0, "descriptive": 40.0, "descriptive_by_class": {"female": 10.0, "male": 20.0,
                                                                           "balanced": 10.0}}


def _run(tmp_path, name, reading, warnings=(WARNING,)):
    return load_run(census_run(tmp_path / name, model=f"model-{name}",
                               scores={**SCORES, "warnings": list(warnings), "causal_reading": reading}))


@pytest.mark.parametrize(("reading", "says"), [("conditional", "No action needed for this run"),
                                               ("joint", "Interpret with care"), (None, "Interpret with care")])
def test_each_warning_says_whether_the_run_needs_action(tmp_path, reading, says):
    (notice,) = census_notices(_run(tmp_path, "a", reading))
    assert notice.startswith("Warning: Identifier priors alone give a 64.2 % female share")
    assert says in notice
    assert census_notices(_run(tmp_path, "b", reading, warnings=())) == ()  # no warning, no notice


def test_the_baseline_warning_reaches_every_format(tmp_path):
    warned, clean = _run(tmp_path, "joint", "joint"), _run(tmp_path, "clean", "conditional", warnings=())
    report = build_report([warned, clean], compare=False)
    html, md, latex = render(report, "html"), render(report, "md"), render(report, "latex")
    doc = json.loads(render(report, "json"))
    assert "søstrene" in html and 'class="warn" role="note">Warning: Identifier priors' in html
    assert "> **Warning: Identifier priors alone give a 64.2" in md
    assert [len(r["notices"]) for r in doc["runs"]] == [1, 0]
    assert "Identifier priors alone give a 64.2" in latex
    import csv
    import io

    rows = list(csv.DictReader(io.StringIO(render(report, "csv"))))
    warned_rows = [r for r in rows if r["notices"].startswith("Warning: Identifier priors alone give a 64.2")]
    # once, on a row of its own (issue 40: the CSV repeated it on every metric row of the run)
    assert [(r["run"], r["metric"]) for r in warned_rows] == [(warned.label, "notice")]
    assert [r["notices"] for r in rows if r["metric"] != "notice"] == [""] * (len(rows) - 1)
    # the leaderboard marks the warned run only, and its caption says what the mark means
    (board,) = report.leaderboard
    labels = [row[0] for row in board.rows]
    assert sum(str(label).endswith(" †") for label in labels) == 1
    assert any(str(label) == f"{warned.label} †" for label in labels)
    assert "† the run's own section carries a warning" in board.caption


def test_a_malformed_warnings_field_names_the_field(tmp_path):
    folder = census_run(tmp_path / "bad", scores={**SCORES, "warnings": "not a list"})
    with pytest.raises(DataError, match="warnings"):
        census_notices(load_run(folder))
