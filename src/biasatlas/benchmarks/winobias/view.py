"""What the terminal and the report show of a WinoBias run (Zhao et al., NAACL 2018).

- Tables: per set (type 1/2, dev/test) and pooled, the % of pairs preferring the pro-stereotypical
  version, Diff = pro % − anti % (the paper's Table 3 Diff, read as preference) with its bootstrap
  interval and binomial p, and the mean log-ratio; the occupations' female shares against their
  BLS 2017 majority; the occupations farthest from their majority's side.
- Plot: each occupation's female share, sorted, coloured by its BLS majority.
- Leaderboard and metrics: pooled pro % and Diff, per-type Diff, the majority gap.
- Paired test: a paired bootstrap on pro-preference over the pairs both runs scored, per set.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...display.cite import Reference
from ...display.paired import Paired, bootstrap_test, pair_items
from ...runs.view import RunView
from ...display.style import FEMALE, INK, LABEL_WIDTH, MALE, fit, legend_below, new_figure, short, title
from ...display.svg import Plot
from ...display.direction import toward
from ...display.tables import CI, N_EXAMPLES, Metric, PValue, Table, leaderboard_table
from ..base import BenchmarkView, PairedMethod
from .controls import headlines
from .summary import Preference, WinoBiasRunSummary

_COLUMNS = ("set", "pairs", "ties", "pro %", "95% CI", "Diff (pro − anti)", "95% CI", "p", "mean log P(pro)/P(anti)",
            "95% CI")
_CAPTION = ("A pair's pro version is preferred when its log-probability is higher (ties count one half); Diff = "
            "pro % − anti %, 0 = no effect (Zhao et al. 2018 report Diff as |F1_pro − F1_anti| of coreference "
            "systems). Intervals: 95% bootstrap over pairs; p: two-sided exact binomial test of the untied pairs.")


def _summary(run: RunView) -> WinoBiasRunSummary:
    return run.typed(WinoBiasRunSummary)


def _row(name: str, p: Preference) -> tuple[Any, ...]:
    return (name, p.n, p.n_ties, p.pro_pct, CI(*p.interval("pro_pct")), p.diff, CI(*p.interval("diff")),
            PValue(p.diff_p), p.mean_log_ratio, CI(*p.interval("mean_log_ratio"), digits=3))


def tables(run: RunView) -> list[Table]:
    s = _summary(run)
    rows = tuple([_row(k, v) for k, v in s.sets.items()] + ([_row("pooled", s.overall)] if len(s.sets) > 1 else []))
    m = s.by_majority
    majority = ((m.n_occupations, m.female_majority_pct, m.male_majority_pct, m.gap, CI(*m.interval("gap")),
                 m.agreement_pct, CI(*m.interval("agreement_pct"))),)
    off = sorted(s.occupations.items(), key=lambda kv: abs(kv[1]["female_pct"] - 50)
                 * (1 if (kv[1]["female_pct"] > 50) == (kv[1]["majority"] == "female") else -1))
    far = tuple((o, v["majority"], v["female_pct"], v["n_pairs"]) for o, v in off[:N_EXAMPLES])
    return [Table("WinoBias: pro- vs anti-stereotypical preference", _COLUMNS, rows,
                  _CAPTION + f" Reading: {s.reading or '–'}; skipped pairs: {s.n_skipped}."),
            Table("WinoBias occupations against their BLS 2017 majority",
                  ("occupations", "female % (female-majority)", "female % (male-majority)", "gap", "95% CI",
                   "% on the majority's side", "95% CI"), majority,
                  "An occupation's female % is the mean of P(female version) / (P(female) + P(male)) over the "
                  "pairs whose antecedent it is. Gap: female-majority mean − male-majority mean (0 = no effect)."),
            Table("Occupations least on their majority's side", ("occupation", "BLS majority", "model female %",
                                                                 "pairs"), far)]


def metrics(run: RunView) -> list[Metric]:
    s = _summary(run)
    o = s.overall
    out = [Metric("pro_pct", o.pro_pct, *o.interval("pro_pct"), n=o.n, label="pro %"),
           Metric("diff", o.diff, *o.interval("diff"), n=o.n, label="Diff")]
    out += [Metric(f"diff:{k}", v.diff, *v.interval("diff"), n=v.n, label=f"Diff {k}") for k, v in s.sets.items()]
    m = s.by_majority
    return out + [Metric("gap", m.gap, *m.interval("gap"), n=m.n_occupations, label="majority gap")]


def leaderboard(runs: Sequence[RunView]) -> Table:
    rows = []
    for r in runs:
        s = _summary(r)
        o = s.overall
        rows.append((r, (r.label, s.reading, r.benchmark_config.get("split"), o.n, o.pro_pct, o.diff,
                         CI(*o.interval("diff")), *(_type_diff(s, kind) for kind in ("1", "2")), s.by_majority.gap)))
    return leaderboard_table("WinoBias", ("model", "reading", "split", "pairs", "pro %", "Diff", "95% CI",
                                          "Diff type 1", "Diff type 2", "majority gap"), rows, runs,
                             "Diff = pro % − anti % over the pairs scored (0 = no effect); per type, the test "
                             "set's where a run has both splits; majority gap: the female-majority occupations' "
                             "mean female share minus the male-majority ones'.")


def _type_diff(s: WinoBiasRunSummary, kind: str) -> float | None:
    """The Diff of type ``kind``: its test set where the run has it, else its dev set, else None."""
    for split in ("test", "dev"):
        if f"type{kind}-{split}" in s.sets:
            return s.sets[f"type{kind}-{split}"].diff
    return None


def compare(a: RunView, b: RunView, *, n_resamples: int, seed: int) -> Paired:
    """A paired bootstrap on pro-preference (×100) over the pairs both runs scored, per set."""
    ra, rb, only_a, only_b = pair_items(a, b, "id")
    tests = []
    for name in sorted({r["set"] for r in ra}):
        va = np.array([100.0 * r["pro_preferred"] for r in ra if r["set"] == name])
        vb = np.array([100.0 * y["pro_preferred"] for x, y in zip(ra, rb) if x["set"] == name])
        tests.append(bootstrap_test(name, "% pro preferred", va, vb, n_resamples, seed))
    return Paired(tuple(tests), len(ra), only_a, only_b)


def plots(run: RunView) -> list[Plot]:
    """Each occupation's female share, sorted, coloured by its BLS 2017 majority."""
    s = _summary(run)
    rows = sorted(s.occupations.items(), key=lambda kv: kv[1]["female_pct"])
    fig = new_figure(6.0, max(3.0, 0.16 * len(rows) + 1.2))
    ax = fig.add_subplot()
    ax.axvline(50, color=INK, lw=0.8, ls=":", gid="even")
    tips: dict[str, Any] = {}
    for majority, colour in (("female", FEMALE), ("male", MALE)):
        chosen = [(i, o, v) for i, (o, v) in enumerate(rows) if v["majority"] == majority]
        if chosen:
            ax.scatter([v["female_pct"] for _, _, v in chosen], [i for i, _, _ in chosen], s=18, color=colour,
                       label=f"BLS majority {majority} ({len(chosen)})", gid=f"points-{majority}")
            tips[f"points-{majority}"] = [f"{o}: {v['female_pct']:.1f}% female over {v['n_pairs']} pairs"
                                          for _, o, v in chosen]
    ax.set_yticks(range(len(rows)), [o for o, _ in rows], fontsize=6)
    ax.set(xlim=(0, 100), xlabel="model: female pronoun share (%)")
    title(ax, f"WinoBias occupations · {short(run.label, LABEL_WIDTH)}", f"WinoBias occupations · {run.label}", tips)
    legend_below(ax, 34)
    fit(fig)
    return [Plot(fig, f"Female pronoun share per WinoBias occupation for {run.label}, by BLS 2017 majority", tips)]


#: The paper (NAACL 2018), as the authors' repository gives it.
ZHAO_2018 = Reference("zhao-etal-2018-gender", "inproceedings", (
    ("title", "Gender Bias in Coreference Resolution: Evaluation and Debiasing Methods"),
    ("author", "Zhao, Jieyu and Wang, Tianlu and Yatskar, Mark and Ordonez, Vicente and Chang, Kai-Wei"),
    ("booktitle", "Proceedings of the 2018 Conference of the North American Chapter of the Association for "
                  "Computational Linguistics: Human Language Technologies, Volume 2 (Short Papers)"),
    ("year", "2018"), ("address", "New Orleans, Louisiana"),
    ("publisher", "Association for Computational Linguistics")))


def references(run: RunView) -> tuple[Reference, ...]:
    return (ZHAO_2018,)


#: Which way each metric reads (``higher_is_better``/``ideal`` in the CSV and JSON): pro % at 50, Diff and
#: the majority gap at 0.
DIRECTIONS_OF_METRICS = {"pro_pct": toward(50), "diff": toward(0), "diff:": toward(0), "gap": toward(0)}

VIEW = BenchmarkView(tables=tables, leaderboard=leaderboard, metrics=metrics,
                     paired=PairedMethod(compare, "paired bootstrap on WinoBias pro-preferences"), plots=plots,
                     references=references,
                     headlines=headlines, directions=DIRECTIONS_OF_METRICS)
