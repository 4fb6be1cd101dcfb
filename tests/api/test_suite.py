"""Suites (biasatlas suite): the file is checked whole before any model loads, cells are run
folders, a rerun skips finished cells, and a suite killed part-way and run again ends with
the same run folders, report and leaderboard as one that was never interrupted.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from biasatlas.request import ModelOptions
from biasatlas.suite import SuiteError, read_suite

ROOT = Path(__file__).resolve().parents[2]
RUN_FILES = ("config.json", "items.jsonl", "skipped.jsonl", "summary.json")

FAKE_SUITE = """\
[defaults]
batch_size = 16

[[benchmark]]
name = "crows-pairs"
dataset = "fr"
lowercase = true
limit = 30

[[benchmark]]
name = "census"
country = "no"
sample = 3

[[model]]
id = "fake"
label = "fake-a"

[[model]]
id = "fake"
label = "fake-b"
"""


@pytest.fixture(autouse=True)
def _isolated(monkeypatch, tmp_path, shared_data):
    monkeypatch.setenv("BIASATLAS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("BIASATLAS_DATA_DIR", str(shared_data))
    monkeypatch.chdir(tmp_path)


def _suite_cli(*args: str):
    from biasatlas.cli import app

    return CliRunner().invoke(app, ["suite", *args])


def _write(folder: Path, text: str, name: str = "suite.toml") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


# -- the file ------------------------------------------------------------------------------------
def test_example_suite_is_valid():
    suite = read_suite(ROOT / "docs" / "example-suite.toml")
    assert [c.folder for c in suite.cells] == ["crows-pairs-fr__gemma-3-270m", "crows-pairs-fr__smollm2-135m",
                                               "census-no__gemma-3-270m", "census-no__smollm2-135m"]
    assert suite.out == ROOT / "runs" / "example-suite"
    assert {c.model.batch_size for c in suite.cells} == {64}


def test_cells_are_benchmarks_times_models(tmp_path):
    suite = read_suite(_write(tmp_path, FAKE_SUITE))
    assert [c.folder for c in suite.cells] == ["crows-pairs-fr__fake-a", "crows-pairs-fr__fake-b",
                                               "census-no__fake-a", "census-no__fake-b"]
    assert suite.cells[0].benchmark.limit == 30 and suite.cells[0].benchmark.lowercase is True
    assert suite.cells[2].benchmark.sample == 3
    assert suite.cells[1].model == ModelOptions(model="fake", batch_size=16)
    assert suite.out is None


@pytest.mark.parametrize("edit, message", [
    (("country = \"no\"", "country = \"no\"\nmethod = \"gebnlp2023\""),
     "[[benchmark]] 2 (census), key 'method': unknown value 'gebnlp2023'. Did you mean 'gebnlp2022'?"),
    (("lowercase = true", "lowercse = true"),
     "[[benchmark]] 1 (crows-pairs): unknown crows-pairs option 'lowercse'. Did you mean 'lowercase'?"),
    (("limit = 30", "limit = \"thirty\""), "[[benchmark]] 1 (crows-pairs), key 'limit': expected an integer"),
    (("name = \"census\"", "name = \"censsu\""), "[[benchmark]] 2: unknown benchmark 'censsu'. Did you mean 'census'?"),
    (("dataset = \"fr\"", "dataset = \"fr-FR\""), "[[benchmark]] 1 (crows-pairs): unknown dataset 'fr-FR'"),
    (("dataset = \"fr\"", "data = \"missing.tsv\""), "[[benchmark]] 1 (crows-pairs): file "),
    (("batch_size = 16", "batch_size = \"16\""), "[defaults], key 'batch_size': batch size '16' is neither a "
     "positive whole number nor 'auto'"),
    (("batch_size = 16", "batch_sise = 16"), "[defaults]: unknown model or engine option 'batch_sise'"),
    (("label = \"fake-b\"", "label = \"fake-a\""), "two cells would share the folder 'crows-pairs-fr__fake-a'"),
    (("id = \"fake\"\nlabel = \"fake-b\"", "id = \"./no-such-model\""),
     "[[model]] 2 (./no-such-model): model folder"),
    (("label = \"fake-b\"", "label = \"fake-b\"\nvariant = \"nangi\""),
     "[[model]] 2 (fake): unknown variant 'nangi'. Did you mean 'nangia'?"),
    (("[defaults]", "title = \"x\"\n[defaults]"), "unknown top-level key 'title'"),
    (("[defaults]", "[defaults"), "not valid TOML"),
])
def test_mistakes_name_the_file_table_and_key(tmp_path, edit, message):
    old, new = edit
    path = _write(tmp_path, FAKE_SUITE.replace(old, new, 1))
    with pytest.raises(SuiteError) as caught:
        read_suite(path)
    assert str(caught.value).startswith(f"{path}: ")
    assert message in str(caught.value)


def test_a_number_for_a_choice_spelled_as_digits_is_that_choice(tmp_path):
    # WinoBias's `types` choices are the text "1", "2", "both"; TOML's `types = 1` is a number.
    text = FAKE_SUITE + '\n[[benchmark]]\nname = "winobias"\ntypes = 1\nlimit = 2\n'
    suite = read_suite(_write(tmp_path, text))
    assert {c.benchmark.types for c in suite.cells if c.benchmark.name == "winobias"} == {"1"}
    with pytest.raises(SuiteError, match="key 'types': unknown value '3'"):
        read_suite(_write(tmp_path, text.replace("types = 1", "types = 3")))


def test_models_take_every_engine_option_checked_as_on_the_command_line(tmp_path):
    from biasatlas.request import EngineOptions

    ray = FAKE_SUITE.replace('label = "fake-b"', 'label = "fake-b"\nengine = "ray"\nworkers = 2\nworker_cpus = 2')
    suite = read_suite(_write(tmp_path, ray))
    assert suite.cells[0].request.engine == EngineOptions()
    assert suite.cells[1].request.engine == EngineOptions(engine="ray", workers=2, worker_cpus=2.0)
    with pytest.raises(SuiteError, match=r"\[\[model\]\] 2 \(fake\): workers must be a whole number of at least 1"):
        read_suite(_write(tmp_path, ray.replace("workers = 2", "workers = 0")))
    with pytest.raises(SuiteError, match=r"\[defaults\], key 'engine': unknown value 'rey'. Did you mean 'ray'"):
        read_suite(_write(tmp_path, FAKE_SUITE.replace("batch_size = 16", 'batch_size = 16\nengine = "rey"')))


def test_a_cell_whose_benchmark_cannot_read_its_scorer_fails_before_any_model_loads(tmp_path, tiny_bert):
    text = FAKE_SUITE.replace('sample = 3', 'sample = 3\ncausal_reading = "joint"') + (
        f'\n[[model]]\nid = "{tiny_bert}"\nlabel = "bert"\n')
    with pytest.raises(SuiteError, match="cell census-no__bert: causal reading 'joint' is for causal"):
        read_suite(_write(tmp_path, text))


def test_a_bad_last_cell_fails_before_the_first_model_loads(tmp_path, monkeypatch):
    loaded = []
    monkeypatch.setattr(ModelOptions, "build", lambda self: loaded.append(self.model))
    text = FAKE_SUITE + '\n[[benchmark]]\nname = "census"\ncountry = "no"\nidentifiers = "every"\n'
    result = _suite_cli(str(_write(tmp_path, text)), "--out", "out")
    assert isinstance(result.exception, SuiteError), result.output
    assert "[[benchmark]] 3 (census), key 'identifiers'" in str(result.exception)
    assert loaded == [] and not (tmp_path / "out").exists()


def test_no_output_folder_is_an_error(tmp_path):
    result = _suite_cli(str(_write(tmp_path, FAKE_SUITE)))
    assert isinstance(result.exception, SuiteError)
    assert "no output folder: pass --out DIR" in str(result.exception)


def test_dry_run_lists_the_cells_and_runs_nothing(tmp_path):
    result = _suite_cli(str(_write(tmp_path, 'out = "o"\n' + FAKE_SUITE)), "--dry-run")
    assert result.exit_code == 0, result.output
    folders = [line for line in result.output.splitlines() if "__" in line and not line.startswith(" ")]
    assert folders == ["crows-pairs-fr__fake-a", "crows-pairs-fr__fake-b", "census-no__fake-a", "census-no__fake-b"]
    # each cell with the options it sets and its work: limit 30 pairs; 3 occupations sampled
    assert "  crows-pairs: dataset='fr', lowercase=True, limit=30\n  model fake (fake): batch_size=16\n" \
           "  30 items, 30 probes\n" in result.output
    assert "  census: country='no', sample=3\n" in result.output and "  3 items, " in result.output
    assert not (tmp_path / "o").exists()


def test_paths_are_relative_to_the_suite_file(tmp_path, shared_data):
    sub = tmp_path / "suites"
    sub.mkdir()
    lines = (shared_data / "crows-pairs-fr" / "crows_pairs_FR.csv").read_text(encoding="utf-8").splitlines()
    (sub / "pairs.tsv").write_text("\n".join(lines[:11]) + "\n", encoding="utf-8")
    text = 'out = "../o"\n[[benchmark]]\nname = "crows-pairs"\ndata = "pairs.tsv"\n[[model]]\nid = "fake"\n'
    suite = read_suite(_write(sub, text))
    assert suite.out == tmp_path / "o"
    assert suite.cells[0].benchmark.data == sub / "pairs.tsv"
    assert suite.cells[0].folder == "crows-pairs__fake"  # no dataset or country: the name alone


# -- running ----------------------------------------------------------------------------------------
@pytest.mark.slow  # a subprocess or the full data: the full suite runs it, the fast loop does not
def test_fake_suite_runs_then_skips_then_refuses_other_settings(tmp_path):
    path = _write(tmp_path, FAKE_SUITE)
    first = _suite_cli(str(path), "--out", "out")
    assert first.exit_code == 0, first.output
    out = tmp_path / "out"
    cells = ["crows-pairs-fr__fake-a", "crows-pairs-fr__fake-b", "census-no__fake-a", "census-no__fake-b"]
    for cell in cells:
        assert (out / cell / "summary.json").is_file()
    assert (out / "suite.toml").read_text(encoding="utf-8") == FAKE_SUITE
    board = (out / "leaderboard.md").read_text(encoding="utf-8")
    assert "CrowS-Pairs leaderboard" in board and "Census leaderboard" in board
    assert "| fake-a |" in board and "| fake-b |" in board  # each [[model]]'s label names its runs
    assert json.loads((out / cells[0] / "summary.json").read_text(encoding="utf-8"))["label"] == "fake-a"
    assert (out / "report.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert "CrowS-Pairs leaderboard" in first.stdout  # printed too
    before = {cell: (out / cell / "summary.json").read_bytes() for cell in cells}

    again = _suite_cli(str(path), "--out", "out")
    assert again.exit_code == 0, again.output
    assert again.output.count("finished earlier with the same settings, skipped") == 4
    assert {cell: (out / cell / "summary.json").read_bytes() for cell in cells} == before
    assert (out / "leaderboard.md").read_text(encoding="utf-8") == board

    _write(tmp_path, FAKE_SUITE.replace("limit = 30", "limit = 20"))
    refused = _suite_cli(str(path), "--out", "out")
    assert "holds another run" in str(refused.exception)
    forced = _suite_cli(str(path), "--out", "out", "--force")
    assert forced.exit_code == 0, forced.output
    assert forced.output.count("skipped") == 2  # the census cells did not change


# -- killed and resumed -----------------------------------------------------------------------------
def _kill_suite(tiny_bert: Path, tiny_gpt2: Path) -> str:
    return f"""\
[defaults]
batch_size = 16

[[benchmark]]
name = "crows-pairs"
dataset = "fr"
lowercase = true
limit = 60

[[benchmark]]
name = "census"
country = "no"
sample = 5

[[model]]
id = "{tiny_bert}"
label = "bert"

[[model]]
id = "{tiny_gpt2}"
label = "gpt2"
"""


def _command(suite: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "biasatlas", "suite", str(suite), "--out", str(out)]


def _env(shared_data: Path, cache: Path) -> dict[str, str]:
    return {**os.environ, "BIASATLAS_DATA_DIR": str(shared_data), "BIASATLAS_CACHE_DIR": str(cache),
            "HF_HUB_OFFLINE": "1"}


def _run(command: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    return done


@pytest.mark.slow
def test_killed_suite_resumes_to_the_same_report(tmp_path, shared_data, tiny_bert, tiny_gpt2):
    suite = _write(tmp_path, _kill_suite(tiny_bert, tiny_gpt2))
    cells = ["crows-pairs-fr__bert", "crows-pairs-fr__gpt2", "census-no__bert", "census-no__gpt2"]
    clean = tmp_path / "clean"
    _run(_command(suite, clean), _env(shared_data, tmp_path / "clean-cache"))

    out, env = tmp_path / "killed", _env(shared_data, tmp_path / "cache")
    proc = subprocess.Popen(_command(suite, out), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 600
    while not (out / cells[0] / "summary.json").exists() and proc.poll() is None and time.time() < deadline:
        time.sleep(0.02)
    assert proc.poll() is None, "the suite finished before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert not (out / cells[-1] / "summary.json").exists() and not (out / "report.html").exists()

    resumed = _run(_command(suite, out), env)
    assert f"[1/4] {cells[0]}: finished earlier with the same settings, skipped" in resumed.stderr
    for cell in cells:
        for name in RUN_FILES:
            assert (out / cell / name).read_bytes() == (clean / cell / name).read_bytes(), f"{cell}/{name}"
    assert (out / "leaderboard.md").read_bytes() == (clean / "leaderboard.md").read_bytes()
    # The report names each run's folder (its provenance table): the only difference allowed.
    killed_html = (out / "report.html").read_text(encoding="utf-8").replace(str(out), "SUITE")
    clean_html = (clean / "report.html").read_text(encoding="utf-8").replace(str(clean), "SUITE")
    assert killed_html == clean_html


def test_a_packaged_model_whose_package_is_missing_fails_the_dry_run(tmp_path, monkeypatch):
    from importlib import metadata

    from biasatlas.scorers.inprocess import packaged

    def missing(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(packaged, "_find_distribution", missing)
    text = 'out = "o"\n[[benchmark]]\nname = "crows-pairs"\n[[model]]\nid = "fake"\n[[model]]\nid = "smollm2-135m"\n'
    result = _suite_cli(str(_write(tmp_path, text)), "--dry-run")
    assert isinstance(result.exception, SuiteError), result.output
    assert "[[model]] 2 (smollm2-135m)" in str(result.exception)
    assert packaged.PACKAGED_MODELS["smollm2-135m"].install_command in str(result.exception)


def test_each_cell_carries_its_models_label_and_a_blank_label_is_refused(tmp_path):
    suite = read_suite(_write(tmp_path, 'out = "o"\n' + FAKE_SUITE))
    assert [c.label for c in suite.cells] == ["fake-a", "fake-b", "fake-a", "fake-b"]
    text = 'out = "o"\n[[benchmark]]\nname = "crows-pairs"\n[[model]]\nid = "fake"\nlabel = "  "\n'
    with pytest.raises(SuiteError, match="key 'label'.*one line of text"):
        read_suite(_write(tmp_path, text))
