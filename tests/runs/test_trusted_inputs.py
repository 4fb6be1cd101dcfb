"""Nothing trusted unchecked (issue 34, items 11 and 14): a summary.json that is no run's is refused,
naming the file and what is missing; ``--label`` never gives two runs one name; BBQ's dataset names are
case-insensitive, as the README says every dataset name is.
"""

from __future__ import annotations

import json

import pytest

import biasatlas.cli as cli
from biasatlas.errors import DataError, UsageError
from biasatlas.report import load_runs
from report_fixtures import crows_run


def _cli(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str]:
    capsys.readouterr()
    with pytest.raises(SystemExit) as exited:
        cli.main([str(a) for a in argv])
    return int(exited.value.code or 0), capsys.readouterr().err


# -- item 11: a summary.json of another shape ---------------------------------------------------------
@pytest.mark.parametrize(("summary", "field"), [({}, "benchmark"), ({"foo": 1}, "benchmark"),
                                                ({"benchmark": "crows-pairs"}, "model"),
                                                ({"benchmark": "", "model": "m"}, "benchmark")])
def test_a_summary_that_is_no_runs_is_refused_naming_file_and_field(tmp_path, summary, field):
    folder = crows_run(tmp_path / "run")
    (folder / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    with pytest.raises(DataError, match=f"summary.json, field '{field}': missing: not a biasatlas run summary"):
        load_runs([folder])


def test_report_of_an_empty_summary_exits_1_not_unknown_model(tmp_path, capsys):
    folder = crows_run(tmp_path / "run")
    (folder / "summary.json").write_text("{}", encoding="utf-8")
    code, err = _cli(capsys, "report", folder)
    assert code == 1
    assert err.startswith(f"error: file {folder / 'summary.json'}, field 'benchmark': missing"), err


# -- item 14: --label and dataset names -----------------------------------------------------------------
def test_one_label_for_two_runs_is_refused(tmp_path):
    a, b = crows_run(tmp_path / "a", model="m1"), crows_run(tmp_path / "b", model="m2")
    with pytest.raises(UsageError, match="--label gives two runs the name 'X'"):
        load_runs([a, b], labels=[f"{a}=X", f"{b}=X"])
    with pytest.raises(UsageError, match="--label gives two runs the name 'm2'"):  # a name another run has
        load_runs([a, b], labels=[f"{a}=m2"])
    assert [v.label for v in load_runs([a, b], labels=[f"{a}=X", f"{b}=Y"])] == ["X", "Y"]


def test_one_folder_labelled_twice_is_refused(tmp_path):
    a, b = crows_run(tmp_path / "a", model="m1"), crows_run(tmp_path / "b", model="m2")
    with pytest.raises(UsageError, match="names the run folder .* twice"):
        load_runs([a, b], labels=[f"{a}=X", f"{a}=Y"])


def test_compare_refuses_x_vs_x(tmp_path, capsys):
    a, b = crows_run(tmp_path / "a", model="m1"), crows_run(tmp_path / "b", model="m2")
    code, err = _cli(capsys, "compare", a, b, "--label", f"{a}=X", "--label", f"{b}=X")
    assert code == 2 and "--label gives two runs the name 'X'" in err, err


@pytest.mark.parametrize("given", ["EN", "Mbbq-NL", "KoBBQ"])
def test_bbq_dataset_names_are_case_insensitive(given, isolated_run):
    from biasatlas.registry import load_benchmark

    bench = load_benchmark("bbq", dataset=given)
    assert bench.dataset == given.lower()


def test_run_bbq_dataset_in_capitals_records_the_canonical_name(isolated_run, capsys):
    code, err = _cli(capsys, "run", "bbq", "--dataset", "EN", "--limit", "2", "--model", "fake", "--out", "run")
    assert code == 0, err
    config = json.loads((isolated_run / "run" / "config.json").read_text(encoding="utf-8"))
    assert config["benchmark"]["dataset"] == "en"
