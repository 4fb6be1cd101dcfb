"""A packaged model run on text in a language it was not trained for gets a note (issue 40, item 11):
SmolLM2 is English-only, Gemma 3 multilingual."""

from __future__ import annotations

import json

import pytest

from biasatlas.api import _language_note
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


class _Served:
    """A served scorer as :func:`_language_note` reads it: what its describe() says of the folder
    its server serves (the packaged record the served wing read there)."""

    def __init__(self, record: dict[str, str] | None) -> None:
        self.record = record

    def describe(self) -> dict[str, object]:
        return {"scorer": "served", **({"packaged": self.record} if self.record else {})}


@pytest.mark.slow  # builds CrowS-Pairs requests (their data read and hashed): about a second each
def test_a_run_notes_it_for_a_packaged_name_or_a_served_packaged_folder(isolated_run):
    french = RunRequest("crows-pairs", {}, ModelOptions(model="smollm2-135m"))  # French by default
    note = _language_note(french, _Served(None))
    assert note is not None and note.startswith("note: smollm2-135m was trained on English text only")
    english = RunRequest("crows-pairs", {"dataset": "en"}, ModelOptions(model="smollm2-135m"))
    assert _language_note(english, _Served(None)) is None
    served = RunRequest("crows-pairs", {}, ModelOptions(model="http://127.0.0.1:9/v1"))
    assert _language_note(served, _Served({"name": "smollm2-135m"})) == note  # issue 49, item 7
    assert _language_note(served, _Served(None)) is None  # a server elsewhere: nothing known


def test_the_note_reaches_the_report_and_is_printed_once(tmp_path):
    from report_fixtures import crows_run

    from biasatlas.report import build_report, load_run, render
    from biasatlas.report.sections import run_terminal

    folder = crows_run(tmp_path / "run")
    summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    note = language_note("smollm2-135m", "French")
    (folder / "summary.json").write_text(json.dumps({**summary, "language_note": note}), encoding="utf-8")
    run = load_run(folder)
    assert note in render(build_report([run], compare=False), "md")
    assert note not in run_terminal(run).notices  # said before the scoring began
