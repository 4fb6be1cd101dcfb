"""What the terminal and the report show of a GEST run (Pikuliak et al., arXiv:2311.18711).

- Tables: per template and pooled, the stereotype rate ``g_s = r_m / r_f`` with its bootstrap
  interval and p (1 = no stereotype), ``r_f`` and ``r_m``; the sixteen stereotypes' ``r_i`` with
  intervals and feminine ranks (the paper's Figure "en_all" and its rank boxplots, as rows).
- Plot: each stereotype's ``r_i`` with its interval, the feminine ones in one colour, with ``r_f``
  and ``r_m`` marked (one panel of the paper's Figure "en_all").
- Leaderboard and metrics: ``g_s`` pooled and per template, ``r_f``, ``r_m``.
- Paired test: a paired bootstrap over the sentences both runs scored on the score turned toward
  its stereotype, each run's gender prior removed (``aligned``), whose mean rises with ``g_s``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...display.cite import Reference
from ...display.controls import Headline, shown
from ...display.direction import toward
from ...display.paired import Paired, bootstrap_test, pair_items
from ...display.style import FEMALE, INK, LABEL_WIDTH, MALE, fit, legend_below, new_figure, short, title
from ...display.svg import Plot
from ...display.tables import CI, Metric, PValue, Table, leaderboard_table
from ...power import Detectable, mde_normal, se_from_interval
from ...runs.view import RunView
from ..base import BenchmarkView, PairedMethod
from .data import STEREOTYPES
from .summary import GestRunSummary, StereotypeRates

_RATE_CAPTION = ("g_s = r_m / r_f (the paper's stereotype rate; 1 = no stereotype, above 1 = masculine-stereotype "
                 "sentences read more male than feminine ones); r_i = exp(mean log10 male/female ratio of "
                 "stereotype i's sentences), r_f / r_m the geometric means over stereotypes 1–7 / 8–16. "
                 "A prior for one gender moves r_f and r_m alike and cancels in g_s. Intervals: 95% bootstrap over "
                 "sentences within each stereotype; p: bootstrap test of g_s = 1.")


def _summary(run: RunView) -> GestRunSummary:
    return run.typed(GestRunSummary)


def _rate_row(name: str, r: StereotypeRates) -> tuple[Any, ...]:
    return (name, r.g_s, CI(*r.interval("g_s"), digits=3), PValue(r.g_s_p), r.r_f, CI(*r.interval("r_f"), digits=3),
            r.r_m, CI(*r.interval("r_m"), digits=3))


def tables(run: RunView) -> list[Table]:
    s = _summary(run)
    rows = [_rate_row(k, v) for k, v in s.templates.items()]
    if len(s.templates) > 1:
        rows.append(_rate_row("mean of templates", s.overall))
    per = tuple((name, int(row.get("id", 0)), row.get("side"), row.get("n"), row.get("r"),
                 CI(row.get("low"), row.get("high"), digits=3), row.get("rank"))
                for name, row in s.overall.stereotypes.items())
    return [Table("GEST: stereotype rate", ("template", "g_s", "95% CI", "p", "r_f", "95% CI", "r_m", "95% CI"),
                  tuple(rows), _RATE_CAPTION + f" Reading: {s.reading or '–'}; data v{s.version}; sentences "
                  f"{s.n}, skipped {s.n_skipped}."),
            Table("GEST stereotypes", ("stereotype", "id", "side", "sentences", "r_i", "95% CI", "feminine rank"),
                  per, "r_i > 1: the stereotype's sentences read as male; rank 1 = read most female (pooled over "
                       "templates as the mean of the templates' r_i).")]


def metrics(run: RunView) -> list[Metric]:
    s = _summary(run)
    o = s.overall
    out = [Metric("g_s", o.g_s, *o.interval("g_s"), n=s.n, label="g_s"),
           Metric("r_f", o.r_f, *o.interval("r_f"), n=s.n, label="r_f"),
           Metric("r_m", o.r_m, *o.interval("r_m"), n=s.n, label="r_m")]
    return out + [Metric(f"g_s:{k}", v.g_s, *v.interval("g_s"), n=s.n, label=f"g_s {k}")
                  for k, v in s.templates.items()]


def leaderboard(runs: Sequence[RunView]) -> Table:
    rows = []
    for r in runs:
        s = _summary(r)
        o = s.overall
        rows.append((r, (r.label, s.reading, s.version, s.n, o.g_s, CI(*o.interval("g_s"), digits=3), o.r_f, o.r_m)))
    return leaderboard_table("GEST", ("model", "reading", "data", "sentences", "g_s", "95% CI", "r_f", "r_m"), rows,
                             runs, "g_s = r_m / r_f, the mean over the run's templates (1 = no stereotype).")


def compare(a: RunView, b: RunView, *, n_resamples: int, seed: int) -> Paired:
    """A paired bootstrap on ``aligned`` (a sentence's score toward its stereotype, less the run's
    prior) over the sentences both runs scored."""
    ra, rb, only_a, only_b = pair_items(a, b, "id")
    va = np.array([float(r["aligned"]) for r in ra])
    vb = np.array([float(r["aligned"]) for r in rb])
    test = bootstrap_test("all", "log10 ratio toward the stereotype, prior removed", va, vb, n_resamples, seed)
    return Paired((test,), len(ra), only_a, only_b)


def plots(run: RunView) -> list[Plot]:
    """Each stereotype's pooled ``r_i`` with its interval, with ``r_f`` and ``r_m`` marked."""
    s = _summary(run)
    fig = new_figure(5.5, 4.6)
    ax = fig.add_subplot()
    tips: dict[str, Any] = {}
    for i, name in enumerate(STEREOTYPES):
        row = s.overall.stereotypes.get(name, {})
        colour = FEMALE if row.get("side") == "female" else MALE
        if row.get("low") is not None and row.get("high") is not None:
            ax.plot([row["low"], row["high"]], [i, i], color=colour, lw=2, gid=f"ci-{i}")
        if row.get("r") is not None:
            ax.scatter([row["r"]], [i], color=colour, s=14, gid=f"r-{i}")
            tips[f"r-{i}"] = [f"{name}: r_i {row['r']:.3f} over {row.get('n')} sentences"]
    for value, colour, label in ((s.overall.r_f, FEMALE, "r_f"), (s.overall.r_m, MALE, "r_m")):
        if value is not None:
            ax.axvline(value, color=colour, ls=":", lw=1.5, label=f"{label} {value:.3f}", gid=label)
    ax.axvline(1.0, color=INK, lw=0.6, gid="even")
    ax.set_yticks(range(len(STEREOTYPES)), [f"{n} #{i + 1}" for i, n in enumerate(STEREOTYPES)], fontsize=7)
    ax.invert_yaxis()
    ax.set(xlabel="r_i (above 1: read as male)")
    title(ax, f"GEST stereotypes · {short(run.label, LABEL_WIDTH)}", f"GEST stereotypes · {run.label}", tips)
    legend_below(ax, 34)
    fit(fig)
    return [Plot(fig, f"GEST r_i per stereotype for {run.label}, feminine stereotypes 1–7 and masculine 8–16", tips)]


def headlines(run: RunView) -> tuple[Headline, ...]:
    """g_s against 1, with the symmetric model's null beside it."""
    s = _summary(run)
    o = s.overall
    controls = (shown("symmetric null (g_s)", 1.0, "a model reading every sentence alike as he and she scores "
                      "0 on each: every r_i, r_f, r_m and g_s is 1"),
                shown("gender prior (r_f·r_m)^½", None if o.r_f is None or o.r_m is None else (o.r_f * o.r_m) ** 0.5,
                      "the model's lean toward 'he' over all stereotypes (1 = none); it cancels in g_s"))
    return (Headline("g_s", "stereotype rate g_s", o.g_s, o.intervals.get("g_s"), s.n, o.g_s_p, 1.0, "farther",
                     controls, _detectable(o, s.n)),)


def _detectable(o: StereotypeRates, n: float | None) -> Detectable:
    """The smallest g_s the run's bootstrap test tells from 1: its test is on log g_s, whose standard
    error the 95% interval gives (normal approximation), so the MDE is exp((z + z_power)·SE) − 1."""
    low, high = o.interval("g_s")
    se = se_from_interval(math.log(low), math.log(high)) if low and high and low > 0 else None
    shift = mde_normal(se)
    return Detectable(None if shift is None else math.exp(shift) - 1.0, "g_s above 1",
                      "bootstrap test of log g_s = 0", n, "normal approximation, SE of log g_s from the 95% "
                      "bootstrap interval (power.mde_normal)")


#: The paper, as arXiv lists it.
PIKULIAK_2023 = Reference("pikuliak2023women", "article", (
    ("title", "Women Are Beautiful, Men Are Leaders: Gender Stereotypes in Machine Translation and Language "
              "Modeling"),
    ("author", "Pikuliak, Mat{\\'u}{\\v{s}} and Oresko, Stefan and Hrckova, Andrea and Simko, Marian"),
    ("journal", "arXiv preprint arXiv:2311.18711"), ("year", "2023")))


def references(run: RunView) -> tuple[Reference, ...]:
    return (PIKULIAK_2023,)


#: Which way each metric reads: g_s toward 1; r_f and r_m toward 1 (no lean either way).
DIRECTIONS_OF_METRICS = {"g_s": toward(1), "g_s:": toward(1), "r_f": toward(1), "r_m": toward(1)}

VIEW = BenchmarkView(tables=tables, leaderboard=leaderboard, metrics=metrics,
                     paired=PairedMethod(compare, "paired bootstrap on GEST scores toward the stereotype"),
                     plots=plots, references=references, headlines=headlines, directions=DIRECTIONS_OF_METRICS)
