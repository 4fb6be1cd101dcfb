"""The line every run prints before it scores (issue 22, item 4): benchmark, dataset and
language, items, model and scorer, planned forward passes, where it is saved, and what the
cache already holds; and that printing it changes nothing in the run folder.

Expected counts come from the options (``limit=8`` is 8 items) or from what the run then
did (the rows its scoring computed, in ``timing.counters``), never from the line itself.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import biasatlas
from biasatlas import pipeline

RUN_FILES = ("config.json", "items.jsonl", "skipped.jsonl", "summary.json")


pytestmark = pytest.mark.usefixtures("isolated_run")  # each test: its own cache and working folder


def _lines(name: str, **options) -> tuple[list[str], biasatlas.EvaluationRun]:
    lines: list[str] = []
    run = biasatlas.evaluate(name, progress=False, log=lines.append, **options)
    return lines, run


def _start(lines: list[str], name: str) -> list[str]:
    """The start line's parts: the one line naming the benchmark's dataset."""
    found = [line for line in lines if line.startswith(f"{name} · dataset ")]
    assert len(found) == 1, lines
    return found[0].split(" · ")


# -- each benchmark, on the fake scorer --------------------------------------------------------
def test_crows_pairs_default_dataset_is_named_with_its_language_and_size():
    lines, run = _lines("crows-pairs", model="fake", limit=8)
    assert lines[0] == "crows-pairs · loading model fake …"  # the indicator comes first, then the plan
    parts = _start(lines, "crows-pairs")
    assert parts[:4] == ["crows-pairs", "dataset fr+210 (French, the default)", "8 items",
                         "model fake (fake, hash)"]
    assert parts[4] == "no forward passes planned (the scorer runs no model here)"  # the fake scorer has no plan
    assert parts[5:] == ["NOT saved (no --out)"]
    assert run.summary_dict["dataset"] == "fr+210"


def test_crows_pairs_named_dataset_is_not_called_a_default():
    parts = _start(_lines("crows-pairs", model="fake", dataset="en", limit=5)[0], "crows-pairs")
    assert parts[1] == "dataset en (English)" and parts[2] == "5 items"
    own = _start(_lines("crows-pairs", model="fake", data=_crows_file(Path("mine.csv")))[0], "crows-pairs")
    assert own[1] == "dataset mine.csv" and own[2] == "2 items"  # a user's file: no language claimed


def test_census_counts_occupations_and_probes_and_says_where_it_saves():
    lines, run = _lines("census", model="fake", country="no", sample=3, out="runs/census")
    parts = _start(lines, "census")
    n_probes = run.summary_dict["provenance"]["n_probes"]
    assert n_probes > 3  # several sentences per occupation: items and probes are told apart
    assert parts[1] == "dataset census-no (Norwegian templates)"
    assert parts[2] == f"3 items ({n_probes} probes)"
    assert parts[-1] == "saving to runs/census"
    default = _start(_lines("census", model="fake", sample=2)[0], "census")
    assert default[1] == "dataset census-us (English templates, the default)"


def test_zh_neutral_names_its_language():
    lines, run = _lines("zh-neutral", model="fake", limit=5)
    parts = _start(lines, "zh-neutral")
    assert parts[1] == "dataset demo (Chinese, the default)"
    assert parts[2] == "5 items" and len(run.records) + len(run.skipped) == 5


# -- resuming ---------------------------------------------------------------------------------
def test_resumed_run_counts_the_cached_answers():
    biasatlas.evaluate("crows-pairs", model="fake", dataset="en", limit=6, progress=False)
    parts = _start(_lines("crows-pairs", model="fake", dataset="en", limit=10)[0], "crows-pairs")
    assert parts[-1] == "resuming: 6 of 10 cached"
    again = _start(_lines("crows-pairs", model="fake", dataset="en", limit=10)[0], "crows-pairs")
    assert again[-1] == "resuming: 10 of 10 cached" and "nothing left to score" in again
    fresh = _start(_lines("crows-pairs", model="fake", dataset="en", limit=10, refresh=True)[0], "crows-pairs")
    assert not any(p.startswith("resuming") for p in fresh)  # refresh rescores all of it


@pytest.mark.slow
def test_planned_passes_are_the_passes_the_run_then_computes(tiny_bert):
    """A masked LM's plan of the uncached pairs, against its own counters after scoring them:
    300 pairs are one chunk (pipeline.chunked: a model scorer commits its batches); with the
    first 100 cached, the batches that hold an uncached pair's row are computed, cut over the
    whole chunk, as uncached (scorers/resume.py)."""
    options = {"model": str(tiny_bert), "dataset": "en", "batch_size": 8}
    biasatlas.evaluate("crows-pairs", limit=100, progress=False, **options)
    lines, run = _lines("crows-pairs", limit=300, **options)
    parts = _start(lines, "crows-pairs")
    counted = run.timing["counters"]
    assert run.timing["scored"] == 200
    assert parts[3] == f"model {tiny_bert} (masked-lm, nangia)"
    assert parts[4] == f"{counted['rows_computed']:,} rows in {counted['batches']:,} forward passes"
    assert parts[-1] == "resuming: 100 of 300 cached"


# -- the run folder is the same with or without the line -----------------------------------------
def test_the_start_line_leaves_the_run_folder_unchanged():
    biasatlas.evaluate("census", model="fake", country="no", sample=3, out="quiet", progress=False, cache=False)
    lines, _ = _lines("census", model="fake", country="no", sample=3, out="told", cache=False)
    assert _start(lines, "census")
    for name in RUN_FILES:
        assert (Path("quiet") / name).read_bytes() == (Path("told") / name).read_bytes(), name


# -- the command line --------------------------------------------------------------------------
def test_cli_prints_the_start_line_before_the_table():
    from biasatlas.cli import app

    done = CliRunner().invoke(app, ["run", "crows-pairs", "--model", "fake", "--limit", "5"])
    assert done.exit_code == 0, done.output
    start = done.output.index("crows-pairs · dataset fr+210 (French, the default) · 5 items")
    assert start < done.output.index("CrowS-Pairs")  # before the table, which comes after the scoring
    assert "NOT saved (no --out)" in done.output


def _crows_file(path: Path) -> Path:
    """A two-pair CrowS-Pairs file of the user's own."""
    path.write_text("sent_more,sent_less,stereo_antistereo,bias_type\n"
                    "Women are bad at maths.,Men are bad at maths.,stereo,gender\n"
                    "Old people are slow.,Young people are slow.,stereo,age\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("fixture", ["tiny_gpt2", "tiny_bert", "tiny_bart"])
def test_summary_counts_are_what_an_uncached_run_computes(fixture, request, monkeypatch):
    """The summary's forward-pass counts say what an uncached run computes: an uncached run
    scores chunk by chunk (pipeline.chunked), each chunk batched on its own, so its counts are
    the chunks' counts added up, which is what its own counters (``timing.counters``) hold. A
    plan of all the probes at once batches across chunk boundaries and counts fewer batches.
    A model scorer's chunk is up to 1,024 probes (pipeline.JOB_PROBES): 32 here, for several."""
    monkeypatch.setattr(pipeline, "JOB_PROBES", 32)
    model = request.getfixturevalue(fixture)
    run = biasatlas.evaluate("census", model=str(model), country="no", sample=8, batch_size=8,
                             cache=False, progress=False)
    counted, summary = run.timing["counters"], run.summary_dict
    assert run.timing["scored"] == summary["provenance"]["n_probes"] > 2 * 32  # more than two chunks
    assert summary["n_batches"] == counted["batches"]
    assert summary["n_forward_passes"] == counted["rows_computed"]
    # seq2seq: an encoder input runs once per batch holding its rows (a split one twice)
    assert summary.get("n_encoder_passes") == counted.get("encoder_rows")


@pytest.mark.slow  # a BBQ run hashes its data files and generates on a tiny GPT-2 (seconds)
def test_generated_answers_are_planned_as_texts_to_generate(tiny_gpt2):
    """Generation runs no planned rows (its decoding steps depend on the text): the line counts
    the prompts still to generate, one per item, and a rerun finds them all cached."""
    options = {"model": str(tiny_gpt2), "category": "Religion", "limit": 3, "answers": "generated",
               "max_new_tokens": 4}
    lines, run = _lines("bbq", **options)
    assert _start(lines, "bbq")[4] == "3 texts to generate"
    assert len(run.records) == 3
    again = _start(_lines("bbq", **options)[0], "bbq")
    assert again[4] == "nothing left to score"


def test_a_served_run_counts_requests_not_forward_passes():
    """Issue 49 (severity 1): a served run's banner said "forward passes" of a model it never runs."""
    from biasatlas.api import _passes
    from biasatlas.pipeline import Planned

    work = {"rows_computed": 40, "batches": 3}
    served = Planned("crows-pairs", {}, 20, 20, {"scorer": "served", "endpoint": "http://127.0.0.1:9/v1"}, 0, work)
    local = Planned("crows-pairs", {}, 20, 20, {"scorer": "causal-lm"}, 0, work)
    assert _passes(served) == "40 rows in 3 requests"
    assert _passes(local) == "40 rows in 3 forward passes"
