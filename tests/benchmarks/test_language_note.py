"""A packaged model run on text in a language it was not trained for gets a note (issue 40, item 11):
SmolLM2 is English-only, Gemma 3 multilingual."""

from __future__ import annotations

import pytest

from biasatlas.api import _say_language
from biasatlas.request import ModelOptions, RunRequest
from biasatlas.scorers.inprocess.model_languages import language_note


def test_smollm2_on_other_languages_gets_a_note_and_gemma_none():
    french = language_note("smollm2-135m", "French")
    assert french is not None and "English text only" in french and "French" in french
    assert "gemma-3-270m is multilingual" in french
    assert "Korean" in (language_note("smollm2-135m", "ko") or "")  # BBQ names its languages by code
    assert "Norwegian" in (language_note("smollm2-135m", "Norwegian templates") or "")
    assert language_note("smollm2-135m", "English templates") is None
    assert language_note("gemma-3-270m", "French") is None  # multilingual
    assert language_note("bert-base-cased", "French") is None  # not a packaged model: nothing known
    assert language_note("smollm2-135m", None) is None  # a user's file of unknown language


@pytest.mark.slow  # builds two CrowS-Pairs requests (their data read and hashed): about a second
def test_a_run_says_it_before_scoring(isolated_run):
    said: list[str] = []
    _say_language(said.append, RunRequest("crows-pairs", {}, ModelOptions(model="smollm2-135m")))  # French by default
    assert len(said) == 1 and said[0].startswith("note: smollm2-135m was trained on English text only")
    said.clear()
    _say_language(said.append, RunRequest("crows-pairs", {"dataset": "en"}, ModelOptions(model="smollm2-135m")))
    assert said == []
