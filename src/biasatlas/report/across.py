"""The report's cross-model figures: per benchmark, each run (a model) a row and each headline a
dot with its 95 % interval, around the headline's neutral value, so the leaderboard's numbers
read at a glance with their uncertainty. Drawn for a benchmark with two runs or more; headlines
of one benchmark with different neutral values (or scales) get a figure each."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..display.controls import Headline
from ..display.dots import Dot, DotChart, dot_plot
from ..display.svg import Plot
from .document import RunReport


def across_models_plots(runs: Sequence[RunReport]) -> list[Plot]:
    """One figure per benchmark (and neutral value) holding two runs or more, in the runs' order."""
    out = []
    for benchmark in dict.fromkeys(rr.run.benchmark for rr in runs):
        mine = [rr for rr in runs if rr.run.benchmark == benchmark and rr.headlines]
        if len({rr.run.label for rr in mine}) < 2:
            continue
        for neutral in dict.fromkeys(h.neutral for rr in mine for h in rr.headlines):
            out.append(_figure(benchmark, neutral, mine))
    return out


def _figure(benchmark: str, neutral: float, runs: Sequence[RunReport]) -> Plot:
    rows = list(dict.fromkeys(rr.run.label for rr in runs))
    dots = [_dot(rr, h) for rr in runs for h in rr.headlines if h.neutral == neutral]
    names = ", ".join(dict.fromkeys(d.series for d in dots))
    chart = DotChart(f"{benchmark} across models", f"{benchmark} across models: {names}",
                     f"{names} (dashed: {neutral:g}, no bias)",
                     f"{benchmark}: each model's {names} with 95% intervals", reference=neutral,
                     limits=(-math.inf, math.inf))
    return dot_plot(chart, rows, dots)


def _dot(rr: RunReport, h: Headline) -> Dot:
    low, high = h.interval or (None, None)
    flagged = any(c.verdict == "unable" for c in h.controls)
    note = (f"n = {h.n:g}" if h.n is not None else "") + ("; flagged: a control failed" if flagged else "")
    return Dot(rr.run.label, h.label, h.value, low, high, note.lstrip("; "))
