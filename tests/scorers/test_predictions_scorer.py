"""The predictions scorer on probes built here (biasatlas.scorers.predictions.scorer): how a file's answer
becomes each probe kind's, and the join's counts, with the arithmetic in the comments."""

from __future__ import annotations

from pathlib import Path

import pytest

from biasatlas.errors import UsageError
from biasatlas.probes import (ContinuationProbe, GenerationAnswer, GenerationProbe, PairAnswer, PairProbe,
                              SentenceAnswer, SentenceProbe, SlotAnswer)
from biasatlas.scorers.predictions.predicted import Answer, FileAnswers
from biasatlas.scorers.predictions.scorer import EXTRA, MISSING, PredictionsScorer, probe_key


def _scorer(answers: dict[str, Answer], **shares: float) -> PredictionsScorer:
    return PredictionsScorer(FileAnswers(Path("f.jsonl"), "0" * 64, "plain", answers, "m"), **shares)


def test_an_options_probe_reads_its_option() -> None:
    scorer = _scorer({"Age/0": Answer(chosen=2), "Age/1": Answer(values=(-1.0, -3.0, -2.0))})
    probes = [ContinuationProbe(f"Age/{i}#{k}", ("ctx",), " x") for i in range(2) for k in range(3)]
    scored = scorer.score(probes)
    # a chosen option scores 1, the others 0; option scores are taken as they are
    assert [scored[f"Age/0#{k}"] for k in range(3)] == [SlotAnswer(f"Age/0#{k}", (v,), (1,))
                                                         for k, v in enumerate((0.0, 0.0, 1.0))]
    assert [scored[f"Age/1#{k}"].logprobs for k in range(3)] == [(-1.0,), (-3.0,), (-2.0,)]  # type: ignore[union-attr]


def test_a_sentence_probe_reads_its_own_id() -> None:
    scored = _scorer({"s1": Answer(values=(0.25,))}).score([SentenceProbe("s1", "text"), SentenceProbe("s2", "t")])
    assert scored["s1"] == SentenceAnswer("s1", 0.25, 1)
    assert scored.unscorable == {"s2": MISSING}


def test_a_pair_is_read_the_way_round_the_probe_asks() -> None:
    scorer = _scorer({"p": Answer(values=(-5.0, -7.0), texts=("more", "less")), "q": Answer(values=(-1.0, -2.0),
                                                                                            texts=("x", "y"))})
    scored = scorer.score([PairProbe("p", "less", "more"), PairProbe("q", "a", "b")])
    assert scored["p"] == PairAnswer("p", -7.0, -5.0, 1, 1)  # the probe asks "less" first
    assert "not the pair's" in scored.unscorable["q"]


def test_a_generated_text_answers_only_a_generation_probe() -> None:
    scorer = _scorer({"g": Answer(generated=" The old man."), "s": Answer(values=(-1.0, -2.0, -3.0))})
    scored = scorer.score([GenerationProbe("g", "Q: who?\nA:", 8), GenerationProbe("s", "Q: who?\nA:", 8),
                           ContinuationProbe("g#0", ("ctx",), " x")])
    assert scored["g"] == GenerationAnswer("g", " The old man.", 0, "given")  # as written, to be parsed
    assert "not generated text" in scored.unscorable["s"]
    assert "--answers generated" in scored.unscorable["g#0"]


def test_a_probe_needing_two_contexts_is_unscorable() -> None:
    scored = _scorer({"i": Answer(values=(1.0, 2.0))}).score([ContinuationProbe("i#0", ("a", "b"), " x")])
    assert "one value per option" in scored.unscorable["i#0"]


def test_the_join_counts_and_refuses() -> None:
    answers = {"a": Answer(values=(1.0,)), "b": Answer(why="bad"), "z": Answer(values=(2.0,))}
    probes = [SentenceProbe(i, "t") for i in ("a", "b", "c", "d")]
    with pytest.raises(UsageError) as refused:
        _scorer(answers).join(probes)
    # asked a b c d: c and d missing, b unreadable → 3 of 4; the file's z matches none → 1 of 3
    assert "3 of the run's 4 ids" in str(refused.value) and "1 of the file's 3 ids" in str(refused.value)
    join = _scorer(answers, max_missing=0.75, max_extra=1 / 3).join(probes)
    assert (join.missing, join.unreadable, join.extra) == (("c", "d"), (("b", "bad"),), ("z",))
    rows = join.skipped([{"id": "c", "reason": "no score from the model"}], {"c": MISSING, "d": MISSING})
    assert rows == [{"id": "c", "reason": MISSING, "predictions": "missing"},
                    {"id": "d", "predictions": "missing", "reason": MISSING},
                    {"id": "b", "predictions": "unreadable", "reason": "unreadable in the predictions file: bad"},
                    {"id": "z", "predictions": "extra", "reason": EXTRA}]


def test_a_file_answering_nothing_is_refused_whatever_the_shares() -> None:
    with pytest.raises(UsageError, match="another benchmark"):
        _scorer({"x": Answer(values=(1.0,))}, max_missing=1, max_extra=1).join([SentenceProbe("a", "t")])


def test_probe_key() -> None:
    assert probe_key("Age/3#2", {}) == ("Age/3", 2)
    assert probe_key("a#b", {}) == ("a#b", None)  # not an option index
    assert probe_key("s#1", {"s#1": 0}) == ("s#1", None)  # the file's own id wins


def test_a_pair_differing_only_in_case_is_read_by_its_exact_texts() -> None:
    # issue 46: case- and space-folded texts were tried swapped first, so "Black"/"black" was read backwards
    more, less = "Black people are loud.", "black people are loud."
    scorer = _scorer({"p": Answer(values=(-1.0, -5.0), texts=(more, less)),
                      "q": Answer(values=(-1.0, -5.0), texts=(less, more))})
    scored = scorer.score([PairProbe("p", more, less), PairProbe("q", more, less)])
    assert scored["p"] == PairAnswer("p", -1.0, -5.0, 1, 1)  # as listed: exact, direct
    assert scored["q"] == PairAnswer("q", -5.0, -1.0, 1, 1)  # listed [less, more]: exact, swapped


def test_the_strictest_match_decides_the_order() -> None:
    # the file's first text equals the probe's b exactly, its second a only once spacing is folded: swapped;
    # two texts folded alike cannot tell a case-only pair's scores apart: unreadable, never guessed
    from biasatlas.scorers.predictions.scorer import text_level

    scorer = _scorer({"p": Answer(values=(-1.0, -5.0), texts=("a\u00a0b", "A b")),
                      "q": Answer(values=(-1.0, -5.0), texts=("a b", "a b"))})
    scored = scorer.score([PairProbe("p", "A b", "a b"), PairProbe("q", "A b", "a b")])
    assert scored["p"] == PairAnswer("p", -5.0, -1.0, 1, 1)
    assert "either way round" in scored.unscorable["q"]
    assert (text_level("A b", "A b"), text_level("A  b", "A b"), text_level("A b", "a\u00a0b"),
            text_level("A b", "A c")) == (0, 1, 2, None)


def test_an_answer_that_cannot_answer_its_probe_counts_as_unreadable() -> None:
    # issue 46: read but unusable (three scores for a pair; another pair's sentences) was not counted
    answers = {"a": Answer(values=(-1.0, -2.0)), "b": Answer(values=(-1.0, -2.0, -3.0)),
               "c": Answer(values=(-1.0, -2.0), texts=("x!", "y."))}
    probes = [PairProbe("a", "x.", "y."), PairProbe("b", "x.", "y."), PairProbe("c", "x.", "y.")]
    with pytest.raises(UsageError, match="2 of the run's 3 ids") as refused:
        _scorer(answers).join(probes)
    assert "1 of 3 ids answered; 0 missing, 2 unreadable" in str(refused.value)
    assert "(first: a pair needs 2 scores, the file gives 3)" in str(refused.value)
    join = _scorer(answers, max_missing=2 / 3).join(probes)
    assert join.unreadable == (("b", "a pair needs 2 scores, the file gives 3"),
                               ("c", "the file's sentences are not the pair's"))
    rows = join.skipped([{"id": "b", "reason": "no score from the model"}], {"b": "x", "c": "y"})
    assert rows == [{"id": "b", "reason": "unreadable in the predictions file: a pair needs 2 scores, the file gives 3",
                     "predictions": "unreadable"},
                    {"id": "c", "predictions": "unreadable",
                     "reason": "unreadable in the predictions file: the file's sentences are not the pair's"}]
