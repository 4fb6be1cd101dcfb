"""``biasatlas run stereoset``: its flags reach the benchmark, and the run folder records them."""

from __future__ import annotations

import pytest

import json
from pathlib import Path

from typer.testing import CliRunner

from biasatlas.cli import app
from shared_data import shared_data_dir

DEV = shared_data_dir() / "stereoset" / "dev.json"


@pytest.mark.slow  # about a second: the full suite runs it, the fast loop does not
def test_run_records_split_task_length_and_sample(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("BIASATLAS_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["run", "stereoset", "--model", "fake", "--data", str(DEV), "--task",
                                      "intersentence", "--length", "sum", "--sample", "7", "--seed", "4",
                                      "--n-resamples", "30", "--out", str(out)])
    assert result.exit_code == 0, result.output
    config = json.loads((out / "config.json").read_text())["benchmark"]
    assert (config["task"], config["length"], config["reading"], config["sample"], config["seed"]) == (
        "intersentence", "sum", "sequence-sum", 7, 4)
    items = [json.loads(line) for line in (out / "items.jsonl").read_text().splitlines()]
    assert len(items) == 7 and {i["task"] for i in items} == {"intersentence"}
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary["tasks"]) == {"intersentence"} and summary["n"] == 7


def test_an_unknown_task_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["run", "stereoset", "--model", "fake", "--data", str(DEV), "--task", "both-ish",
                                      "--out", str(tmp_path / "run")])
    assert result.exit_code == 2 and "both-ish" in result.output
