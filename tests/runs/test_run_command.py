"""``biasatlas run NAME`` is assembled from the benchmark's spec and the request's fields: each
flag lands in the right field of one RunRequest, and ``--help`` groups the flags."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from biasatlas.cli import app
from biasatlas.request import EngineOptions, ModelOptions


@pytest.fixture
def requests(monkeypatch):
    """The requests the run commands hand over, instead of running them."""
    import biasatlas.cli.run as run

    seen: list[tuple[object, Path | None, dict]] = []
    monkeypatch.setattr(run, "run_and_print", lambda request, out, **kw: seen.append((request, out, kw)))
    return seen


def _invoke(*args: str) -> None:
    result = CliRunner().invoke(app, ["run", *args])
    assert result.exit_code == 0, (result.output, result.exception)


def test_each_flag_reaches_its_field(requests):
    _invoke("census", "--country", "NO", "--skip-missing", "--method", "gebnlp2022", "--model", "fake",
            "--batch-size", "auto", "--multi-token", "joint", "--engine", "ray", "--workers", "3", "--out", "o",
            "--label", "NorBERT, mine")
    request, out, kw = requests[-1]
    assert request.benchmark == "census" and out == Path("o")
    assert request.options["country"] == "no"  # the case-insensitive choice, as the library spells it
    assert request.options["missing"] == "skip" and request.options["method"] == "gebnlp2022"
    assert request.model == ModelOptions(model="fake", batch_size="auto", multi_token="joint")
    assert request.engine == EngineOptions(engine="ray", workers=3)
    assert kw == {"no_cache": False, "refresh": False, "force": False, "label": "NorBERT, mine"}


def test_defaults_are_the_factorys_and_the_records(requests):
    _invoke("zh-neutral")
    request, out, _ = requests[-1]
    from biasatlas.benchmarks.zh_neutral import ZhNeutral

    defaults = ZhNeutral()
    assert out is None and request.model == ModelOptions() and request.engine == EngineOptions()
    assert request.options["pairs"] is None and request.options["topics_k"] == defaults.topics_k
    assert request.options["log_base"] == defaults.log_base and request.options["threshold"] == defaults.threshold


def test_a_repeated_flag_becomes_a_tuple_and_a_respelled_one_its_option(requests):
    _invoke("zh-neutral", "--pair", "男童/女童", "--pair", "爸爸/妈妈", "--topics", "0", "--no-cache")
    request, _, kw = requests[-1]
    assert request.options["pairs"] == ("男童/女童", "爸爸/妈妈") and request.options["topics_k"] == 0
    assert kw["no_cache"] is True


def test_help_groups_the_flags_by_where_they_go():
    result = CliRunner().invoke(app, ["run", "crows-pairs", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    text = result.output
    panels = [text.index(title) for title in ("Benchmark options", "Model options", "Engine options", "Run options")]
    assert panels == sorted(panels)
    # (the description above the panels names the default --dataset: the flag is the first after them)
    assert panels[0] < text.index("--dataset", panels[0]) < panels[1] < text.index("--batch-size") < panels[2]
    assert panels[2] < text.index("--workers") < panels[3] < text.index("--no-cache")
