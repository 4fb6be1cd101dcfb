"""Provenance a paper can cite (issue 40, item 10): the git commit biasatlas ran from in the
summary, the date in timing.json (the one file that may differ between a run and its resumption),
and which way each metric reads on every metric row of the CSV and JSON outputs."""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
from datetime import datetime

import pytest

from biasatlas.display.direction import HIGHER, LOWER, NEITHER, Direction, direction_of, toward
from biasatlas.report import build_report, render
from biasatlas.runs.load import load_run
from biasatlas.version import commit_of, source_commit

from report_fixtures import crows_run


def _git(root, *args):
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True).stdout.strip()


@pytest.mark.slow  # five git calls: about a second
def test_the_commit_is_read_from_a_checkout_with_its_local_changes(tmp_path):
    repo = tmp_path / "checkout"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "a.py").write_text("x = 1\n")
    _git(repo, "add", "a.py")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    head = _git(repo, "rev-parse", "HEAD")
    assert commit_of(repo) == {"biasatlas_commit": head, "biasatlas_modified": False}
    (repo / "a.py").write_text("x = 2\n")
    assert commit_of(repo) == {"biasatlas_commit": head, "biasatlas_modified": True}
    (repo / "new.py").write_text("")  # an untracked file is no change to the code that ran
    _git(repo, "checkout", "-q", "a.py")
    assert commit_of(repo)["biasatlas_modified"] is False
    assert commit_of(tmp_path / "not-a-checkout") == {}  # an installed wheel: nothing to record


@pytest.mark.slow  # a fake run over the English file (read, hashed, linted): seconds
def test_a_run_records_its_commit_in_the_summary_and_its_date_in_timing(isolated_run):
    import biasatlas

    run = biasatlas.evaluate("crows-pairs", dataset="en", limit=8, model="fake", cache=False,
                             progress=False, out="run")
    provenance = run.summary_dict["provenance"]
    found = source_commit()  # these tests run from the checkout
    assert found and provenance["biasatlas_commit"] == found["biasatlas_commit"]
    assert re.fullmatch(r"[0-9a-f]{40}", provenance["biasatlas_commit"])
    timing = json.loads((isolated_run / "run" / "timing.json").read_text())
    started, finished = (datetime.fromisoformat(timing[k]) for k in ("started_utc", "finished_utc"))
    assert started.utcoffset().total_seconds() == 0 and started <= finished
    summary = (isolated_run / "run" / "summary.json").read_text()
    assert timing["finished_utc"][:10] not in summary  # no date where a rerun must be byte-identical
    facts = dict(build_report([load_run(isolated_run / "run")], compare=False).runs[0].provenance.facts)
    assert facts["biasatlas commit"].startswith(provenance["biasatlas_commit"])
    assert "run date (UTC)" not in facts  # a report of a resumed run equals an uninterrupted one's
    assert "scorer scorer" not in facts and facts["scorer"] == "fake"


# -- which way a metric reads ------------------------------------------------------------------------
def test_a_direction_is_declared_by_name_or_by_family():
    declared = {"ss": toward(50), "lms": HIGHER, "category:": toward(50), "pair:": LOWER, "ties": NEITHER}
    assert direction_of("ss", declared) == Direction(None, 50.0)
    assert direction_of("category:gender", declared) == toward(50)
    assert direction_of("pair:他/她:mean_abs_b", declared) == LOWER  # the family is up to the first colon
    assert direction_of("icat", declared) is None and direction_of("other:x", declared) is None
    with pytest.raises(ValueError, match="nearer"):
        Direction(True, 50.0)


def test_every_metric_row_of_the_csv_and_json_says_which_way_it_reads(tmp_path):
    view = load_run(crows_run(tmp_path / "a"))
    report = build_report([view], compare=False)
    rows = {r["metric"]: r for r in csv.DictReader(io.StringIO(render(report, "csv")))}
    # CrowS-Pairs: a preference share is best at 50 (neither higher nor lower), ties describe
    assert (rows["metric_score"]["higher_is_better"], rows["metric_score"]["ideal"]) == ("", "50.0")
    assert (rows["neutral_percent"]["higher_is_better"], rows["neutral_percent"]["ideal"]) == ("", "")
    doc = json.loads(render(report, "json"))
    metrics = {m["metric"]: m for m in doc["runs"][0]["metrics"]}
    assert all("higher_is_better" in m and "ideal" in m for m in metrics.values())
    assert metrics["metric_score"]["ideal"] == 50.0 and metrics["metric_score"]["higher_is_better"] is None
