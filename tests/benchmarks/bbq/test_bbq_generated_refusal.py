"""``bbq --answers generated`` on a scorer that writes no text is refused when the benchmark is bound to it,
before any scoring (and, for a masked LM, before its weights load), in one line naming the scorer and what
to do; a scorer that generates, and a predictions file of generated texts, are not refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from biasatlas.benchmarks.bbq import BBQ
from biasatlas.errors import UsageError
from biasatlas.model_options import ModelOptions
from biasatlas.probes import ScorerInfo
from biasatlas.scorers.predictions.predicted import Answer, FileAnswers
from biasatlas.scorers.predictions.scorer import PredictionsScorer


def _file(*answers: Answer) -> PredictionsScorer:
    return PredictionsScorer(FileAnswers(Path("f.jsonl"), "0" * 64, "lm-eval",
                                         {f"Age/{i}": a for i, a in enumerate(answers)}, "m"))


def test_a_masked_lm_is_refused_before_its_weights_load() -> None:
    # ModelOptions.check_fits binds the benchmark to what the kind's answers are (registry tables), no load
    with pytest.raises(UsageError, match=r"^--answers generated: the masked-lm scorer does not generate text; "
                                         r"use a causal LM .* or leave --answers at likelihood$"):
        ModelOptions(model="bert-base-uncased", scorer="masked-lm").check_fits(BBQ(answers="generated"),
                                                                              "masked-lm")


def test_a_loaded_masked_scorers_info_is_refused_too() -> None:
    info = ScorerInfo(kind="masked-lm", reads="masked", multi_token="joint", generates=False)
    with pytest.raises(UsageError, match="the masked-lm scorer does not generate text"):
        BBQ(answers="generated").bind(info)
    BBQ().bind(info)  # the likelihood reading of the same scorer stays allowed


def test_a_predictions_file_of_option_scores_is_refused_and_one_of_texts_is_not() -> None:
    scores = _file(Answer(values=(-1.0, -2.0, -3.0)), Answer(chosen=1))
    assert scores.info.generates is False
    with pytest.raises(UsageError, match=r"the predictions file holds option scores, not generated texts; give a "
                                         r"file of generated answers"):
        BBQ(answers="generated").bind(scores.info)
    texts = _file(Answer(generated=" The grandson."), Answer(values=(-1.0, -2.0, -3.0)))
    assert texts.info.generates is True  # one generated text is enough: the others are unreadable then
    BBQ(answers="generated").bind(texts.info)


def test_a_scorer_that_generates_or_does_not_say_is_not_refused() -> None:
    for generates in (True, None):  # None: a plugin's scorer that does not say (its score refuses, as before)
        BBQ(answers="generated").bind(ScorerInfo(kind="causal-lm", reads="sequence", generates=generates))
    # the pre-load tables: a causal LM and a served model generate, the fake scorer does not
    ModelOptions(model="x", scorer="causal-lm").check_fits(BBQ(answers="generated"), "causal-lm")
    with pytest.raises(UsageError, match="the fake scorer does not generate text"):
        ModelOptions(model="fake").check_fits(BBQ(answers="generated"), "fake")
