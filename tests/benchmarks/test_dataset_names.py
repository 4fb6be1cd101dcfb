"""A run of shipped data records the dataset by its name, wherever the files were read from: WinoBias,
Winogender and StereoSet read through ``BIASATLAS_DATA_DIR`` recorded the absolute folder as their
dataset (report titles, summary.json's ``dataset``). The folder stays in the config (provenance)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from biasatlas.cli import app
from biasatlas.report import load_runs
from biasatlas.report.document import title_of
from shared_data import shared_data_dir

DATA = shared_data_dir()


@pytest.mark.slow  # a run each (a few seconds): the full suite runs them, the fast loop does not
@pytest.mark.parametrize("benchmark, flags, name", [
    ("winobias", ("--limit", "2"), "winobias"),
    ("winogender", ("--limit", "2"), "winogender"),
    ("stereoset", ("--limit", "2", "--task", "intrasentence"), "dev"),
])
def test_shipped_data_read_through_the_data_dir_is_named_not_located(tmp_path: Path, monkeypatch, benchmark, flags,
                                                                     name):
    monkeypatch.setenv("BIASATLAS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("BIASATLAS_DATA_DIR", str(DATA))
    out = tmp_path / benchmark
    done = CliRunner().invoke(app, ["run", benchmark, *flags, "--model", "fake", "--n-resamples", "20",
                                    "--out", str(out)])
    assert done.exit_code == 0, done.output
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["dataset"] == name
    assert str(DATA) in json.loads((out / "config.json").read_text(encoding="utf-8"))["benchmark"]["data"]
    run = load_runs([out])[0]
    assert str(DATA) not in title_of(run) and title_of(run).endswith(f" · {name}")


@pytest.mark.slow
def test_a_folder_of_the_users_is_still_its_dataset(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("BIASATLAS_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "wg"
    done = CliRunner().invoke(app, ["run", "winogender", "--data", str(DATA / "winogender"), "--limit", "2",
                                    "--model", "fake", "--n-resamples", "20", "--out", str(out)])
    assert done.exit_code == 0, done.output
    assert json.loads((out / "summary.json").read_text(encoding="utf-8"))["dataset"] == str(DATA / "winogender")
