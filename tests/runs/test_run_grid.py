"""``biasatlas run A,B -m X,Y --out DIR`` (issue 40, item 11): several benchmarks on several models
without a suite file, run as the suite of that grid, whose suite.toml reruns it."""

from __future__ import annotations

import json
import tomllib

import pytest
from typer.testing import CliRunner

from biasatlas.suite import grid_suite, read_suite


@pytest.fixture(autouse=True)
def _isolated(monkeypatch, tmp_path, shared_data):
    monkeypatch.setenv("BIASATLAS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("BIASATLAS_DATA_DIR", str(shared_data))
    monkeypatch.chdir(tmp_path)


def _cli(*args: str):
    from biasatlas.cli import app

    return CliRunner().invoke(app, ["run", *args])


def test_the_grid_is_every_benchmark_on_every_model_with_the_flags_as_defaults(tmp_path, tiny_gpt2):
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "mine").symlink_to(tiny_gpt2)  # a model given by a path relative to here
    suite = grid_suite(["winogender", "crows-pairs"], ["fake", "./models/mine"], {"batch_size": 8}, tmp_path / "g")
    assert [c.folder for c in suite.cells] == ["winogender__fake", "winogender__mine", "crows-pairs__fake",
                                               "crows-pairs__mine"]
    assert {c.request.model.batch_size for c in suite.cells} == {8}
    written = tomllib.loads(suite.text)
    assert written["out"] == "." and written["defaults"] == {"batch_size": 8}
    assert [m["id"] for m in written["model"]] == ["fake", str(tmp_path / "models" / "mine")]  # made absolute


@pytest.mark.slow  # two fake runs (Winogender's 720 sentences, 40 of CrowS-Pairs' pairs… all of them): seconds
def test_run_with_two_benchmarks_writes_a_suite_that_reruns_it(tmp_path):
    done = _cli("winogender,crows-pairs", "-m", "fake", "--out", "grid", "--batch-size", "16")
    assert done.exit_code == 0, done.output
    out = tmp_path / "grid"
    assert {p.name for p in out.iterdir()} >= {"winogender__fake", "crows-pairs__fake", "report.html", "suite.toml"}
    assert (out / "winogender__fake" / "summary.json").is_file()
    again = read_suite(out / "suite.toml")  # the copy is a suite file of its own, its out the folder it is in
    assert again.out == out and [c.folder for c in again.cells] == ["winogender__fake", "crows-pairs__fake"]
    rerun = _cli("winogender,crows-pairs", "-m", "fake", "--out", "grid", "--batch-size", "16")
    assert rerun.exit_code == 0 and rerun.output.count("finished earlier with the same settings, skipped") == 2


def test_an_unknown_benchmark_in_the_list_is_named():
    done = _cli("crows-pairs,winogendr", "-m", "fake", "--out", "x")
    assert done.exit_code != 0 and "winogender" in str(done.exception or done.output)


@pytest.mark.slow  # four fake runs: seconds
def test_a_suite_loads_each_model_once_whatever_the_number_of_benchmarks(tmp_path, monkeypatch):
    from biasatlas.request import ModelOptions
    from biasatlas.suite import run_suite

    built: list[str] = []
    real = ModelOptions.build

    def counting(self):
        built.append(self.model)
        return real(self)

    monkeypatch.setattr(ModelOptions, "build", counting)
    suite = grid_suite(["winogender", "winobias"], ["fake"], {"batch_size": 4}, tmp_path / "g")
    other = grid_suite(["winogender", "winobias"], ["fake"], {"batch_size": 8}, tmp_path / "h")
    result = run_suite(suite, progress=False)
    assert built == ["fake"] and len(result.ran) == 2  # before: one load per cell
    run_suite(other, progress=False)
    assert built == ["fake", "fake"]


@pytest.mark.parametrize("claimed", [True, False], ids=["claimed", "unclaimed"])
def test_a_grid_never_replaces_a_suite_toml_it_did_not_write_there(tmp_path, claimed):
    # A hand-written suite file in its own output folder (out = "."), run there before (or not): the
    # grid's suite copy has the same path, so its claim must not take the folder for its own.
    out = tmp_path / "grid"
    out.mkdir()
    mine = 'out = "."\n[[benchmark]]\nname = "winogender"\n[[model]]\nid = "fake"\n'
    (out / "suite.toml").write_text(mine, encoding="utf-8")
    if claimed:
        (out / ".biasatlas-suite.json").write_text(json.dumps({"suite": str((out / "suite.toml").resolve())}),
                                                   encoding="utf-8")
    done = _cli("winogender,crows-pairs", "-m", "fake", "--out", "grid")
    assert done.exit_code != 0
    assert "suite" in str(done.exception or done.output)
    assert (out / "suite.toml").read_text(encoding="utf-8") == mine
    assert not (out / "winogender__fake").exists()


def test_a_grid_refuses_a_predictions_file_by_name(tmp_path):
    (tmp_path / "p.jsonl").write_text('{"id": "0", "scores": [-1.0, -2.0]}\n', encoding="utf-8")
    done = _cli("crows-pairs,winogender", "--predictions", "p.jsonl", "--out", "g")
    said = str(done.exception or "") + done.output
    assert done.exit_code != 0 and "--predictions" in said and "suite.toml" not in said, said
    assert not (tmp_path / "g").exists()
