"""Dot-and-interval figures: one row per group (a category, a domain, a model), one dot per series
(bias in ambiguous and in disambiguated contexts; SS per task) with its 95 % interval as arms,
around a reference line (0 = no direction, 50 = no preference).

The benchmarks whose tables are many numbers per group (BBQ, StereoSet) and the report's
cross-model figure draw with this; each says what its rows, series and reference mean.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .style import INK, LABEL_WIDTH, TICK_WIDTH, fit, legend_below, new_figure, number_text, short, tip, title
from .svg import Plot

#: The eight Okabe–Ito colours, in the order series take them (the gender colours stay the census's),
#: and seven markers: series k takes colour k mod 8 and marker k mod 7, so no two of the first 56
#: series look alike (DiscrimEval's seven terms shared three pairs when both cycles had four).
SERIES_COLOURS = ("#D55E00", "#0072B2", "#009E73", "#E69F00", "#CC79A7", "#56B4E9", "#000000", "#F0E442")
MARKERS = ("o", "s", "D", "^", "v", "P", "X")


@dataclass(frozen=True)
class Dot:
    """One value of one row and series, its 95 % interval (``None`` ends: no interval), and the
    text its tooltip adds (counts, a control)."""

    row: str
    series: str
    value: float | None
    low: float | None = None
    high: float | None = None
    note: str = ""


@dataclass(frozen=True)
class DotChart:
    """What the figure says: its title (shown and full), the x-axis label, the reference value and
    the axis limits the scale allows (BBQ's bias: −100 to 100), and the caption."""

    title: str
    full_title: str
    xlabel: str
    caption: str
    reference: float
    limits: tuple[float, float]


def dot_plot(chart: DotChart, rows: Sequence[str], dots: Sequence[Dot],
             row_notes: Sequence[str] = ()) -> Plot:
    """The figure: ``rows`` top to bottom (each tick label followed by its note, e.g. a control),
    one marker per series, interval arms, and the reference as a dashed line."""
    series = list(dict.fromkeys(d.series for d in dots))
    fig = new_figure(6.4, 0.34 * len(rows) * max(1, len(series)) ** 0.5 + 1.4)
    ax = fig.add_subplot()
    place = {row: len(rows) - 1 - i for i, row in enumerate(rows)}  # the first row at the top
    step = 0.5 / max(1, len(series))
    tips: dict[str, Any] = {}
    for k, name in enumerate(series):
        mine = [d for d in dots if d.series == name and d.row in place and d.value is not None
                and math.isfinite(d.value)]
        if not mine:
            continue
        y = [place[d.row] + (len(series) - 1) / 2 * step - k * step for d in mine]
        x = [float(d.value) for d in mine]  # type: ignore[arg-type]
        arms = [[max(0.0, v - (d.low if d.low is not None else v)) for v, d in zip(x, mine)],
                [max(0.0, (d.high if d.high is not None else v) - v) for v, d in zip(x, mine)]]
        colour, marker = SERIES_COLOURS[k % len(SERIES_COLOURS)], MARKERS[k % len(MARKERS)]
        ax.errorbar(x, y, xerr=arms, fmt="none", ecolor=colour, capsize=2.5, lw=1, gid=f"arms-{k}")
        ax.scatter(x, y, marker=marker, s=26, color=colour, edgecolor=INK, linewidths=0.5, zorder=3,
                   label=name, gid=f"dots-{k}")
        tips[f"dots-{k}"] = [f"{d.row} · {name}: {number_text(d.value)} [{number_text(d.low)}, "
                             f"{number_text(d.high)}]" + (f"; {d.note}" if d.note else "") for d in mine]
    ax.axvline(chart.reference, color=INK, lw=1, ls="--", gid="reference")
    labels = [short(r, TICK_WIDTH) for r in rows]
    notes = list(row_notes) + [""] * (len(rows) - len(row_notes))
    ax.set_yticks([place[r] for r in rows], [f"{lab} ({note})" if note else lab for lab, note in zip(labels, notes)])
    for i, (artist, shown, full) in enumerate(zip(ax.get_yticklabels(), labels, rows)):
        tip(artist, f"row-{i}", shown, full, tips)
    ax.set_ylim(-0.6, len(rows) - 0.4)
    ax.set_xlim(*_limits(chart, dots))
    ax.set_xlabel(chart.xlabel)
    if len(series) > 1:
        legend_below(ax, 40)
    title(ax, short(chart.title, LABEL_WIDTH * 2), chart.full_title, tips)
    return Plot(fit(fig), chart.caption, tips)


def _limits(chart: DotChart, dots: Sequence[Dot]) -> tuple[float, float]:
    """The data and their intervals with a margin, the reference always in view, within the scale."""
    ends = [v for d in dots for v in (d.value, d.low, d.high) if v is not None and math.isfinite(v)]
    lo, hi = min([chart.reference, *ends]), max([chart.reference, *ends])
    margin = max(0.02 * (chart.limits[1] - chart.limits[0]) if math.isfinite(chart.limits[1] - chart.limits[0])
                 else 0.0, 0.06 * (hi - lo), 1e-3)
    # a dot at the scale's end (a bias of -100) stays whole: the margin may pass the end, never the data
    return max(chart.limits[0] - margin, lo - margin), min(chart.limits[1] + margin, hi + margin)
