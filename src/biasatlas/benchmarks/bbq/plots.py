"""BBQ's figure: each category's bias scores, ambiguous and disambiguated, with their 95 %
template-bootstrap intervals around 0 (no direction), and beside each category its
disambiguated accuracy, the control that says whether the model answers the questions at all
(Parrish et al. 2022, §4: a bias score of a model that cannot answer is noise)."""

from __future__ import annotations

from ...display.dots import Dot, DotChart, dot_plot
from ...display.style import number_text
from ...display.svg import Plot
from ...runs.view import RunView
from .summary import BBQRunSummary, SetScores

SERIES = (("bias_amb", "ambiguous"), ("bias_dis", "disambiguated"))


def plots(run: RunView) -> list[Plot]:
    s = run.typed(BBQRunSummary)
    groups = [(k, v) for k, v in s.sets.items() if k != "overall"] + [("overall", s.overall)]
    groups = [(k, v) for k, v in groups if v.n]
    if not groups:
        return []
    dots = [_dot(name, scores, key, series) for name, scores in groups for key, series in SERIES]
    chart = DotChart(f"BBQ bias by category · {run.label} · {run.dataset}",
                     f"BBQ bias by category · {run.label} · {run.dataset}",
                     "bias score (×100; 0 = no direction, +100 = always the biased answer)\n"
                     "beside each category: accuracy in disambiguated contexts (%), the control",
                     f"BBQ bias scores per category with 95% intervals and disambiguated accuracy for {run.label}",
                     reference=0.0, limits=(-100.0, 100.0))
    return [dot_plot(chart, [name for name, _ in groups], dots, [_accuracy(v) for _, v in groups])]


def _dot(name: str, s: SetScores, key: str, series: str) -> Dot:
    low, high = s.interval(key)
    count = s.n_amb if key == "bias_amb" else s.n_dis
    note = f"n = {int(count or 0)}" + (f"; degenerate: {s.degenerate}" if s.degenerate else "")
    return Dot(name, series, getattr(s, key), low, high, note)


def _accuracy(s: SetScores) -> str:
    flag = "; degenerate" if s.degenerate else ""
    return f"acc dis {number_text(s.accuracy_dis, 0)}{flag}"
