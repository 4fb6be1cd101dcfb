"""Agreement between measures (biasatlas.report.agreement): planted orders, parity with scipy, and the report.

Three fake models score on CrowS-Pairs and StereoSet; their headlines go on the "more biased is
larger" scale (both: distance from 50). Same order on both gives ρ = τ = 1, reversed gives −1.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import kendalltau, spearmanr

from biasatlas.runs.view import RunView
from biasatlas.report import build_report, render
from biasatlas.report.agreement import MIN_MODELS, Measure, agree, kendall_rows, spearman_rows


def _crows(model: str, metric: float) -> RunView:
    summary = {"benchmark": "crows-pairs", "model": model, "dataset": "en", "n": 100, "metric_score": metric,
               "neutral": 0, "intervals": {"metric_score": [metric - 5, metric + 5]}}
    return RunView(Path(f"crows-{model}"), {}, summary, [], label=model)


def _stereoset(model: str, ss: float) -> RunView:
    summary = {"benchmark": "stereoset", "model": model, "dataset": "dev", "n": 100, "n_terms": 20, "ss": ss,
               "lms": 90.0, "icat": 50.0, "n_ties": 0,
               "intervals": {"ss": [ss - 4, ss + 4], "lms": [88.0, 92.0], "icat": [45.0, 55.0]}}
    return RunView(Path(f"stereoset-{model}"), {}, summary, [], label=model)


def _report(crows: list[float], stereoset: list[float], models: tuple[str, ...] = ("a", "b", "c")):
    runs = [_crows(m, v) for m, v in zip(models, crows)] + [_stereoset(m, v) for m, v in zip(models, stereoset)]
    return build_report(runs, compare=False, n_resamples=500, seed=0)


def test_the_same_order_on_two_benchmarks_gives_one() -> None:
    # CrowS 55, 60, 70 → bias 5, 10, 20; SS 48, 42, 80 → bias 2, 8, 30: the same order
    (row,) = _report([55.0, 60.0, 70.0], [48.0, 42.0, 80.0]).agreement
    assert row.n_models == 3 and row.spearman == 1.0 and row.kendall == 1.0
    assert row.a == "crows-pairs metric score (en)" and row.b == "stereoset SS (dev)"
    # every resample of a perfect agreement is 1 (or all-tied and left out): the interval is the point
    assert row.spearman_ci == (1.0, 1.0) and row.kendall_ci == (1.0, 1.0)


def test_the_reversed_order_gives_minus_one() -> None:
    # CrowS bias 5, 10, 20; SS bias 30, 8, 2: reversed
    (row,) = _report([55.0, 60.0, 70.0], [80.0, 42.0, 48.0]).agreement
    assert row.spearman == -1.0 and row.kendall == -1.0 and row.spearman_ci == (-1.0, -1.0)


def test_two_common_models_are_too_few_and_say_so() -> None:
    row = agree(Measure("x", {"a": 5.0, "b": 10.0}), Measure("y", {"a": 2.0, "b": 8.0}))
    assert row.n_models == 2 and row.spearman is None and row.kendall is None
    assert "too few" in row.note and str(MIN_MODELS) in row.note


def test_a_report_over_fewer_models_than_a_ranking_needs_has_no_agreement_section() -> None:
    # issue 40: with two models every row could only say "too few to rank"
    report = _report([55.0, 60.0], [48.0, 42.0], models=("a", "b"))
    assert report.agreement == () and "Agreement between measures" not in render(report, "md")


def test_one_model_gives_no_agreement_section() -> None:
    report = build_report([_crows("a", 55.0), _stereoset("a", 60.0)], compare=False)
    assert report.agreement == () and "Agreement between measures" not in render(report, "md")


def test_two_variants_of_one_benchmark_are_two_measures() -> None:
    def run(model: str, variant: str, metric: float) -> RunView:
        view = _crows(model, metric)
        return RunView(view.path.with_name(f"{view.path.name}-{variant}"), {}, {**view.summary, "variant": variant},
                       [], label=model)
    runs = [run(m, "nangia", v) for m, v in zip("abc", (51.0, 55.0, 60.0))]
    runs += [run(m, "sentence-ll", v) for m, v in zip("abc", (70.0, 56.0, 52.0))]
    (row,) = build_report(runs, compare=False, n_resamples=200).agreement
    assert (row.a, row.b) == ("crows-pairs metric score (en) [nangia]", "crows-pairs metric score (en) [sentence-ll]")
    assert row.spearman == -1.0


def test_models_under_different_default_variants_share_one_measure() -> None:
    # a masked model scores CrowS-Pairs under nangia, a causal one under sentence-ll: still one measure
    runs = [RunView(Path(f"c{m}"), {}, {**_crows(m, v).summary, "variant": variant}, [], label=m)
            for m, v, variant in (("a", 55.0, "nangia"), ("b", 60.0, "sentence-ll"), ("c", 70.0, "nangia"))]
    runs += [_stereoset(m, v) for m, v in zip("abc", (48.0, 42.0, 80.0))]
    (row,) = build_report(runs, compare=False, n_resamples=200).agreement
    assert row.a == "crows-pairs metric score (en)" and row.n_models == 3 and row.spearman == 1.0


@pytest.mark.filterwarnings("ignore::scipy.stats.ConstantInputWarning")  # scipy's NaN for an all-tied row
def test_the_vectorised_correlations_equal_scipys_with_ties() -> None:
    rng = np.random.default_rng(2)
    x = rng.integers(0, 4, size=(200, 6)).astype(float)  # many ties
    y = rng.integers(0, 4, size=(200, 6)).astype(float)
    rho, tau = spearman_rows(x, y), kendall_rows(x, y)
    for i in range(200):
        want_rho, want_tau = spearmanr(x[i], y[i]).statistic, kendalltau(x[i], y[i]).statistic
        if np.isnan(want_rho):
            assert np.isnan(rho[i]) and np.isnan(tau[i])
        else:
            assert rho[i] == pytest.approx(want_rho) and tau[i] == pytest.approx(want_tau)


def test_the_bootstrap_is_seeded_and_holds_the_estimate() -> None:
    a = Measure("a", {f"m{i}": float(i) for i in range(8)})
    b = Measure("b", {f"m{i}": float(v) for i, v in enumerate([0, 2, 1, 3, 5, 4, 7, 6])})
    one, two = agree(a, b, n_resamples=300, seed=4), agree(a, b, n_resamples=300, seed=4)
    assert one == two and one.spearman == pytest.approx(spearmanr(range(8), [0, 2, 1, 3, 5, 4, 7, 6]).statistic)
    assert one.spearman_ci[0] <= one.spearman <= one.spearman_ci[1]
    assert agree(a, b, n_resamples=300, seed=5).spearman_ci != one.spearman_ci


@pytest.mark.slow  # about a second: the full suite runs it, the fast loop does not
def test_every_table_format_carries_the_agreement_and_html_its_plot() -> None:
    report = _report([55.0, 60.0, 70.0], [48.0, 42.0, 80.0])
    for fmt in ("md", "html", "latex"):
        assert "Agreement between measures" in render(report, fmt), fmt
    csv = render(report, "csv").splitlines()
    spearman = next(line for line in csv if line.startswith("agreement,") and ",spearman," in line)
    assert "crows-pairs metric score (en) | stereoset SS (dev)" in spearman and ",1.0,1.0,1.0,3," in spearman
    doc = json.loads(render(report, "json"))
    assert doc["agreement"][0]["spearman"] == 1.0 and doc["agreement"][0]["n_models"] == 3
    page = render(report, "html")
    section = page.split('id="agreement"')[1].split("</section>")[0]
    assert section.count("<svg ") == 1 and "Spearman" in section


def test_pairs_with_no_common_model_are_left_out_and_said_once() -> None:
    # CrowS on a, b, c; StereoSet on d, e, f: no model has both, so no row, one sentence
    runs = [_crows(m, v) for m, v in zip("abc", (55.0, 60.0, 70.0))]
    runs += [_stereoset(m, v) for m, v in zip("def", (48.0, 42.0, 80.0))]
    # a third measure shared with the CrowS models: its pair with CrowS stays a row
    runs += [RunView(Path(f"crows-fr-{m}"), {}, {**_crows(m, v).summary, "dataset": "fr"}, [], label=m)
             for m, v in zip("abc", (51.0, 58.0, 64.0))]
    report = build_report(runs, compare=False, n_resamples=200)
    (row,) = report.agreement
    assert (row.a, row.b, row.n_models) == ("crows-pairs metric score (en)", "crows-pairs metric score (fr)", 3)
    assert report.agreement_left_out == (("crows-pairs metric score (en)", "stereoset SS (dev)"),
                                         ("stereoset SS (dev)", "crows-pairs metric score (fr)"))
    md = render(report, "md")
    said = ("No common model, left out (2 pairs): crows-pairs metric score (en) vs stereoset SS (dev); "
            "stereoset SS (dev) vs crows-pairs metric score (fr).")
    assert md.count(said) == 1 and "0 common model" not in md
    assert json.loads(render(report, "json"))["agreement_left_out"][0] == ["crows-pairs metric score (en)",
                                                                           "stereoset SS (dev)"]
    assert "| stereoset SS (dev)" not in "\n".join(line for line in render(report, "csv").splitlines()
                                                  if line.startswith("agreement,"))


def test_a_model_run_twice_uses_the_last_run_given_and_says_which() -> None:
    # a's two CrowS runs: 90 first (bias 40), then 55 (bias 5); with the later run the order of
    # a, b, c is 5, 10, 20 on CrowS and 2, 8, 30 on StereoSet: ρ = 1 (with the first it would be −0.5)
    first = RunView(Path("runs/crows-a-old"), {}, _crows("a", 90.0).summary, [], label="a")
    runs = [first] + [_crows(m, v) for m, v in zip("abc", (55.0, 60.0, 70.0))]
    runs += [_stereoset(m, v) for m, v in zip("abc", (48.0, 42.0, 80.0))]
    (row,) = build_report(runs, compare=False, n_resamples=200).agreement
    assert row.spearman == 1.0
    assert row.note.endswith("a: 2 runs of crows-pairs metric score (en) (runs/crows-a-old, crows-a), the last "
                             "given (crows-a) used")
    unique = build_report(runs[1:], compare=False, n_resamples=200).agreement[0]
    assert "runs of" not in unique.note and unique.spearman == 1.0
