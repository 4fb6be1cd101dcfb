"""What a run is handed, and where it writes (issue 21, item 14 in part).

Before: ``--data /dev/null`` and a suite's ``data = "."`` were "no such file"; a run with
``--data pairs.csv`` could not be resumed from another working folder (the folder's
recorded request names the file as typed, and a rerun naming it ``../a/pairs.csv`` was
"another run"); a folder holding only dot-files was taken for empty and written into; and
the census named Python arguments and a file inside the installed package to edit.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

import biasatlas
from biasatlas.errors import DataError, MissingInput
from biasatlas.runs.folder import RunFolderError
from biasatlas.suite import SuiteError, read_suite


@pytest.fixture(autouse=True)
def _isolated(monkeypatch, tmp_path, shared_data):
    monkeypatch.setenv("BIASATLAS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("BIASATLAS_DATA_DIR", str(shared_data))
    monkeypatch.chdir(tmp_path)


def _pairs(path: Path, shared_data: Path, n: int = 5) -> Path:
    """The first ``n`` English CrowS-Pairs rows, as a file of our own."""
    source = shared_data / "crows-pairs-en" / "crows_pairs_anonymized.csv"
    with source.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        rows = [r for _, r in zip(range(n), reader)]
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def _run(**options):
    return biasatlas.evaluate("crows-pairs", model="fake", progress=False, **options)


# -- data files that are not files ------------------------------------------------------------------
@pytest.mark.parametrize(("data", "says"), [("/dev/null", "is not a regular file"),
                                            (".", "is a folder, not a data file")])
def test_data_that_is_no_regular_file_says_what_it_is(data, says):
    for benchmark, option in (("crows-pairs", "data"), ("zh-neutral", "data"), ("census", "census")):
        with pytest.raises(MissingInput, match=says):
            biasatlas.evaluate(benchmark, model="fake", progress=False, cache=False, **{option: data})


def test_a_census_inflections_file_that_is_a_device_says_so(tmp_path):
    table = tmp_path / "table.csv"
    table.write_text("occupation,female_pct\nNurses,90\n", encoding="utf-8")
    with pytest.raises(MissingInput, match="is not a regular file"):
        biasatlas.evaluate("census", census=table, inflections="/dev/null", model="fake", progress=False,
                           cache=False)


def test_a_suites_data_folder_says_it_is_a_folder(tmp_path):
    path = tmp_path / "suite.toml"
    path.write_text('[[benchmark]]\nname = "crows-pairs"\ndata = "."\n\n[[model]]\nid = "fake"\n',
                    encoding="utf-8")
    with pytest.raises(SuiteError, match="is a folder, not a data file"):
        read_suite(path)


# -- resuming from another working folder -------------------------------------------------------------
def test_the_same_data_named_from_another_folder_is_the_same_run(tmp_path, monkeypatch, shared_data):
    _pairs(tmp_path / "a" / "pairs.csv", shared_data)
    monkeypatch.chdir(tmp_path / "a")
    first = _run(data="pairs.csv", out="../out")
    recorded = (tmp_path / "out" / ".biasatlas-run.json").read_bytes()
    assert json.loads(recorded)["benchmark"]["data"] == "pairs.csv"  # recorded as typed, as before
    (tmp_path / "b").mkdir()
    monkeypatch.chdir(tmp_path / "b")
    again = _run(data="../a/pairs.csv", out="../out")  # refused as "another run" before
    assert again.records == first.records
    # A file of the same name with other bytes is another run: its hash differs.
    _pairs(tmp_path / "b" / "pairs.csv", shared_data, n=4)
    with pytest.raises(RunFolderError, match="holds another run"):
        _run(data="pairs.csv", out="../out")


# -- folders that are not empty ------------------------------------------------------------------------
@pytest.mark.parametrize("planted", [".git/HEAD", ".env"])
def test_a_folder_of_dot_files_only_is_not_taken_for_empty(tmp_path, planted):
    out = tmp_path / "home"
    (out / planted).parent.mkdir(parents=True, exist_ok=True)
    (out / planted).write_text("secret\n", encoding="utf-8")
    with pytest.raises(RunFolderError, match="not a biasatlas run"):
        _run(dataset="en", limit=3, out=out)
    assert sorted(p.name for p in out.iterdir()) == [Path(planted).parts[0]]


def test_a_dot_file_in_a_run_folder_of_its_own_does_not_refuse_its_rerun(tmp_path):
    out = tmp_path / "run"
    _run(dataset="en", limit=3, out=out)
    (out / ".DS_Store").write_bytes(b"\0")  # a file viewer's
    (out / ".items.jsonl.abc123.tmp").write_text("half", encoding="utf-8")  # a killed write's temporary
    _run(dataset="en", limit=3, out=out)


# -- census errors name the command line's options and the user's files ----------------------------------
def test_census_missing_forms_name_the_option_and_no_file_of_the_package(tmp_path):
    table = tmp_path / "table.csv"
    table.write_text("occupation,female_pct\nQuantum wranglers,50\n", encoding="utf-8")
    package = str(Path(biasatlas.__file__).resolve().parent)
    with pytest.raises(DataError) as caught:
        biasatlas.evaluate("census", census=table, model="fake", progress=False, cache=False)
    message = str(caught.value)
    assert "--inflections FILE" in message and "--skip-missing" in message
    assert package not in message  # before: "Add rows to <package>/…/inflections_us.csv"
    own = tmp_path / "forms.csv"
    own.write_text("occupation,sg,pl,article\nNurses,nurse,nurses,a\n", encoding="utf-8")
    with pytest.raises(DataError, match=f"Add rows for them to {own}"):
        biasatlas.evaluate("census", census=table, inflections=own, model="fake", progress=False, cache=False)
