"""Every benchmark draws a figure, and a report over several models draws one across them.

Before: BBQ and StereoSet sections had no figure, and the leaderboard none at all. The values a
figure draws are read back from its tooltips (one per dot), planted in the summaries here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from biasatlas.benchmarks.base import BenchmarkView
from biasatlas.display.style import style
from biasatlas.registry import BENCHMARKS, find_spec
from biasatlas.runs.view import RunView

NO_PLOTS = BenchmarkView.__dataclass_fields__["plots"].default


def _set(acc_dis, bias_amb, amb_ci, bias_dis, dis_ci, n_amb=4, n_dis=6, degenerate=None):
    return {"accuracy_amb": 50.0, "accuracy_dis": acc_dis, "bias_amb": bias_amb, "bias_dis": bias_dis,
            "n": n_amb + n_dis, "n_amb": n_amb, "n_dis": n_dis, "degenerate": degenerate,
            "intervals": {"bias_amb": amb_ci, "bias_dis": dis_ci}}


def _bbq(label: str = "m") -> RunView:
    overall = _set(70.0, 10.0, [0.0, 20.0], -5.0, [-15.0, 5.0], 8, 12)
    summary = {"benchmark": "bbq", "dataset": "en", "model": label, **overall,
               "sets": {"Age": _set(80.0, 20.0, [10.0, 30.0], 0.0, [-10.0, 10.0]),
                        "SES": _set(60.0, -100.0, [-100.0, -60.0], -10.0, [-20.0, 0.0])}}
    return RunView(Path("bbq"), {}, summary, (), label=label)


def _ss(ss, ci, lms=90.0, n=10):
    return {"ss": ss, "lms": lms, "icat": 80.0, "n": n, "intervals": {"ss": ci}}


def _stereoset() -> RunView:
    summary = {"benchmark": "stereoset", "dataset": "dev", "model": "m", **_ss(55.0, [50.0, 60.0]),
               "tasks": {"intrasentence": {"gender": _ss(62.0, [55.0, 70.0]), "overall": _ss(58.0, [52.0, 64.0])},
                         "intersentence": {"gender": _ss(44.0, [38.0, 50.0], lms=70.0),
                                           "race": _ss(51.0, [47.0, 55.0]), "overall": _ss(49.0, [45.0, 53.0])}}}
    return RunView(Path("ss"), {}, summary, (), label="m")


@pytest.mark.slow  # imports every benchmark: seconds
def test_every_shipped_benchmark_draws_a_figure():
    shipped = [name for name, module in BENCHMARKS.items() if module.startswith("biasatlas.")]
    missing = [name for name in shipped if find_spec(name).view.plots is NO_PLOTS]
    assert missing == []


def _tips(plot) -> list[str]:
    return [text for key, texts in plot.tooltips.items() if key.startswith("dots-") for text in texts]


def test_bbq_draws_each_categorys_bias_with_its_interval_and_its_disambiguated_accuracy():
    with style():
        (plot,) = find_spec("bbq").view.plots(_bbq())
    tips = _tips(plot)
    assert "Age · ambiguous: 20.0 [10.0, 30.0]; n = 4" in tips
    assert "Age · disambiguated: 0.0 [-10.0, 10.0]; n = 6" in tips
    assert "SES · ambiguous: -100.0 [-100.0, -60.0]; n = 4" in tips
    assert "overall · disambiguated: -5.0 [-15.0, 5.0]; n = 12" in tips
    ax = plot.figure.axes[0]
    ticks = sorted(zip(ax.get_yticks(), (t.get_text() for t in ax.get_yticklabels())))
    assert [text for _, text in ticks] == ["overall (acc dis 70)", "SES (acc dis 60)", "Age (acc dis 80)"]  # bottom up
    lo, hi = plot.figure.axes[0].get_xlim()
    assert lo < -100 <= 0 <= hi <= 104  # the dot at -100 drawn whole; 0 (no direction) in view


def test_stereoset_draws_ss_per_domain_and_task_around_50():
    with style():
        (plot,) = find_spec("stereoset").view.plots(_stereoset())
    tips = _tips(plot)
    assert "gender · intrasentence: 62.0 [55.0, 70.0]; n = 10; LMS 90.0" in tips
    assert "gender · intersentence: 44.0 [38.0, 50.0]; n = 10; LMS 70.0" in tips
    assert "race · intersentence: 51.0 [47.0, 55.0]; n = 10; LMS 90.0" in tips
    assert len(tips) == 5  # race has no intrasentence row
    ax = plot.figure.axes[0]
    assert [line.get_xdata()[0] for line in ax.get_lines() if line.get_gid() == "reference"] == [50.0]


def test_a_report_over_two_models_draws_them_side_by_side_with_intervals():
    from biasatlas.report.across import across_models_plots
    from biasatlas.report.document import _run_report

    runs = [_run_report(_bbq("model-a"), 0), _run_report(_bbq("model-b"), 1), _run_report(_stereoset(), 2)]
    with style():
        plots = across_models_plots(runs)
    assert len(plots) == 1  # BBQ's two models; StereoSet's one model draws nothing
    tips = _tips(plots[0])
    assert any(t.startswith("model-a · bias (ambiguous): 10.0 [0.0, 20.0]") for t in tips)
    assert any(t.startswith("model-b · bias (disambiguated): -5.0 [-15.0, 5.0]") for t in tips)


@pytest.mark.slow  # a report rendered: a second or two
def test_the_html_leaderboard_holds_the_cross_model_figure(tmp_path):
    from biasatlas.report import build_report, render_html
    from biasatlas.report.document import Report

    report = build_report([_bbq("model-a"), _bbq("model-b")], compare=False)
    assert isinstance(report, Report)
    page = render_html(report)
    board = page.split('id="leaderboard"')[1].split("</section>")[0]
    assert board.count("<svg") == 1 and "bbq: each model" in board
