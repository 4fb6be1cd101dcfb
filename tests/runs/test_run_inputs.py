"""Run inputs every benchmark shares (issue 22, item 9): dataset and country names in any
case, recorded as the benchmark spells them; ``--limit`` with ``--sample`` refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from biasatlas import evaluate
from biasatlas.benchmarks.census import Census
from biasatlas.benchmarks.crows_pairs import CrowsPairs
from biasatlas.benchmarks.zh_neutral import ZhNeutral
from biasatlas.cli import app
from biasatlas.errors import UnknownName, UsageError


def _files(folder: Path) -> dict[str, bytes]:
    """A run folder's files but timing.json (seconds differ from run to run)."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.name != "timing.json"}


def test_names_in_any_case_are_the_canonical_names():
    assert CrowsPairs(dataset="FR+210").dataset == "fr+210"
    assert CrowsPairs(dataset="En-Revised").dataset == "en-revised"
    assert Census(country="US").country == "us" and Census(country="No").country == "no"
    with pytest.raises(UnknownName, match="Did you mean 'fr\\+210'"):  # not a case variant: refused on construction
        CrowsPairs(dataset="fr-210")


def test_an_upper_case_dataset_writes_the_same_run_folder(shared_data, tmp_path, monkeypatch):
    monkeypatch.setenv("BIASATLAS_DATA_DIR", str(shared_data))
    for name in ("FR+210", "fr+210"):
        result = CliRunner().invoke(app, ["run", "crows-pairs", "--dataset", name, "--model", "fake", "--limit", "3",
                                          "--no-cache", "--out", str(tmp_path / name)])
        assert result.exit_code == 0, result.output
    upper, lower = _files(tmp_path / "FR+210"), _files(tmp_path / "fr+210")
    assert set(upper) >= {"config.json", "summary.json", "items.jsonl"} and upper == lower
    assert b'"dataset": "fr+210"' in upper["config.json"]


def test_an_upper_case_country_writes_the_same_run_folder(tmp_path):
    for name in ("NO", "no"):
        evaluate("census", country=name, model="fake", limit=2, n_resamples=20, cache=False, progress=False,
                 out=tmp_path / name)
    assert _files(tmp_path / "NO") == _files(tmp_path / "no")


@pytest.mark.parametrize("build", [lambda: CrowsPairs(limit=5, sample=3), lambda: Census(limit=5, sample=3),
                                   lambda: ZhNeutral(limit=5, sample=3)], ids=["crows-pairs", "census", "zh-neutral"])
def test_limit_with_sample_is_refused_by_every_benchmark(build):
    with pytest.raises(UsageError, match=r"^--limit 5 and --sample 3 together: use one \(--limit N scores the "
                                         r"first N items; --sample N draws N at random from all of them\)$"):
        build()


def test_limit_with_sample_is_a_one_line_usage_error_on_the_command_line(capsys):
    import biasatlas.cli as cli

    with pytest.raises(SystemExit) as done:
        cli.main(["run", "zh-neutral", "--model", "fake", "--limit", "5", "--sample", "3"])
    assert done.value.code == 2
    assert capsys.readouterr().err == ("error: --limit 5 and --sample 3 together: use one (--limit N scores the first "
                                       "N items; --sample N draws N at random from all of them)\n")
