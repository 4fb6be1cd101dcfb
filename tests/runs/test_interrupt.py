"""Ctrl-C keeps finished work (issue 22 item 5): every finished chunk is in the score cache, a
small run is cut in tenths so it has finished chunks to keep (tests/scorers/test_ray_engine.py checks
the cut), the run says how much it kept,
and the rerun resumes there and ends with the answers an uninterrupted run gives."""

from __future__ import annotations

import pytest

import biasatlas
from biasatlas.cache import ScoreCache
from biasatlas.errors import RunInterrupted
from biasatlas.scorers.engines import LocalEngine


class _StopAfter(LocalEngine):
    """A local engine whose user presses Ctrl-C once ``chunks`` chunks have been answered."""

    def __init__(self, chunks: int) -> None:
        super().__init__()
        self.chunks = chunks

    def score_chunks(self, scorer, chunks, progress, answered=frozenset(), *, keep=None):
        for i, result in enumerate(super().score_chunks(scorer, chunks, progress, answered, keep=keep)):
            if i == self.chunks:
                raise KeyboardInterrupt
            yield result


def test_an_interrupted_run_keeps_its_finished_chunks_and_resumes_there(isolated_run, monkeypatch):
    from biasatlas.api import execute
    from biasatlas.request import EngineOptions, ModelOptions, RunRequest

    # census NO, 3 occupations: 3 × 16 = 48 fake-scored probes → chunks of 16 (a tenth, 5, is under 16)
    def request():
        return RunRequest("census", {"country": "no", "sample": 3}, ModelOptions(model="fake"),
                          EngineOptions())
    cache = ScoreCache(isolated_run / "cache.sqlite")
    monkeypatch.setattr(EngineOptions, "build", lambda self, model: _StopAfter(2))
    with pytest.raises(RunInterrupted) as stopped:
        execute(request(), cache=cache, progress=False)
    assert (stopped.value.kept, stopped.value.total) == (32, 48)  # two chunks of 16
    assert str(stopped.value) == "interrupted: 32 of 48 answers kept; rerun the same command to resume"
    monkeypatch.undo()
    resumed = execute(request(), cache=cache, progress=False)
    assert (resumed.timing["cache_hits"], resumed.timing["scored"]) == (32, 16)
    clean = execute(request(), cache=False, progress=False)
    assert resumed.records == clean.records and resumed.summary_dict == clean.summary_dict


def test_without_a_cache_it_says_nothing_was_kept(isolated_run, monkeypatch):
    from biasatlas.request import EngineOptions

    monkeypatch.setattr(EngineOptions, "build", lambda self, model: _StopAfter(1))
    with pytest.raises(KeyboardInterrupt, match="interrupted: nothing kept"):
        biasatlas.evaluate("census", model="fake", country="no", sample=3, cache=False, progress=False)


def test_the_command_line_prints_what_it_kept(isolated_run, monkeypatch, capsys):
    """typer turns a KeyboardInterrupt into exit status 130 and drops its message: the command
    line still prints the run's count, not a bare 'interrupted'."""
    from biasatlas.cli import main
    from biasatlas.request import EngineOptions

    monkeypatch.setattr(EngineOptions, "build", lambda self, model: _StopAfter(2))
    with pytest.raises(SystemExit) as stopped:
        main(["run", "census", "--country", "no", "--sample", "3", "--model", "fake"])
    assert stopped.value.code == 130
    said = capsys.readouterr().err.strip().splitlines()
    assert said[-1] == "interrupted: 32 of 48 answers kept; rerun the same command to resume"
