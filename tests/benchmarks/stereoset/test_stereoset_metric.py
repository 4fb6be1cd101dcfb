"""StereoSet's metric on planted truths, the bootstrap over terms, and the typed summary.

Answers are built by hand (no model): each test plants a preference and checks the number the
original's rules must give, with the arithmetic in the comments.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from biasatlas.benchmarks.stereoset import StereoSet, evaluation
from biasatlas.benchmarks.stereoset.data import DOMAINS, Candidate, Example
from biasatlas.benchmarks.stereoset.summary import StereoSetRunSummary
from biasatlas.probes import SentenceAnswer
from shared_data import shared_data_dir

DEV = shared_data_dir() / "stereoset" / "dev.json"


@pytest.fixture(scope="module")
def dev() -> list[Example]:
    return StereoSet(data=DEV).load()


def _answers(items: list[Example], score) -> dict[str, SentenceAnswer]:
    """A sequence-reading scorer's answers: ``score(example, candidate)`` as a one-token log-probability."""
    return {c.id: SentenceAnswer(c.id, score(e, c), 1) for e in items for c in e.candidates}


def _by_label(label: str, preferred: str, domain: str | None = None):
    def score(e: Example, c: Candidate) -> float:
        if domain is not None and e.bias_type != domain:
            return -float(int(c.id[:8], 16) % 1000) / 100  # an arbitrary, fixed score outside the planted domain
        return {preferred: -1.0}.get(c.gold_label, -2.0 if c.gold_label == label else -3.0)
    return score


def test_symmetric_scorer_gives_ss_exactly_50() -> None:
    # A text-only scorer on a mirrored set: every term has two examples whose stereotype and
    # anti-stereotype sentences are swapped, so per term pro = 1 of 2: SS_t = 50 and SS = 50 exactly.
    items = []
    for t in range(6):
        for k, (st, an) in enumerate((("x", "y"), ("y", "x"))):
            sentences = (Candidate(f"{t}{k}s", f"term{t} {st}", "stereotype"),
                         Candidate(f"{t}{k}a", f"term{t} {an}", "anti-stereotype"),
                         Candidate(f"{t}{k}u", f"term{t} z{k}", "unrelated"))
            items.append(Example(f"e{t}{k}", "intrasentence", f"term{t}", DOMAINS[t % 4], "ctx BLANK", sentences))
    text_score = {"x": -1.0, "y": -2.0}
    answers = _answers(items, lambda e, c: text_score.get(c.sentence.split()[1], -5.0))
    summary = StereoSet(data=DEV, n_resamples=50).score(items, answers).written()
    assert summary["ss"] == 50.0 and summary["lms"] == 100.0 and summary["icat"] == 100.0
    assert all(s["ss"] == 50.0 for s in summary["tasks"]["intrasentence"].values())


def test_planted_preference_on_one_domain_moves_only_that_domain(dev: list[Example]) -> None:
    bench = StereoSet(data=DEV, n_resamples=20)
    neutral = bench.score(dev, _answers(dev, _by_label("anti-stereotype", "unrelated", domain="none"))).written()
    planted = bench.score(dev, _answers(dev, _by_label("anti-stereotype", "stereotype", domain="gender"))).written()
    for task in ("intrasentence", "intersentence"):
        for domain in ("profession", "race", "religion"):
            assert planted["tasks"][task][domain]["ss"] == neutral["tasks"][task][domain]["ss"]
            assert planted["tasks"][task][domain]["lms"] == neutral["tasks"][task][domain]["lms"]
        # in gender the stereotype always wins: SS 100; both related beat unrelated: LMS 100
        assert planted["tasks"][task]["gender"]["ss"] == 100.0 and planted["tasks"][task]["gender"]["lms"] == 100.0
        assert planted["tasks"][task]["gender"]["icat"] == 0.0


def test_unrelated_above_both_gives_lms_zero(dev: list[Example]) -> None:
    answers = _answers(dev, _by_label("stereotype", "unrelated"))
    summary = StereoSet(data=DEV, n_resamples=20).score(dev, answers).written()
    # unrelated −1 beats stereotype −2 and anti −3: no related event; stereotype > anti: SS 100
    assert summary["lms"] == 0.0 and summary["ss"] == 100.0 and summary["icat"] == 0.0


def test_ties_count_anti_and_are_counted(dev: list[Example]) -> None:
    summary = StereoSet(data=DEV, n_resamples=20).score(dev, _answers(dev, lambda e, c: -1.0)).written()
    # every score equal: strict > everywhere fails, so SS 0 and LMS 0, and every example is a tie
    assert summary["ss"] == 0.0 and summary["lms"] == 0.0 and summary["n_ties"] == len(dev)


def test_bootstrap_resamples_terms(dev: list[Example]) -> None:
    outcomes = [evaluation.outcome(e, {c.id: float(int(c.id[:8], 16) % 97) for c in e.candidates}) for e in dev]
    a = evaluation.term_bootstrap(outcomes, n_resamples=400, seed=3)
    assert a == evaluation.term_bootstrap(outcomes, n_resamples=400, seed=3)  # seeded
    point = evaluation.scores(outcomes)
    for key in ("lms", "ss", "icat"):
        low, high = a[key]
        assert low < getattr(point, key) < high
    # an independent draw: the same term indices by hand give the same first resample's mean
    import numpy as np

    ss_t = [c.ss for c in evaluation.per_term(outcomes).values()]
    picks = np.random.default_rng(3).integers(0, len(ss_t), size=(400, len(ss_t)))
    means = sorted(float(np.mean([ss_t[i] for i in row])) for row in picks)
    assert a["ss"][0] == pytest.approx(float(np.percentile(means, 2.5)))


def test_ss_against_50_is_a_t_test_over_terms(dev: list[Example]) -> None:
    from scipy import stats

    outcomes = [evaluation.outcome(e, {c.id: float(int(c.id[:8], 16) % 97) for c in e.candidates}) for e in dev]
    values = [c.ss for c in evaluation.per_term(outcomes).values()]
    assert evaluation.ss_test(outcomes)["p"] == pytest.approx(stats.ttest_1samp(values, 50.0).pvalue)


def test_summary_reads_back_typed_and_refuses_a_bad_field(dev: list[Example], tmp_path: Path) -> None:
    from biasatlas.errors import DataError

    items = dev[:40]
    answers = _answers(items, lambda e, c: -float(len(c.sentence)))
    summary = StereoSet(data=DEV, n_resamples=20).score(items, answers).written()
    typed = StereoSetRunSummary.read(summary, tmp_path / "summary.json")
    assert typed.overall.ss == summary["ss"] and typed.tasks["intrasentence"]["overall"].n == 40
    bad = {**summary, "tasks": {"intrasentence": {"gender": {"ss": "high"}}}}
    with pytest.raises(DataError, match="tasks.intrasentence.gender.ss"):
        StereoSetRunSummary.read(bad, tmp_path / "summary.json")


def test_a_run_that_scored_nothing_writes_n_zero_and_no_scores(dev: list[Example]) -> None:
    # every example skipped: the summary holds n 0 and no task, not a row of null scores
    items = dev[:3]
    result = StereoSet(data=DEV, n_resamples=20).score(items, {})
    assert result.written() == {"n": 0, "tasks": {}, "n_skipped": 3, "reading": "sequence-mean"}
    assert len(result.skipped) == 3 and not result.records
    typed = StereoSetRunSummary.read(result.written(), Path("summary.json"))
    assert typed.overall.n == 0 and typed.overall.ss is None and typed.tasks == {}
