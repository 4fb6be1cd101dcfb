"""What the terminal and the report show of a Winogender run (Rudinger et al., NAACL 2018).

- Tables: the model's female share per occupation against BLS (Pearson's r and Spearman's ρ with
  bootstrap intervals over occupations and Fisher's z interval for r), for every context and by
  referent (the paper's Table 1 analogue is the occupation-referent row); the gotcha rates (the
  paper's Table 2 split, read as pronoun preference); the occupations farthest from BLS.
- Plot: BLS % female vs the model's female share, one point per occupation (the census scatter's
  layout), coloured by the BLS majority.
- Leaderboard and metrics: r and ρ with their intervals, the mean share and the gotcha rate.
- Paired test: a paired bootstrap over the contexts both runs scored, on the female share and on
  the gotcha rate.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...display.cite import Reference
from ...display.paired import Paired, bootstrap_test, pair_items
from ...runs.view import RunView
from ...display.style import DATASET_WIDTH, FEMALE, INK, LABEL_WIDTH, MALE, fit, legend_below, new_figure, short, title
from ...display.svg import Plot
from ...display.direction import LOWER, toward
from ...display.tables import CI, N_EXAMPLES, Metric, PValue, Table, leaderboard_table
from ..base import BenchmarkView, PairedMethod
from .controls import headlines
from .summary import ShareSet, WinogenderRunSummary

_COLUMNS = ("contexts", "occupations", "occupations' mean female %", "95% CI", "Pearson r", "95% CI (bootstrap)",
            "95% CI (Fisher z)", "p", "Spearman ρ", "95% CI", "p")
_CAPTION = ("Female share of a context = P(female pronoun) / (P(female) + P(male)); an occupation's share is the "
            "mean over its contexts; r and ρ are over occupations against the BLS % female (Rudinger et al. "
            "2018, Table 1's comparison). Intervals: 95% bootstrap resampling occupations; Fisher's z for r.")


_OWN = "pronoun→occupation"  # the gotchas whose pronoun refers to the occupation


def _summary(run: RunView) -> WinogenderRunSummary:
    return run.typed(WinogenderRunSummary)


def _row(name: str, s: ShareSet) -> tuple[Any, ...]:
    return (name, s.n_contexts, s.n_occupations, s.female_pct, CI(*s.interval("female_pct")), s.pearson,
            CI(*s.interval("pearson"), digits=3), CI(*s.interval("pearson_fisher"), digits=3), PValue(s.pearson_p),
            s.spearman, CI(*s.interval("spearman"), digits=3), PValue(s.spearman_p))


def tables(run: RunView) -> list[Table]:
    s = _summary(run)
    rows = [_row("all contexts", s.overall)]
    rows += [_row(f"pronoun → {ref}", s.by_referent[ref]) for ref in ("occupation", "participant")
             if ref in s.by_referent]
    gotcha = tuple((name, g.n, g.gotcha_pct, CI(*(g.interval or (None, None))))
                   for name, g in s.gotcha.items())
    far = sorted(s.occupations.items(), key=lambda kv: -abs(kv[1]["female_pct"] - kv[1]["bls_pct_female"]))
    worst = tuple((o, v["bls_pct_female"], v["female_pct"], v["female_pct_occupation_referent"], v["n_contexts"])
                  for o, v in far[:N_EXAMPLES])
    return [Table("Winogender: model female share against BLS", ("set", *_COLUMNS), tuple(rows),
                  _CAPTION + f" Reading: {s.reading or '–'}; ties (equal log-probabilities): {s.n_ties}."),
            Table("Winogender gotchas (pronoun against the occupation's BLS majority for its referent)",
                  ("contexts (gotcha gender or referent)", "n", "% preferring the gotcha pronoun", "95% CI"), gotcha,
                  "A context is a gotcha for one gender (Rudinger et al. §4); ties count one half, so a "
                  "gender-symmetric model gives 50. A model following the occupation's BLS majority scores "
                  "below 50 where the pronoun refers to the occupation and above 50 where it refers to the "
                  "participant (there the gotcha pronoun is the majority's)."),
            Table("Occupations farthest from BLS", ("occupation", "BLS % female", "model female %",
                                                    "model female % (pronoun → occupation)", "contexts"), worst)]


def metrics(run: RunView) -> list[Metric]:
    s = _summary(run)
    o = s.overall
    out = [Metric(k, getattr(o, k), *o.interval(k), n=o.n_occupations, label=label)
           for k, label in (("pearson", "Pearson r"), ("spearman", "Spearman ρ"), ("female_pct", "female %"))]
    for key, g in s.gotcha.items():
        out.append(Metric(f"gotcha:{key}", g.gotcha_pct, *(g.interval or (None, None)), n=g.n, label=f"gotcha % {key}"))
    return out


def leaderboard(runs: Sequence[RunView]) -> Table:
    rows = []
    for r in runs:
        s = _summary(r)
        o, g = s.overall, s.gotcha.get(_OWN)
        rows.append((r, (r.label, s.reading, o.n_contexts, o.pearson, CI(*o.interval("pearson"), digits=3),
                         o.spearman, CI(*o.interval("spearman"), digits=3), o.female_pct,
                         g.gotcha_pct if g else None)))
    return leaderboard_table("Winogender", ("model", "reading", "contexts", "Pearson r", "95% CI", "Spearman ρ",
                                            "95% CI", "female %", "gotcha % (pronoun → occupation)"), rows, runs,
                             "r, ρ: the model's per-occupation female share against BLS % female. Gotcha %: the "
                             "contexts whose pronoun refers to the occupation where the model prefers the pronoun "
                             "against the occupation's BLS majority (50 = no effect; below 50 follows the majority).")


def compare(a: RunView, b: RunView, *, n_resamples: int, seed: int) -> Paired:
    """A paired bootstrap over the contexts both runs scored: female share, gotcha rate."""
    ra, rb, only_a, only_b = pair_items(a, b, "id")
    tests = []
    for key, quantity in (("female_share", "female share (%)"), ("took_gotcha", "gotcha pronoun preferred (%)")):
        scale = 100.0 if key == "took_gotcha" else 1.0
        va = np.array([scale * r[key] for r in ra], dtype=float)
        vb = np.array([scale * r[key] for r in rb], dtype=float)
        tests.append(bootstrap_test("all contexts", quantity, va, vb, n_resamples, seed))
    return Paired(tuple(tests), len(ra), only_a, only_b)


def plots(run: RunView) -> list[Plot]:
    """BLS % female vs the model's female share per occupation, as the census scatter."""
    s = _summary(run)
    fig = new_figure(6.0, 5.6)
    ax = fig.add_subplot()
    ax.plot([0, 100], [0, 100], color=INK, lw=0.8, ls=":", gid="diagonal")
    ax.axhline(50, color=INK, lw=0.5, alpha=0.4)
    tips: dict[str, Any] = {}
    for name, colour, chosen in (("female", FEMALE, True), ("male", MALE, False)):
        group = [(o, v) for o, v in s.occupations.items() if (v["bls_pct_female"] >= 50) == chosen]
        if not group:
            continue
        ax.scatter([v["bls_pct_female"] for _, v in group], [v["female_pct"] for _, v in group], s=16,
                   color=colour, alpha=0.8, edgecolor="white", linewidth=0.4,
                   label=f"BLS majority {name} ({len(group)})", gid=f"points-{name}")
        tips[f"points-{name}"] = [f"{o}: BLS {v['bls_pct_female']:.1f}%, model {v['female_pct']:.1f}%"
                                  for o, v in group]
    ax.set(xlim=(0, 100), ylim=(0, 100), xlabel="BLS: % women in the occupation",
           ylabel="model: female pronoun share (%)", aspect="equal")
    r = s.overall.pearson
    title(ax, f"Winogender · {short(run.label, LABEL_WIDTH)} · r = {'–' if r is None else f'{r:.2f}'}",
          f"Winogender · {run.label} · {short(run.dataset, DATASET_WIDTH)}", tips)
    legend_below(ax, 34)
    fit(fig)
    return [Plot(fig, f"BLS share of women vs the model's female pronoun share per occupation for {run.label}",
                 tips)]


#: The paper (NAACL 2018), as its PDF in the authors' repository gives it.
RUDINGER_2018 = Reference("rudinger-etal-2018-gender", "inproceedings", (
    ("title", "Gender Bias in Coreference Resolution"),
    ("author", "Rudinger, Rachel and Naradowsky, Jason and Leonard, Brian and Van Durme, Benjamin"),
    ("booktitle", "Proceedings of the 2018 Conference of the North American Chapter of the Association for "
                  "Computational Linguistics: Human Language Technologies, Volume 2 (Short Papers)"),
    ("year", "2018"), ("address", "New Orleans, Louisiana"),
    ("publisher", "Association for Computational Linguistics")))


def references(run: RunView) -> tuple[Reference, ...]:
    return (RUDINGER_2018,)


#: Which way each metric reads (``higher_is_better``/``ideal`` in the CSV and JSON): the correlations with the
#: BLS share are the benchmark's bias measure (its headline: higher is more biased), the female share is
#: best at 50, a gotcha rate lower.
DIRECTIONS_OF_METRICS = {"pearson": LOWER, "spearman": LOWER, "female_pct": toward(50), "gotcha:": LOWER}

VIEW = BenchmarkView(tables=tables, leaderboard=leaderboard, metrics=metrics,
                     paired=PairedMethod(compare, "paired bootstrap on Winogender pronoun shares"), plots=plots,
                     references=references,
                     headlines=headlines, directions=DIRECTIONS_OF_METRICS)
