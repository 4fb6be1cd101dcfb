"""How a run is named in every table, plot and BibTeX entry (issue 22 item 3): the label it was
given (``run --label``, ``report --label DIR=NAME``), else its model, a local folder by its base
name, and beside it only the setting its benchmark names (CrowS-Pairs' variant; a census run's
scorer variant means nothing there)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import biasatlas
from biasatlas.cli import app
from biasatlas.runs.view import model_name
from biasatlas.errors import UsageError
from biasatlas.report import load_runs
from report_fixtures import census_run, crows_run, zh_run


@pytest.mark.parametrize(("model", "shown"), [
    ("/home/me/models/bert-debiased", "bert-debiased"), ("./runs/../ckpt-3", "ckpt-3"), ("../ckpt/", "ckpt"),
    ("almanach/camembert-base", "almanach/camembert-base"), ("gemma-3-270m", "gemma-3-270m"),
    ("C:\\models\\bert", "bert")])
def test_a_local_folder_is_named_by_its_base_name_a_hub_id_as_written(model, shown):
    assert model_name(model) == shown


def _set_summary(folder, **values):
    path = folder / "summary.json"
    summary = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**summary, **values}), encoding="utf-8")
    return folder


def test_each_benchmark_shows_only_the_setting_it_names(tmp_path):
    crows = _set_summary(crows_run(tmp_path / "c", model="/data/ckpt/bert-x"), variant="nangia")
    census = _set_summary(census_run(tmp_path / "n", model="/data/ckpt/bert-x"), variant="nangia")
    zh = _set_summary(zh_run(tmp_path / "z"), variant="nangia")
    labels = {v.benchmark: v.label for v in load_runs([crows, census, zh])}
    assert labels == {"crows-pairs": "bert-x (nangia)", "census": "bert-x", "zh-neutral": "bert-base-chinese"}
    causal = _set_summary(census_run(tmp_path / "k", model="/data/ckpt/gpt-x"), causal_reading="conditional")
    assert load_runs([causal])[0].label == "gpt-x (conditional)"


def test_a_given_label_wins_and_twins_still_differ_by_folder(tmp_path):
    a = _set_summary(crows_run(tmp_path / "a"), label="CamemBERT, debiased")
    b = crows_run(tmp_path / "b")
    c = crows_run(tmp_path / "c")
    assert [v.label for v in load_runs([a, b, c])] == [
        "CamemBERT, debiased", "almanach/camembert-base [b]", "almanach/camembert-base [c]"]


def test_report_label_names_a_folder_by_any_path_to_it(tmp_path, monkeypatch):
    a, b = crows_run(tmp_path / "a"), crows_run(tmp_path / "b", model="m2")
    monkeypatch.chdir(tmp_path)
    views = load_runs([a, b], labels=["a=before (lr=1e-5)", f"{b}=after"])
    assert [v.label for v in views] == ["before (lr=1e-5)", "after"]


@pytest.mark.parametrize(("labels", "says"), [
    (["nowhere=x"], "not one of the run folders given"), (["a"], "takes DIR=NAME"), (["a="], "takes DIR=NAME"),
    (["=x"], "takes DIR=NAME")])
def test_a_label_for_no_folder_or_without_a_name_is_refused(tmp_path, labels, says):
    a = crows_run(tmp_path / "a")
    with pytest.raises(UsageError, match=says):
        load_runs([a], labels=[text.replace("a=", f"{a}=", 1) if text.startswith("a") else text for text in labels])


def test_the_report_command_takes_labels(tmp_path):
    a, b = crows_run(tmp_path / "a"), crows_run(tmp_path / "b", model="m2")
    done = CliRunner().invoke(app, ["report", str(a), str(b), "--label", f"{a}=Model A", "--label", f"{b}=Model B"])
    assert done.exit_code == 0, done.output
    assert "Model A" in done.output and "Model B" in done.output and "camembert" not in done.output.split("##")[1]


def test_a_run_given_a_label_keeps_it_in_its_folder(isolated_run):
    out = isolated_run / "run"
    run = biasatlas.evaluate("crows-pairs", model="fake", dataset="fr", limit=4, out=out, cache=False,
                             progress=False, label="  my model  ")
    assert run.summary_dict["label"] == "my model"
    assert load_runs([out])[0].label == "my model"
    with pytest.raises(UsageError, match="one line of text"):
        biasatlas.evaluate("crows-pairs", model="fake", dataset="fr", limit=4, cache=False, progress=False,
                           label="two\nlines")


def test_a_local_model_is_cited_by_its_folder_name_not_where_it_sat(tmp_path):
    from biasatlas.report import build_report, render

    folder = crows_run(tmp_path / "a", model="/home/someone/private/bert-debiased")
    bib = render(build_report(load_runs([folder]), compare=False), "bibtex")
    assert "title = {{bert-debiased}}" in bib and "/home/someone" not in bib
