"""Nothing overwritten (issue 34, items 1-3): every command that writes refuses an input of the same
command, a file or folder of another kind, and a file biasatlas did not write (biasatlas.outputs).

Each case runs :func:`biasatlas.cli.main` in this process on the fake scorer and checks the exit
status (2: choose another --out), that the one error line names the path, and that what was there
is byte for byte what it was.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import biasatlas.cli as cli
from biasatlas.errors import OutputRefused
from biasatlas.outputs import LEDGER, check_output, folder_kind, record_output

PAIRS = ("\tsent_more\tsent_less\tstereo_antistereo\tbias_type\n"
         "0\tShe is here.\tHe is here.\tstereo\tgender\n"
         "1\tThe old man sat.\tThe young man sat.\tstereo\tage\n"
         "2\tPoor people lie.\tRich people lie.\tstereo\tsocioeconomic\n")


def _cli(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str]:
    capsys.readouterr()
    with pytest.raises(SystemExit) as exited:
        cli.main([str(a) for a in argv])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return int(exited.value.code or 0), err


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def work(isolated_run: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A working folder with pairs.tsv and a finished fake run of it in run/."""
    (isolated_run / "pairs.tsv").write_text(PAIRS, encoding="utf-8")
    code, err = _cli(capsys, "run", "crows-pairs", "--data", "pairs.tsv", "--model", "fake", "--out", "run")
    assert code == 0, err
    return isolated_run


def _refused(capsys: pytest.CaptureFixture[str], work: Path, *argv: object, says: str) -> None:
    before = _snapshot(work)
    code, err = _cli(capsys, *argv)
    assert code == 2, err
    assert err.startswith("error: ") and says in err and len(err.strip().splitlines()) == 1, err
    assert _snapshot(work) == before  # nothing replaced, nothing added


# -- item 1: report --out -----------------------------------------------------------------------------
def test_report_refuses_the_runs_own_summary(work, capsys):
    _refused(capsys, work, "report", "run", "--out", "run/summary.json", says="run/summary.json lies inside run")


def test_report_refuses_the_runs_input_data(work, capsys):
    _refused(capsys, work, "report", "run", "--out", "pairs.tsv", "--format", "csv",
             says="pairs.tsv is a file biasatlas did not write")


def test_report_refuses_a_file_inside_another_run_folder(work, capsys):
    (work / "other").mkdir()
    for name in ("items.jsonl", "summary.json", "config.json", ".biasatlas-run.json"):
        (work / "other" / name).write_bytes((work / "run" / name).read_bytes())
    _refused(capsys, work, "report", "run", "--out", "other/report.md", says="a biasatlas run folder")


def test_report_rerun_replaces_its_own_report_but_not_one_edited_since(work, capsys):
    assert _cli(capsys, "report", "run", "--out", "report.md")[0] == 0
    assert _cli(capsys, "report", "run", "--out", "report.md", "--title", "again")[0] == 0  # a rerun: ours
    with (work / "report.md").open("a", encoding="utf-8") as handle:
        handle.write("my own notes\n")
    _refused(capsys, work, "report", "run", "--out", "report.md", says="was changed since biasatlas wrote it")


def test_report_does_not_replace_another_kind_of_output(work, capsys):
    assert _cli(capsys, "lint", "crows-pairs", "--data", "pairs.tsv", "--out", "findings.jsonl")[0] == 0
    _refused(capsys, work, "report", "run", "--out", "findings.jsonl", "--format", "json",
             says="holds biasatlas lint findings, not a biasatlas report")


def test_compare_refuses_a_place_inside_its_runs(work, capsys):
    _refused(capsys, work, "compare", "run", "run", "--out", "run/comparison.md", "--format", "md",
             says="an input of this command")


# -- item 2: lint --out ---------------------------------------------------------------------------------
def test_lint_refuses_its_own_data(work, capsys):
    _refused(capsys, work, "lint", "crows-pairs", "--data", "pairs.tsv", "--out", "pairs.tsv",
             says="--out pairs.tsv is pairs.tsv, an input of this command")


def test_lint_refuses_its_own_data_through_a_link(work, capsys):
    (work / "findings.jsonl").symlink_to(work / "pairs.tsv")
    _refused(capsys, work, "lint", "crows-pairs", "--data", "pairs.tsv", "--out", "findings.jsonl",
             says="is the same file as pairs.tsv")


def test_lint_refuses_a_finished_runs_items(work, capsys):
    _refused(capsys, work, "lint", "crows-pairs", "--data", "pairs.tsv", "--out", "run/items.jsonl",
             says="a biasatlas run folder")
    assert _cli(capsys, "report", "run")[0] == 0  # the run still reads


def test_lint_rerun_replaces_its_own_findings(work, capsys):
    for _ in range(2):
        assert _cli(capsys, "lint", "crows-pairs", "--data", "pairs.tsv", "--out", "findings.jsonl")[0] == 0
    ledger = json.loads((work / LEDGER).read_text(encoding="utf-8"))
    assert ledger["files"]["findings.jsonl"]["kind"] == "lint"


# -- item 3: run --sensitivity --out, and every other command that writes a folder -----------------------
SENSITIVITY = ("run", "crows-pairs", "--dataset", "en", "--limit", "4", "--model", "fake", "--sensitivity", "preambles")


def test_sensitivity_refuses_a_users_sensitivity_files(work, capsys):
    (work / "mine").mkdir()
    (work / "mine" / "sensitivity.md").write_text("my notes\n", encoding="utf-8")
    (work / "mine" / "sensitivity.json").write_text('{"a": 1}\n', encoding="utf-8")
    _refused(capsys, work, *SENSITIVITY, "--out", "mine", says="sensitivity.json that biasatlas did not write")
    (work / "mine" / "sensitivity.json").unlink()
    _refused(capsys, work, *SENSITIVITY, "--out", "mine", says="sensitivity.md that biasatlas did not write")


def test_sensitivity_refuses_a_plain_run_folder(work, capsys):
    _refused(capsys, work, *SENSITIVITY, "--out", "run", says="holds a biasatlas run folder, not a biasatlas "
             "sensitivity set")


def test_sensitivity_rerun_into_its_own_set_and_a_run_refuses_it(work, capsys):
    assert _cli(capsys, *SENSITIVITY, "--out", "sens")[0] == 0
    assert _cli(capsys, *SENSITIVITY, "--out", "sens")[0] == 0  # its own set: resumed and rewritten
    _refused(capsys, work, "run", "crows-pairs", "--data", "pairs.tsv", "--model", "fake", "--out", "sens",
             says="holds a biasatlas sensitivity set, not a biasatlas run folder")


def test_sensitivity_checks_every_runs_folder_before_the_first_runs(work, capsys):
    code, err = _cli(capsys, "run", "crows-pairs", "--dataset", "en", "--limit", "3", "--model", "fake",
                     "--out", "sens/preamble-sentence")  # another run where the set's last run goes
    assert code == 0, err
    _refused(capsys, work, *SENSITIVITY, "--out", "sens", says="sens/preamble-sentence holds another run")
    assert not (work / "sens" / "unperturbed").exists()


def test_run_refuses_a_folder_inside_another_run(work, capsys):
    _refused(capsys, work, "run", "crows-pairs", "--data", "pairs.tsv", "--model", "fake", "--out", "run/again",
             says="lies inside")


def test_run_force_never_replaces_its_own_input(work, capsys):
    (work / "r").mkdir()
    (work / "r" / "items.jsonl").write_text(json.dumps({"id": "0", "sent_more": "She is here.", "sent_less":
                                                        "He is here.", "stereo_antistereo": "stereo",
                                                        "bias_type": "gender"}) + "\n", encoding="utf-8")
    _refused(capsys, work, "run", "crows-pairs", "--data", "r/items.jsonl", "--model", "fake", "--out", "r",
             "--force", says="would replace r/items.jsonl, an input of this command")


def test_mine_refuses_a_run_folder_and_its_own_corpus(work, capsys):
    from biasatlas.mining.pipeline import run_pipeline

    before = _snapshot(work / "run")
    with pytest.raises(OutputRefused, match="holds a biasatlas run folder"):
        run_pipeline([work / "pairs.tsv"], work / "run")
    assert _snapshot(work / "run") == before
    (work / "mined").mkdir()
    (work / "mined" / "candidates.jsonl").write_text("{}\n", encoding="utf-8")
    with pytest.raises(OutputRefused, match="would replace .*candidates.jsonl, an input"):
        run_pipeline([work / "mined" / "candidates.jsonl"], work / "mined")
    assert (work / "mined" / "candidates.jsonl").read_text(encoding="utf-8") == "{}\n"


def test_suite_refuses_a_folder_inside_a_run(work):
    from biasatlas.suite.folder import claim_suite_folder

    suite = work / "suite.toml"
    suite.write_text("", encoding="utf-8")
    before = _snapshot(work)
    with pytest.raises(OutputRefused, match="lies inside .*a biasatlas run folder"):
        claim_suite_folder(work / "run" / "suite", suite, [])
    assert _snapshot(work) == before


# -- the rule itself ---------------------------------------------------------------------------------------
def test_each_folder_kind_is_known_by_its_marker(tmp_path):
    for kind, marker in (("run", ".biasatlas-run.json"), ("suite", ".biasatlas-suite.json"),
                         ("sensitivity", "sensitivity.json"), ("mining", "dataset_card.json")):
        folder = tmp_path / kind
        folder.mkdir()
        (folder / marker).write_text("{}", encoding="utf-8")
        assert folder_kind(folder) == kind
    assert folder_kind(tmp_path) is None


def test_a_file_is_ours_only_as_recorded(tmp_path):
    out = tmp_path / "r.md"
    check_output(out, "report")  # new: fine
    out.write_text("x", encoding="utf-8")
    with pytest.raises(OutputRefused, match="did not write"):
        check_output(out, "report")
    record_output(out, "report")
    check_output(out, "report")  # ours, unchanged
    with pytest.raises(OutputRefused, match="holds a biasatlas report, not a biasatlas comparison"):
        check_output(out, "comparison")


def test_the_kinds_name_what_their_writers_write():
    """The rule's markers are the writers' own names (a renamed owner file would make every run
    folder 'a folder of other files')."""
    from biasatlas.mining.pipeline import FINAL_FILES, OUTPUT_FOLDERS
    from biasatlas.mining.stages import SHARD_STAGES
    from biasatlas.outputs import KINDS
    from biasatlas.runs.folder import OWNER_FILE
    from biasatlas.sensitivity import SENSITIVITY_FILE, TABLE_FILE
    from biasatlas.suite.folder import SUITE_OWNER

    assert KINDS["run"].markers == (OWNER_FILE,)
    assert KINDS["suite"].markers == (SUITE_OWNER,)
    assert KINDS["sensitivity"].markers == (SENSITIVITY_FILE,)
    assert KINDS["sensitivity"].files == {SENSITIVITY_FILE, TABLE_FILE}
    assert KINDS["mining"].markers == ("dataset_card.json", f"stages/{SHARD_STAGES[0]}")
    assert KINDS["mining"].files == {*FINAL_FILES, *OUTPUT_FOLDERS}


def test_run_force_never_replaces_its_own_predictions_file(work, capsys):
    (work / "r").mkdir()
    (work / "r" / "items.jsonl").write_text("".join(json.dumps({"id": str(i), "scores": [-1.0, -2.0]}) + "\n"
                                                    for i in range(3)), encoding="utf-8")
    _refused(capsys, work, "run", "crows-pairs", "--data", "pairs.tsv", "--predictions", "r/items.jsonl",
             "--out", "r", "--force", says="would replace r/items.jsonl, an input of this command")
