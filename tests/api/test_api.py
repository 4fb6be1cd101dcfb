"""The Python API (biasatlas.evaluate, load_run, EvaluationRun) against the command line.

Expected numbers come from the records by hand (a CrowS-Pairs metric is the share of pairs
whose outcome is "more"), and the API's run folders are compared byte for byte with the
ones ``biasatlas run`` writes for the same options.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import biasatlas
from biasatlas.evaluation import EvaluationRun
from biasatlas.request import ModelOptions, RunRequest
from biasatlas.errors import BiasAtlasError, DataError, UnknownName, UsageError

RUN_FILES = ("config.json", "items.jsonl", "skipped.jsonl", "summary.json")


pytestmark = pytest.mark.usefixtures("isolated_run")  # each test: its own cache and working folder


def _cli(*args: str) -> None:
    from biasatlas.cli import app

    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result


def _same_files(a: Path, b: Path) -> None:
    for name in RUN_FILES:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


def _metric_by_hand(records: list[dict]) -> float:
    """CrowS-Pairs' metric (Nangia et al. 2020): % of pairs where the model prefers sent_more."""
    return 100 * sum(r["outcome"] == "more" for r in records) / len(records)


# -- import and the result object ------------------------------------------------------------------
def test_import_is_light_and_exports_the_api():
    code = ("import sys, biasatlas; heavy = [m for m in ('torch', 'pandas', 'biasatlas.api', 'transformers') "
            "if m in sys.modules]; print(heavy); print(biasatlas.evaluate.__module__)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split("\n")[:2] == ["[]", "biasatlas.api"]
    assert {"evaluate", "load_run", "EvaluationRun"} <= set(biasatlas.__all__) <= set(dir(biasatlas))
    with pytest.raises(AttributeError, match="no attribute 'evaluat'"):
        biasatlas.evaluat  # noqa: B018


def test_fake_model_run_is_typed_and_matches_its_records(tmp_path):
    run = biasatlas.evaluate("crows-pairs", model="fake", dataset="fr", lowercase=True, limit=40, progress=False)
    assert isinstance(run, EvaluationRun)
    assert type(run.summary).__name__ == "CrowsRunSummary"
    assert run.summary.n == len(run.records) == 40
    assert run.summary.metric_score == pytest.approx(_metric_by_hand(run.records))
    assert run.summary_dict["dataset"] == "fr" and run.config["benchmark"]["lowercase"] is True
    assert run.path is None
    assert "not saved" in repr(run) and "crows-pairs" in repr(run)


def test_items_is_a_dataframe_of_the_records():
    pd = pytest.importorskip("pandas")
    run = biasatlas.evaluate("crows-pairs", model="fake", dataset="en", limit=30, progress=False)
    items = run.items
    assert isinstance(items, pd.DataFrame)
    assert len(items) == 30
    assert {"id", "bias_type", "direction", "sent_more", "sent_less", "outcome"} <= set(items.columns)
    assert list(items["id"]) == [r["id"] for r in run.records]
    assert 100 * (items["outcome"] == "more").mean() == pytest.approx(run.summary.metric_score)


def test_items_without_pandas_names_the_extra(monkeypatch):
    run = biasatlas.evaluate("crows-pairs", model="fake", dataset="en", limit=5, progress=False)
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now raises ImportError
    with pytest.raises(BiasAtlasError, match=r"biasatlas\[pandas\]"):
        run.items  # noqa: B018
    assert len(run.records) == 5  # everything else still works


def test_out_none_writes_nothing(tmp_path):
    work = Path.cwd()
    biasatlas.evaluate("crows-pairs", model="fake", dataset="en", limit=10, progress=False)
    assert list(work.iterdir()) == []
    # only the score cache was written (SQLite, its write-ahead files and lock)
    assert all(p.name.startswith("scores.sqlite") for p in (tmp_path / "cache").iterdir())


def test_load_run_round_trip(tmp_path):
    run = biasatlas.evaluate("census", model="fake", country="no", sample=4, out="runs/census", progress=False)
    assert run.path == Path("runs/census")
    again = biasatlas.load_run("runs/census")
    assert again == run  # benchmark, typed summary, summary_dict, records, skipped, config, timing, path
    assert type(again.summary).__name__ == "CensusRunSummary"
    assert again.summary.n_occupations == 4 == len(again.records)
    assert again.timing["scored"] + again.timing["cache_hits"] == again.summary_dict["provenance"]["n_probes"]


def test_load_run_refuses_an_unfinished_folder(tmp_path):
    folder = tmp_path / "half"
    folder.mkdir()
    (folder / "config.json").write_text("{}", encoding="utf-8")
    with pytest.raises(DataError, match="unfinished run"):
        biasatlas.load_run(folder)


# -- the same run as the command line --------------------------------------------------------------
def test_fake_model_same_run_folder_as_the_cli():
    biasatlas.evaluate("crows-pairs", model="fake", dataset="fr", lowercase=True, limit=40, out="api", progress=False)
    _cli("run", "crows-pairs", "--model", "fake", "--dataset", "fr", "--lowercase", "--limit", "40", "--out", "cli")
    _same_files(Path("api"), Path("cli"))
    assert json.loads(Path("api/.biasatlas-run.json").read_text()) == \
        json.loads(Path("cli/.biasatlas-run.json").read_text())


def test_tiny_masked_model_same_run_folder_as_the_cli(tiny_bert):
    run = biasatlas.evaluate("crows-pairs", model=str(tiny_bert), dataset="fr", lowercase=True, limit=12,
                             batch_size=8, out="api", progress=False)
    _cli("run", "crows-pairs", "--model", str(tiny_bert), "--dataset", "fr", "--lowercase", "--limit", "12",
         "--batch-size", "8", "--out", "cli")
    _same_files(Path("api"), Path("cli"))
    assert run.summary_dict["scorer"] == "masked-lm" and run.summary_dict["variant"] == "nangia"
    assert run.summary.metric_score == pytest.approx(_metric_by_hand(run.records))


def test_cli_without_out_says_nothing_was_saved():
    result = _cli("run", "crows-pairs", "--model", "fake", "--dataset", "en", "--limit", "5")
    assert "not saved: pass --out FOLDER to keep a run folder" in result.output
    assert list(Path.cwd().iterdir()) == []


def test_gebnlp2022_first_token_policy_is_the_same_through_api_and_cli(tiny_bert):
    options = {"country": "no", "method": "gebnlp2022", "limit": 6}
    run = biasatlas.evaluate("census", model=str(tiny_bert), out="api", progress=False, **options)
    _cli("run", "census", "--model", str(tiny_bert), "--country", "no", "--method", "gebnlp2022", "--limit", "6",
         "--out", "cli")
    assert run.summary_dict["multi_token"]["policy"] == "first-token"
    assert run.config["scorer"]["multi_token"] == "first-token"
    _same_files(Path("api"), Path("cli"))
    # an explicit policy wins over the method's default, on both paths
    joint = biasatlas.evaluate("census", model=str(tiny_bert), multi_token="joint", progress=False, **options)
    assert joint.summary_dict["multi_token"]["policy"] == "joint"
    # the touileb2023 method keeps the scorer's default (joint)
    paper = biasatlas.evaluate("census", model=str(tiny_bert), country="no", limit=3, progress=False)
    assert paper.summary_dict["multi_token"]["policy"] == "joint"


def test_multi_token_goes_only_to_scorers_that_take_it():
    # The fake scorer has no multi-token policy: gebnlp2022 runs without passing one to it.
    run = biasatlas.evaluate("census", model="fake", country="no", method="gebnlp2022", limit=3, progress=False)
    assert run.summary_dict["scorer"] == "fake"


def test_run_request_records_the_resolved_policy():
    from biasatlas.registry import load_benchmark

    bench = load_benchmark("census", country="no", method="gebnlp2022")
    request = RunRequest(bench, {}, ModelOptions(model="m")).recorded()
    assert request["model"]["multi_token"] == "first-token"
    assert "batch_size" not in request["model"] and "device" not in request["model"]
    plain = RunRequest(load_benchmark("census", country="no"), {}, ModelOptions(model="m", batch_size=3,
                                                                                device="cuda")).recorded()
    assert "multi_token" not in plain["model"] and "batch_size" not in plain["model"]


# -- order of checks, status lines, cache --------------------------------------------------------------
def test_unknown_option_is_a_did_you_mean_error():
    with pytest.raises(UnknownName, match="unknown crows-pairs option 'datset'. Did you mean 'dataset'"):
        biasatlas.evaluate("crows-pairs", model="fake", datset="fr")


def test_bad_data_fails_before_the_model(tmp_path):
    # the model does not exist either: the data file is the error, because it is checked first
    with pytest.raises(DataError, match="no such file"):
        biasatlas.evaluate("crows-pairs", model="./no-such-model", data=tmp_path / "missing.tsv")


def test_bad_out_fails_before_the_model(tmp_path):
    from biasatlas.runs.folder import RunFolderError

    (tmp_path / "a-file").write_text("x", encoding="utf-8")
    with pytest.raises(RunFolderError, match="is a file"):
        biasatlas.evaluate("crows-pairs", model="./no-such-model", dataset="en", out=tmp_path / "a-file")


def test_a_folder_of_another_run_is_refused_unless_forced():
    from biasatlas.runs.folder import RunFolderError

    biasatlas.evaluate("crows-pairs", model="fake", dataset="en", limit=5, out="run", progress=False)
    with pytest.raises(RunFolderError, match="another run"):
        biasatlas.evaluate("crows-pairs", model="fake", dataset="en", limit=6, out="run", progress=False)
    run = biasatlas.evaluate("crows-pairs", model="fake", dataset="en", limit=6, out="run", force=True,
                             progress=False)
    assert biasatlas.load_run("run").summary.n == 6 == run.summary.n


def test_log_gets_the_status_lines_and_the_cache_is_used(tmp_path):
    lines: list[str] = []
    biasatlas.evaluate("crows-pairs", model="fake", dataset="en", limit=8, progress=False, log=lines.append)
    start = ("crows-pairs · dataset en (English) · 8 items · model fake (fake, hash) · no forward passes planned "
             "(the scorer runs no model here) · NOT saved (no --out)")
    assert lines == ["crows-pairs · loading model fake …", start]
    again = biasatlas.evaluate("crows-pairs", model="fake", dataset="en", limit=8, progress=False, log=lines.append)
    resumed = start.replace("no forward passes planned (the scorer runs no model here)", "nothing left to score")
    assert lines[2:] == ["crows-pairs · loading model fake …", resumed + " · resuming: 8 of 8 cached",
                         "reused 8 cached answers; scored 0"]
    assert again.timing["cache_hits"] == 8
    uncached = biasatlas.evaluate("crows-pairs", model="fake", dataset="en", limit=8, progress=False, cache=False)
    assert uncached.timing["cache_hits"] == 0 and uncached.summary == again.summary


def test_a_built_benchmark_takes_no_options():
    from biasatlas.benchmarks.crows_pairs import CrowsPairs

    bench = CrowsPairs(dataset="en", limit=4)
    assert biasatlas.evaluate(bench, model="fake", progress=False).summary.n == 4
    with pytest.raises(UsageError, match="already built"):
        biasatlas.evaluate(bench, model="fake", lowercase=True)


def test_table_is_the_terminal_table():
    from rich.console import Console

    run = biasatlas.evaluate("crows-pairs", model="fake", dataset="en", limit=10, progress=False)
    console = Console(width=120, record=True)
    console.print(run.table())
    text = console.export_text()
    assert "CrowS-Pairs" in text and f"{run.summary.metric_score:.2f}" in text
