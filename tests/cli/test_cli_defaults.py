"""What ``biasatlas list`` and ``run --help`` say of a benchmark's defaults and choices (issue 40,
item 11): the data a run reads when told nothing, and BBQ's categories by dataset."""

from __future__ import annotations

from typer.testing import CliRunner

from biasatlas.benchmarks.bbq.data import CATEGORIES
from biasatlas.cli import app


def _out(*args: str) -> str:
    done = CliRunner().invoke(app, list(args), env={"COLUMNS": "400"})
    assert done.exit_code == 0, done.output
    return done.output


def test_the_one_line_description_names_the_default_data():
    listed = _out("list")
    assert "CrowS-Pairs (Nangia et al. 2020; Névéol et al. 2022). Default: --dataset fr+210." in listed
    assert "Default: --country us." in listed  # census: the US, while the quick start runs Norway
    assert "Default: --dataset fr+210." in _out("run", "crows-pairs", "--help")


def test_bbq_categories_are_listed_per_dataset():
    rows = {line.split("│")[1].strip(): line.split("│")[2].strip() for line in _out("list").splitlines()
            if line.count("│") >= 3 and "--category" in line}
    assert rows["--category (--dataset cbbq)"] == "gender"
    assert rows["--category (--dataset mbbq-nl)"] == ", ".join(CATEGORIES["mbbq-nl"])
    assert "--category" not in rows  # no flat list of every dataset's categories
