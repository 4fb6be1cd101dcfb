"""Hostile input, table-driven: each gets a clear error naming file, line and field, or a
recorded skip with a reason — never a crash or a silent wrong number (README table)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from biasatlas.benchmarks.crows_pairs import CrowsPairs, read_pairs
from biasatlas.errors import DataError, ModelError, UnknownName
from biasatlas.pipeline import run_benchmark
from biasatlas.probes import PairAnswer
from biasatlas.registry import load_benchmark, load_scorer
from biasatlas.scorers.fake import FakeScorer
from biasatlas.scorers.inprocess.masked_lm import MaskedLMScorer

HEADER = "\tsent_more\tsent_less\tstereo_antistereo\tbias_type\n"
GOOD = "0\tShe is here.\tHe is here.\tstereo\tgender\n"


def _write(tmp_path: Path, text: str | bytes) -> Path:
    path = tmp_path / "pairs.tsv"
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


# (name, file content, expected line, expected field) — every one is a DataError.
ERRORS = [
    ("missing column", "\tsent_more\tsent_less\tbias_type\n" + "0\ta\tb\tage\n", 1, "stereo_antistereo"),
    ("wrong delimiter", "|sent_more|sent_less|stereo_antistereo|bias_type\n", 1, "sent_more"),  # ; is read
    ("extra column", HEADER + "0\ta\tb\tstereo\tage\tsurplus\n", 2, None),
    ("empty file", "", None, None),
    ("windows-1252", (HEADER + "0\tCafé\tB\tstereo\tage\n").encode("cp1252"), 2, None),
    ("duplicate ids", HEADER + GOOD + GOOD, None, "" ),
    ("unknown category", HEADER + "0\ta\tb\tstereo\tweather\n", 2, "bias_type"),
    ("missing direction", HEADER + "0\ta\tb\t\tage\n", 2, "stereo_antistereo"),
]


@pytest.mark.parametrize("name,content,line,field", ERRORS, ids=[e[0] for e in ERRORS])
def test_bad_files_are_clear_errors(tmp_path, name, content, line, field):
    path = _write(tmp_path, content)
    with pytest.raises(DataError) as err:
        read_pairs(path)
    assert str(path) in str(err.value)
    if line is not None:
        assert err.value.line == line
    if field:
        assert err.value.field == field


def test_bom_blank_rows_and_degenerate_pairs_are_accepted_and_recorded(tmp_path):
    path = _write(tmp_path, "\ufeff" + HEADER + GOOD + "\n" + "1\tSame.\tSame.\tstereo\tage\n"
                  + "2\tNot empty.\t\tstereo\tage\n")
    run = run_benchmark(CrowsPairs(dataset=None, data=path), FakeScorer())
    flags = {r["id"]: r["flag"] for r in run.records}
    assert flags == {"0": None, "1": "identical sentences", "2": "empty sentence"}
    # The identical pair ties; the empty one is scored as the scorer scores "" (the fake
    # scorer hashes it), as every original scores every row it reads.
    outcomes = {r["id"]: r["outcome"] for r in run.records}
    assert outcomes["1"] == "tie" and outcomes["2"] != "tie" and run.summary["n"] == 3


class _NaNScorer(FakeScorer):
    """Returns NaN for any sentence containing 'broken': a numerically failing model."""

    def _text_score(self, text: str) -> float:
        return math.nan if "broken" in text else super()._text_score(text)


def test_non_finite_scores_become_recorded_skips(tmp_path):
    path = _write(tmp_path, HEADER + GOOD + "1\tA broken one.\tA fine one.\tstereo\tage\n")
    run = run_benchmark(CrowsPairs(dataset=None, data=path), _NaNScorer())
    assert [r["id"] for r in run.records] == ["0"]  # the NaN pair is not counted as a tie
    assert run.summary["n"] == 1 and run.summary["n_skipped"] == 1
    assert any(s["id"] == "1" and "non-finite" in s["reason"] for s in run.skipped)


def test_too_long_sentences_are_skipped_with_a_reason(tmp_path, tiny_bert):
    long = "word " * 400  # over the tiny model's 256 positions
    path = _write(tmp_path, HEADER + GOOD + f"1\tShe {long}.\tHe {long}.\tstereo\tgender\n")
    run = run_benchmark(CrowsPairs(dataset=None, data=path), MaskedLMScorer(str(tiny_bert)))
    assert [r["id"] for r in run.records] == ["0"]
    reason = next(s["reason"] for s in run.skipped if s["id"] == "1")
    assert "exceed" in reason


@pytest.mark.parametrize("model,error,message", [
    ("/nonexistent/model-folder", ModelError, "does not exist"),
    (".", ModelError, "not a model folder"),
])
def test_unknown_models_are_clear_errors(model, error, message):
    with pytest.raises(error, match=message):
        load_scorer(model, "masked-lm")


def test_unknown_names_suggest_the_right_one():
    with pytest.raises(UnknownName, match="Did you mean 'crows-pairs'"):
        load_benchmark("crows-pair")
    with pytest.raises(UnknownName, match="Did you mean 'masked-lm'"):
        load_scorer("fake", "masked-l")


text = st.text(st.characters(blacklist_categories=("Cs",)), min_size=0, max_size=60)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(more=text, less=text)
def test_arbitrary_unicode_never_crashes_the_loader_or_the_metric(tmp_path, more, less):
    # French accents, CJK, emoji, control characters: either a clean parse that keeps the
    # text as stored, or a DataError naming the file — nothing else.
    row = f"0\t{more}\t{less}\tstereo\tgender\n"
    path = _write(tmp_path, HEADER + row)
    try:
        pairs = read_pairs(path)
    except DataError as err:
        assert str(path) in str(err)
        return
    if not any(c in more + less for c in '\r\n\t"'):  # nothing the CSV syntax itself reads
        assert [(p.sent_more, p.sent_less) for p in pairs] == [(more, less)]
    for pair in pairs:
        run = CrowsPairs(dataset=None).score(pairs, {pair.id: PairAnswer(pair.id, -1.0, -2.0)})
        assert run.records[0]["outcome"] in ("more", "less", "tie")
