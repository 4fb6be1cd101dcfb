"""``biasatlas run seat`` / ``run weat``: flags reach the benchmark, the run folder records them, and
the report shows the table, the forest plot of d and the Delobelle et al. caveat."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from biasatlas.cli import app

pytestmark = pytest.mark.slow  # whole runs through the command line, with a tiny model or the word2vec words


@pytest.fixture
def env(tmp_path: Path, monkeypatch, shared_data):
    monkeypatch.setenv("BIASATLAS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("BIASATLAS_DATA_DIR", str(shared_data))
    return tmp_path


def _read(out: Path):
    config = json.loads((out / "config.json").read_text())["benchmark"]
    items = [json.loads(line) for line in (out / "items.jsonl").read_text().splitlines()]
    return config, items, json.loads((out / "summary.json").read_text())


def test_seat_records_tests_pooling_and_seed_and_reports_a_forest_plot(env, tiny_bert):
    out = env / "run"
    result = CliRunner().invoke(app, ["run", "seat", "--model", str(tiny_bert), "--scorer", "encoder", "--tests",
                                      "weat6,sent-weat9", "--pooling", "first", "--seed", "3", "--n-resamples", "30",
                                      "--out", str(out)])
    assert result.exit_code == 0, result.output
    config, items, summary = _read(out)
    assert (config["tests"], config["pooling"], config["seed"]) == (["weat6", "sent-weat9"], "first", 3)
    assert [i["test"] for i in items] == ["weat6", "sent-weat9"] and summary["pooling"] == "first"
    assert items[0]["p_method"] == "exact" and items[1]["p_method"] == "sampled" and items[1]["p_mc_error"] > 0
    page = env / "report.html"
    shown = CliRunner().invoke(app, ["report", str(out), "--out", str(page)])
    assert shown.exit_code == 0, shown.output
    html = page.read_text(encoding="utf-8")
    assert "Effect sizes per test with 95% intervals" in html and "Delobelle" in html and "sent-weat9" in html


def test_weat_with_lowercase_reports_oov_words(env, shared_data):
    out = env / "weat"
    result = CliRunner().invoke(app, ["run", "weat", "--model", str(shared_data / "weat/weat_w2v.txt"), "--scorer",
                                      "word-vectors", "--tests", "weat2,weat3", "--lowercase", "--n-resamples", "20",
                                      "--n-samples", "5000", "--out", str(out)])
    assert result.exit_code == 0, result.output
    config, items, summary = _read(out)
    assert config["lowercase"] is True and summary["oov_words"][:1] == ["Alonzo"] and "axe" in summary["oov_words"]
    shown = CliRunner().invoke(app, ["report", str(out), "--format", "md"])
    assert shown.exit_code == 0, shown.output
    text = " ".join(shown.output.split())  # the terminal may wrap the notice's line
    assert "out of vocabulary, left out of their tests: Alonzo" in text and "| 1 |" in text


def test_a_likelihood_scorer_is_a_clear_refusal(env, tiny_bert, capsys):
    from biasatlas import cli

    with pytest.raises(SystemExit) as exited:
        cli.main(["run", "seat", "--model", str(tiny_bert), "--scorer", "masked-lm", "--tests", "weat6",
                  "--out", str(env / "run")])
    error = capsys.readouterr().err
    assert exited.value.code != 0 and "--scorer encoder" in error and "Traceback" not in error
