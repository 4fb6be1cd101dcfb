"""BBQ's paired comparison (its spec's ``view.paired``: McNemar on answered-correctly, per context)
on records whose differences are planted: a run against itself differs by exactly nothing, and
against a copy with some answers flipped by the flips, worked out by hand below (issue 35: the
comparison run on A against itself passed every test)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from biasatlas.benchmarks.bbq import SPEC
from biasatlas.display.paired import Paired
from biasatlas.runs.view import RunView

# Ten scored examples per context and one tie (correct: None), which the test leaves out.
# A: ambiguous 4 of 10 correct, disambiguated 6 of 10 correct.
AMBIG_A = [True] * 4 + [False] * 6
DISAMBIG_A = [True] * 6 + [False] * 4


def _records(ambig: list[bool], disambig: list[bool]) -> list[dict[str, Any]]:
    rows = [{"id": f"Age/{i}", "context_condition": "ambig", "correct": c} for i, c in enumerate(ambig)]
    rows += [{"id": f"Age/{100 + i}", "context_condition": "disambig", "correct": c} for i, c in enumerate(disambig)]
    return rows + [{"id": "Age/999", "context_condition": "ambig", "correct": None}]


def _view(name: str, records: list[dict[str, Any]]) -> RunView:
    return RunView(Path(name), {}, {"benchmark": "bbq", "model": name}, records, label=name)


def _compare(a: RunView, b: RunView) -> Paired:
    assert SPEC.view.paired is not None
    return SPEC.view.paired.test(a, b, n_resamples=200, seed=0)


def test_a_run_against_itself_differs_by_exactly_nothing() -> None:
    a = _view("a", _records(AMBIG_A, DISAMBIG_A))
    paired = _compare(a, _view("a-again", _records(AMBIG_A, DISAMBIG_A)))
    assert (paired.n_paired, paired.n_only_a, paired.n_only_b) == (21, 0, 0)
    assert [t.scope for t in paired.tests] == ["ambig", "disambig"]
    for test, share in zip(paired.tests, (40.0, 60.0)):
        assert test.n == 10  # the tie is no answer to compare
        assert test.value_a == test.value_b == share
        assert test.difference == 0.0 and (test.ci_low, test.ci_high) == (0.0, 0.0)


def test_a_shifted_copy_differs_by_the_answers_flipped() -> None:
    # B: three of A's wrong ambiguous answers right (4 → 7 of 10), two right disambiguated ones wrong (6 → 4);
    # B's records in the other order, so the comparison must pair them by id.
    ambig_b = [True] * 7 + [False] * 3
    disambig_b = [True] * 4 + [False] * 6
    a = _view("a", _records(AMBIG_A, DISAMBIG_A))
    b = _view("b", list(reversed(_records(ambig_b, disambig_b))))
    ambig, disambig = _compare(a, b).tests
    # B − A in % correct: 70 − 40 = +30 and 40 − 60 = −20
    assert (ambig.value_a, ambig.value_b, ambig.difference) == (40.0, 70.0, 30.0)
    assert (disambig.value_a, disambig.value_b, disambig.difference) == (60.0, 40.0, -20.0)
    # McNemar exact: 3 discordant pairs all one way, p = 2 · 0.5³ = 0.25; 2 pairs, p = 2 · 0.5² = 0.5
    assert ambig.p == pytest.approx(0.25) and disambig.p == pytest.approx(0.5)
    assert ambig.method == disambig.method == "McNemar exact"
    # the bootstrap of per-item differences (+100 on 3 items, 0 on 7) stays within what those can average
    assert ambig.ci_low is not None and ambig.ci_high is not None
    assert 0.0 <= ambig.ci_low <= 30.0 <= ambig.ci_high <= 100.0
    assert disambig.ci_low is not None and disambig.ci_high is not None
    assert -100.0 <= disambig.ci_low <= -20.0 <= disambig.ci_high <= 0.0
