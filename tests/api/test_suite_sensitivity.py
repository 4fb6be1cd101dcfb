"""Suite cells with ``sensitivity`` and ``exclude_flagged`` (issue 27): checked as ``run`` checks
them, a sensitivity cell writes what ``run --sensitivity`` writes, the suite ranks the models per
perturbation, the dry run lists the planned runs, and a finished sensitivity cell is not rerun."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from biasatlas.request import ModelOptions, RunRequest
from biasatlas.sensitivity import UNPERTURBED, plan, ranking_stability, read
from biasatlas.suite import SuiteError, read_suite, run_suite

SUITE = """\
[[benchmark]]
name = "census"
country = "no"
sample = 3
sensitivity = "paraphrases"

[[benchmark]]
name = "crows-pairs"
dataset = "en"
limit = 30
exclude_flagged = true
sensitivity = "preambles"

[[model]]
label = "fake-a"
id = "fake"

[[model]]
label = "fake-b"
id = "fake"
"""
CELLS = ("census-no-paraphrases__fake-a", "census-no-paraphrases__fake-b",
         "crows-pairs-en-preambles-clean__fake-a", "crows-pairs-en-preambles-clean__fake-b")


@pytest.fixture(autouse=True)
def _isolated(monkeypatch, tmp_path, shared_data):
    monkeypatch.setenv("BIASATLAS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("BIASATLAS_DATA_DIR", str(shared_data))
    monkeypatch.chdir(tmp_path)


def _write(folder: Path, text: str) -> Path:
    path = folder / "suite.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _cli(*args: str):
    from biasatlas.cli import app

    return CliRunner().invoke(app, [*args])


def test_cells_plan_the_runs_run_sensitivity_plans(tmp_path):
    suite = read_suite(_write(tmp_path, SUITE))
    assert tuple(c.folder for c in suite.cells) == CELLS
    census = suite.cells[0]
    direct = plan(RunRequest("census", {"country": "no", "sample": 3}, ModelOptions(model="fake")), "paraphrases")
    assert [p.name for p in census.planned] == [p.name for p in direct]
    assert [p.request.recorded() for p in census.planned] == [p.request.recorded() for p in direct]
    crows = suite.cells[2]
    assert crows.run.exclude_flagged and all(p.request.exclude_flagged for p in crows.planned)


@pytest.mark.parametrize("edit,where,message", [
    (('sensitivity = "paraphrases"', 'sensitivity = "orders"'), "cell census-no-orders__fake-a",
     "census has no --sensitivity orders: it offers preambles, paraphrases, rules"),
    (('sensitivity = "paraphrases"', 'sensitivity = 3'), "[[benchmark]] 1 (census), key 'sensitivity'",
     "expected a sensitivity kind"),
    (('sensitivity = "paraphrases"', 'exclude_flagged = true'), "cell census-no-clean__fake-a",
     "exclude_flagged: census has no data lint"),
    (('exclude_flagged = true', 'exclude_flagged = "yes"'), "[[benchmark]] 2 (crows-pairs), key 'exclude_flagged'",
     "expected true or false"),
])
def test_a_bad_cell_setting_names_the_file_table_and_key(tmp_path, edit, where, message):
    path = _write(tmp_path, SUITE.replace(*edit))
    with pytest.raises(SuiteError) as err:
        read_suite(path)
    assert str(err.value).startswith(f"{path}: {where}: ") and message in str(err.value), str(err.value)


def test_the_dry_run_lists_each_sensitivity_run_and_the_clean_subset(tmp_path):
    result = _cli("suite", str(_write(tmp_path, 'out = "o"\n' + SUITE)), "--dry-run")
    assert result.exit_code == 0, result.output
    assert result.output.count("  sensitivity paraphrases: 4 runs (unperturbed, paraphrase-ansatt, "
                               "paraphrase-arbeider, paraphrase-jobb)\n") == 2
    assert result.output.count("  sensitivity preambles: 3 runs (unperturbed, preamble-language, "
                               "preamble-sentence)\n") == 2
    assert result.output.count("only the items the data lint finds nothing on (exclude_flagged)") == 2
    assert not (tmp_path / "o").exists()


@pytest.mark.slow  # about ten seconds: the full suite runs it, the fast loop does not
def test_a_sensitivity_cell_writes_what_run_sensitivity_writes_and_is_not_rerun(tmp_path):
    path = _write(tmp_path, SUITE)
    out = tmp_path / "out"
    first = run_suite(read_suite(path), out, progress=False)
    assert first.ran == CELLS and first.skipped == ()
    # The same requests through the command line's --sensitivity, into another folder.
    for args, cell in ((["census", "--country", "no", "--sample", "3", "--sensitivity", "paraphrases"], CELLS[0]),
                       (["crows-pairs", "--dataset", "en", "--limit", "30", "--exclude-flagged",
                         "--sensitivity", "preambles"], CELLS[2])):
        direct = tmp_path / f"direct-{cell}"
        done = _cli("run", *args, "-m", "fake", "--label", "fake-a", "--out", str(direct))
        assert done.exit_code == 0, done.output
        ours, theirs = read(out / cell), read(direct)
        assert [(e["name"], e["headlines"], e["flips"]) for e in ours["runs"]] == \
               [(e["name"], e["headlines"], e["flips"]) for e in theirs["runs"]]
        for e in ours["runs"]:
            assert (out / cell / e["name"] / "items.jsonl").read_bytes() == \
                   (direct / e["name"] / "items.jsonl").read_bytes()
    clean = read(out / CELLS[2])
    n_clean = sum(1 for _ in (out / CELLS[2] / UNPERTURBED / "items.jsonl").open())
    assert n_clean < 30 and all(e["flips"]["n"] == n_clean for e in clean["runs"][1:])  # every run: the clean items
    # The suite ranks the two models per perturbation, as `biasatlas report` over the cells does.
    rows = ranking_stability([read(out / c) for c in CELLS])
    assert {(r["benchmark"], r["perturbation"], r["n_models"]) for r in rows} == {
        ("census", p, 2) for p in ("paraphrase-ansatt", "paraphrase-arbeider", "paraphrase-jobb")} | {
        ("crows-pairs", p, 2) for p in ("preamble-language", "preamble-sentence")}
    stability = (out / "sensitivity.md").read_text(encoding="utf-8")
    assert "**Ranking stability" in stability and stability.count("**Sensitivity (") == 4
    assert any(t.title.startswith("Ranking stability") for t in first.tables)
    board = (out / "leaderboard.md").read_text(encoding="utf-8")
    assert "| fake-a |" in board and "Census leaderboard" in board  # the unperturbed runs, reported
    before = {c: (out / c / "sensitivity.json").read_bytes() for c in CELLS}

    again = run_suite(read_suite(path), out, progress=False)
    assert again.ran == () and again.skipped == CELLS
    assert {c: (out / c / "sensitivity.json").read_bytes() for c in CELLS} == before
    summary = out / CELLS[0] / "paraphrase-jobb" / "summary.json"
    summary.unlink()  # one run of one cell lost: that cell alone runs again, from the cache
    third = run_suite(read_suite(path), out, progress=False)
    assert third.ran == (CELLS[0],) and summary.is_file()
