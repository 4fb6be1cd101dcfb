"""``biasatlas run winogender`` and ``biasatlas run winobias``: their flags reach the benchmarks, the run
folders record them, and the generic report (leaderboard, plots, paired comparison) reads them."""

from __future__ import annotations

import pytest

import json
from pathlib import Path

from typer.testing import CliRunner

from biasatlas.cli import app
from shared_data import shared_data_dir

DATA = shared_data_dir()


def _run(tmp_path: Path, monkeypatch, name: str, *flags: str) -> Path:
    monkeypatch.setenv("BIASATLAS_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / name
    result = CliRunner().invoke(app, ["run", *flags, "--model", "fake", "--n-resamples", "30", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def test_winogender_run_records_data_and_sample(tmp_path: Path, monkeypatch) -> None:
    out = _run(tmp_path, monkeypatch, "wg", "winogender", "--data", str(DATA / "winogender"), "--sample", "9",
               "--seed", "2")
    config = json.loads((out / "config.json").read_text())["benchmark"]
    assert (config["sample"], config["seed"], config["reading"]) == (9, 2, "sentence-likelihood")
    assert len((out / "items.jsonl").read_text().splitlines()) == 9


def test_winobias_run_records_types_and_split(tmp_path: Path, monkeypatch) -> None:
    out = _run(tmp_path, monkeypatch, "wb", "winobias", "--data", str(DATA / "winobias"), "--types", "2", "--split",
               "dev", "--limit", "5")
    config = json.loads((out / "config.json").read_text())["benchmark"]
    assert (config["types"], config["split"], config["limit"]) == ("2", "dev", 5)
    assert set(json.loads((out / "summary.json").read_text())["sets"]) == {"type2-dev"}


def test_an_unknown_split_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["run", "winobias", "--model", "fake", "--split", "train",
                                      "--out", str(tmp_path / "run")])
    assert result.exit_code == 2 and "train" in result.output


@pytest.mark.slow  # about a second: the full suite runs it, the fast loop does not
def test_the_report_compares_two_runs_of_each(tmp_path: Path, monkeypatch) -> None:
    runs = [_run(tmp_path, monkeypatch, f"{name}{seed}", name, "--data", str(DATA / name), "--limit", "6", "--seed",
                 str(seed)) for name in ("winogender", "winobias") for seed in (0, 1)]
    page = tmp_path / "report.md"
    result = CliRunner().invoke(app, ["report", *map(str, runs), "--compare", "--out", str(page)])
    assert result.exit_code == 0, result.output
    text = page.read_text()
    assert "**Winogender**" in text and "**WinoBias**" in text  # the leaderboards
    assert "female share (%)" in text and "% pro preferred" in text  # each paired test
    html = tmp_path / "report.html"
    assert CliRunner().invoke(app, ["report", *map(str, runs), "--out", str(html)]).exit_code == 0
    assert html.read_text().count("<svg") >= 4  # each run's plot
