"""The report's cross-model figures: per benchmark, each run (a model) a row and each headline a
dot with its 95 % interval, around the headline's neutral value, so the leaderboard's numbers
read at a glance with their uncertainty. Drawn for a benchmark with two runs or more; headlines
of one benchmark with different neutral values (or scales) get a figure each. A row is a run, never
a model: where a benchmark's runs read several datasets, each row names its dataset (a model's
English and Dutch CrowS-Pairs runs are two rows), as the leaderboard separates them."""

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
        if len(mine) < 2:
            continue
        for neutral in dict.fromkeys(h.neutral for rr in mine for h in rr.headlines):
            out.append(_figure(benchmark, neutral, mine))
    return out


def _figure(benchmark: str, neutral: float, runs: Sequence[RunReport]) -> Plot:
    datasets = list(dict.fromkeys(rr.run.dataset for rr in runs))
    row_of = {rr.index: _row(rr, len(datasets) > 1) for rr in runs}
    rows = list(dict.fromkeys(row_of.values()))
    dots = [_dot(rr, h, row_of[rr.index]) for rr in runs for h in rr.headlines if h.neutral == neutral]
    series = list(dict.fromkeys(d.series for d in dots))
    names = ", ".join(series)
    title = f"{benchmark} across models" + (f" ({datasets[0]})" if len(datasets) == 1 and datasets[0] else "")
    axis = names if len(series) <= 2 else "value of each headline (legend below)"  # not seven names joined
    chart = DotChart(title, f"{title}: {names}",
                     f"{axis} (dashed: {neutral:g}, no bias)",
                     f"{benchmark}: each model's {names} with 95% intervals", reference=neutral,
                     limits=(-math.inf, math.inf))
    return dot_plot(chart, rows, dots)


def _row(rr: RunReport, several_datasets: bool) -> str:
    """A run's row name: its label (distinct within its benchmark and dataset), and its dataset
    where the figure holds several."""
    return f"{rr.run.label} · {rr.run.dataset}" if several_datasets and rr.run.dataset else rr.run.label


def _dot(rr: RunReport, h: Headline, row: str) -> Dot:
    low, high = h.interval or (None, None)
    flagged = any(c.verdict == "unable" for c in h.controls)
    note = (f"n = {h.n:g}" if h.n is not None else "") + ("; flagged: a control failed" if flagged else "")
    return Dot(row, h.label, h.value, low, high, note.lstrip("; "))
