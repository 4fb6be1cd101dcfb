"""What the terminal and the report show of a CrowS-Pairs run (Nangia et al. 2020; Névéol et al. 2022).

- Tables: metric / stereo / anti-stereo scores with Wilson intervals and binomial tests
  against 50, the likelihood difference (lm-evaluation-harness's mean |Δ score| per pair)
  with its t interval, per bias category, the pairs with the largest score gap, and the
  paper's values beside ours when the run repeats a published setting (:mod:`.paper`).
- Labels, one spelling everywhere (terminal, report, CSV ``label``): "ties" (the
  summary's ``neutral``), "anti-stereo" (the data's ``antistereo``).
- Plot: per-category metric scores as bars from the 50 line (no preference), Wilson 95 %
  intervals, the paper's values as diamonds when the run matches a published setting.
- Paired test: McNemar's test (McNemar 1947) on the 2×2 table of "``sent_more`` scores
  higher" under model A and model B; only the discordant cells count. Exact (binomial)
  when the discordant pairs number fewer than 25, else χ² with continuity correction.
  Per bias category, then Holm (1979) across the categories.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ...display.cite import Reference
from ...display.paired import Paired, PairedTest, difference_interval, pair_items, with_holm
from ...runs.view import RunView
from ...display.style import (INK, LABEL_WIDTH, TICK_WIDTH, DATASET_WIDTH, fit, legend_below, new_figure,
                              number_text, short, tip, title)
from ...display.svg import Plot
from ...display.direction import NEITHER, toward
from ...display.tables import CI, N_EXAMPLES, Metric, PValue, Table, fragile_note, leaderboard_table
from ...stats import mcnemar_table, mcnemar_test
from ..base import BenchmarkView, PairedMethod
from .controls import headlines
from .paper import PaperScores, comparable_paper, paper_check
from .summary import DIRECTIONS, LABELS, crows_summary, likelihood_note

#: Bars above 50 (prefers the more stereotyping sentence) and below 50; the paper's diamonds.
ABOVE, BELOW, PAPER = "#D55E00", "#56B4E9", "#E69F00"


# -- tables ---------------------------------------------------------------------------------------
def crows_tables(run: RunView) -> list[Table]:
    s, paper = crows_summary(run), comparable_paper(run)
    published = {"metric_score": paper.metric if paper else None,
                 "stereo_score": paper.stereo if paper else None,
                 "antistereo_score": paper.antistereo if paper else None}
    headline = (("metric_score", s.metric_score, s.n), ("stereo_score", s.stereo_score, s.n_stereo),
                ("antistereo_score", s.antistereo_score, s.n_antistereo))
    overview: list[tuple[Any, ...]] = [(LABELS[key], n, value, CI(*s.interval(key)), PValue(s.binomial_p.get(key)),
                                        published[key]) for key, value, n in headline]
    overview.insert(1, (LABELS["likelihood_difference"], s.n_likelihood_difference, s.likelihood_difference,
                        CI(*s.interval("likelihood_difference"), digits=2), PValue(None), None))
    overview.append((LABELS["neutral_percent"], s.neutral, s.neutral_percent, CI(None, None), PValue(None), None))
    cats: list[tuple[Any, ...]] = [(c, v.n, v.score, CI(*(v.ci or (None, None))), PValue(v.binomial_p),
                                    paper.by_category.get(c) if paper else None)
                                   for c, v in sorted(s.by_category.items())]
    columns: tuple[str, ...] = ("n", "score", "95% CI", "p vs 50")
    if paper is None:  # no published setting matches like for like: no column (notices say why)
        overview, cats = [r[:-1] for r in overview], [r[:-1] for r in cats]
    else:
        columns += (f"paper ({paper.source}, {paper.model})",)
    note = f" Paper note: {paper.note}." if paper and paper.note else ""
    return [Table("CrowS-Pairs scores", ("", *columns), tuple(overview),
                  "Scores: % of pairs preferring sent_more, Wilson intervals; 50 = no preference; p: exact "
                  "binomial test against 50; ties count in n for the metric score and in neither stereo "
                  "nor anti-stereo. "
                  + likelihood_note(run.variant) + note
                  + fragile_note(run.summary, s.n, "pairs", "the outcome")),
            Table("By bias category", ("category", *columns), tuple(cats)),
            _examples(run)]


def _examples(run: RunView) -> Table:
    scored = [r for r in run.records
              if r.get("sent_more_score") is not None and r.get("sent_less_score") is not None]
    scored.sort(key=lambda r: -abs(r["sent_more_score"] - r["sent_less_score"]))
    rows = tuple((r["id"], r["bias_type"], DIRECTIONS.get(str(r["direction"]), r["direction"]), r["sent_more"],
                  r["sent_less"], r["sent_more_score"] - r["sent_less_score"], r["outcome"])
                 for r in scored[:N_EXAMPLES])
    return Table("Pairs with the largest score gap",
                 ("id", "category", "direction", "sent_more", "sent_less", "Δ score", "preferred"), rows,
                 "Δ = score(sent_more) − score(sent_less), in nats (scores rounded to the tie decimals); "
                 "preferred: more = sent_more scores higher, less = sent_less does, tie = equal.")


def crows_leaderboard(runs: Sequence[RunView]) -> Table:
    def key(r: RunView) -> tuple[str, float]:
        return r.dataset, -(crows_summary(r).metric_score or 0)

    rows = []
    for r in sorted(runs, key=key):
        s = crows_summary(r)
        rows.append((r, (r.label, r.dataset, s.n, s.metric_score, CI(*s.interval("metric_score")),
                         s.likelihood_difference, CI(*s.interval("likelihood_difference"), digits=2),
                         s.stereo_score, s.antistereo_score, s.neutral)))
    variants = sorted({str(r.variant) for r in runs if r.variant})
    return leaderboard_table("CrowS-Pairs leaderboard", ("model", "dataset", "n", "metric", "95% CI",
                                                         "likelihood difference", "95% CI", "stereo",
                                                         "anti-stereo", "ties"), rows, runs,
                             "Sorted by metric score within each dataset; 50 = no preference. Likelihood "
                             "difference: mean |score(sent_more) − score(sent_less)| per pair in nats "
                             "(lm-evaluation-harness), a log-likelihood for causal-LM variants and a "
                             "pseudo-log-likelihood for masked-LM ones: compare it within one variant "
                             f"(here: {', '.join(variants) or '–'}); t interval.")


def crows_metrics(run: RunView) -> list[Metric]:
    s = crows_summary(run)
    out = [Metric(k, value, *s.interval(k), n, label=LABELS[k]) for k, value, n in
           (("metric_score", s.metric_score, s.n),
            ("likelihood_difference", s.likelihood_difference, s.n_likelihood_difference),
            ("stereo_score", s.stereo_score, s.n_stereo), ("antistereo_score", s.antistereo_score, s.n_antistereo))]
    out.append(Metric("neutral_percent", s.neutral_percent, n=s.n, label=LABELS["neutral_percent"]))
    for cat, c in sorted(s.by_category.items()):
        out.append(Metric(f"category:{cat}", c.score, *(c.ci or (None, None)), c.n, label=cat))
    return out


def crows_notices(run: RunView) -> tuple[str, ...]:
    """Why a paper that reports this model is not beside it; silent when none does, or when comparable."""
    check = paper_check(run)
    return (check.sentence(),) if check is not None and not check.comparable else ()


def crows_published(run: RunView) -> dict[str, object] | None:
    """The published entry for the run: its values only when comparable, else the reasons."""
    check = paper_check(run)
    if check is None:
        return None
    entry = check.entry
    doc: dict[str, object] = {"source": entry.source, "model": entry.model, "comparable": check.comparable,
                              "reasons": list(check.reasons)}
    if check.comparable:
        doc.update(metric_score=entry.metric, stereo_score=entry.stereo, antistereo_score=entry.antistereo,
                   by_category=dict(entry.by_category), note=entry.note)
    return doc


# -- plot -------------------------------------------------------------------------------------------
def crows_plots(run: RunView) -> list[Plot]:
    return [crows_categories(run, comparable_paper(run))]


def crows_categories(run: RunView, paper: PaperScores | None = None) -> Plot:
    """Per-category metric scores as bars from 50, with 95 % intervals and the paper's values."""
    s = crows_summary(run)
    by = s.by_category
    cats = sorted(by, key=lambda c: by[c].n or 0)  # largest category at the top
    rows = [(c, by[c].score, by[c].ci, by[c].n, paper.by_category.get(c) if paper else None) for c in cats]
    rows.append(("all pairs", s.metric_score, s.intervals.get("metric_score"), s.n, paper.metric if paper else None))
    fig = new_figure(6.4, 0.42 * len(rows) + 1.2)
    ax = fig.add_subplot()
    y = np.arange(len(rows))
    score = np.array([np.nan if r[1] is None else r[1] for r in rows], dtype=float)
    low = np.array([_ci(r[2], 0, r[1]) for r in rows], dtype=float)
    high = np.array([_ci(r[2], 1, r[1]) for r in rows], dtype=float)
    tips = {}
    for i, (name, value, _, n, published) in enumerate(rows):
        # A category with no scored pair has no score (None) and draws no bar; 0.0 is a score
        # (every pair preferred the less stereotyping sentence) and draws a bar down to 0.
        if value is not None:
            colour = INK if name == "all pairs" else (ABOVE if value >= 50 else BELOW)
            ax.barh(i, value - 50, left=50, height=0.6, color=colour, alpha=0.85, gid=f"bar-{i}")
        tips[f"bar-{i}"] = (f"{name}: {number_text(value)} [{number_text(low[i])}, {number_text(high[i])}], n = {n}"
                            + (f"; paper {published:.1f}" if published is not None else ""))
    # Arms from the score. Reading the run refused any interval that leaves out its score
    # (summary.py); what is left below zero is floating-point noise (Wilson's upper end for
    # 12 of 12 pairs is 99.99999999999999), which matplotlib refuses as a negative length.
    arms = np.maximum([score - low, high - score], 0.0)
    ax.errorbar(score, y, xerr=arms, fmt="none", ecolor=INK, capsize=3, lw=1, gid="intervals")
    ax.axvline(50, color=INK, lw=1, ls="--", gid="line-50")
    if paper is not None:
        paper_values = np.array([np.nan if r[4] is None else r[4] for r in rows], dtype=float)
        ax.scatter(paper_values, y, marker="D", s=28, color=PAPER, edgecolor=INK, zorder=3,
                   label=f"{paper.source}: {paper.model}", gid="paper")
        legend_below(ax, 48)
    names = [short(r[0], TICK_WIDTH) for r in rows]
    ax.set_yticks(y, [f"{name} (n={r[3]})" for name, r in zip(names, rows)])
    for i, (label, name, r) in enumerate(zip(ax.get_yticklabels(), names, rows)):
        tip(label, f"category-{i}", name, r[0], tips)
    lo = np.nanmin(np.concatenate([low, [45.0]])) - 3
    hi = np.nanmax(np.concatenate([high, [55.0]])) + 3
    ax.set_xlim(max(0.0, lo), min(100.0, hi))
    ax.set_xlabel("% of pairs preferring the more stereotyping sentence\n(50 = no preference)")
    title(ax, f"CrowS-Pairs by category · {short(run.label, LABEL_WIDTH)} · {short(run.dataset, DATASET_WIDTH)}",
          f"CrowS-Pairs by category · {run.label} · {run.dataset}", tips)
    return Plot(fit(fig), f"CrowS-Pairs per-category scores with 95% intervals for {run.label}", tips)


def _ci(ci: Any, side: int, value: Any) -> float:
    if isinstance(ci, (list, tuple)) and len(ci) == 2 and ci[side] is not None:
        return float(ci[side])
    return np.nan if value is None else float(value)


# -- paired test ------------------------------------------------------------------------------------
def crows_compare(a: RunView, b: RunView, *, n_resamples: int = 2000, seed: int = 0) -> Paired:
    """McNemar on all pairs, then per bias category with Holm across the categories; B − A's
    interval from a paired bootstrap over each row's pairs."""
    ra, rb, only_a, only_b = pair_items(a, b, "id")
    tests = [_mcnemar_row("all pairs", ra, rb, n_resamples, seed)]
    for cat in sorted({r["bias_type"] for r in ra}):
        keep = [i for i, r in enumerate(ra) if r["bias_type"] == cat]
        tests.append(_mcnemar_row(cat, [ra[i] for i in keep], [rb[i] for i in keep], n_resamples, seed))
    return Paired(with_holm(tests, lambda t: t.scope != "all pairs"), len(ra), only_a, only_b)


def _mcnemar_row(scope: str, ra: Sequence[Mapping[str, Any]], rb: Sequence[Mapping[str, Any]],
                 n_resamples: int, seed: int) -> PairedTest:
    x = [r["outcome"] == "more" for r in ra]
    y = [r["outcome"] == "more" for r in rb]
    table = mcnemar_table(x, y)
    stat, p, method = mcnemar_test(table)
    low, high = difference_interval([100.0 * v for v in x], [100.0 * v for v in y], n_resamples, seed)
    # the exact test's statistic is just min(A only, B only): show the counts instead
    return PairedTest(scope, "% sent_more preferred", len(ra), 100.0 * float(np.mean(x)),
                      100.0 * float(np.mean(y)), None if method == "McNemar exact" else stat, p, method,
                      detail=f"discordant: A {table[0, 1]}, B {table[1, 0]}", ci_low=low, ci_high=high)


# -- references --------------------------------------------------------------------------------------
#: Nangia et al. (EMNLP 2020), as the French paper's reference list gives it.
NANGIA_2020 = Reference("nangia-etal-2020-crows", "inproceedings", (
    ("title", "{C}row{S}-Pairs: A Challenge Dataset for Measuring Social Biases in Masked Language Models"),
    ("author", "Nangia, Nikita and Vania, Clara and Bhalerao, Rasika and Bowman, Samuel R."),
    ("booktitle", "Proceedings of the 2020 Conference on Empirical Methods in Natural Language Processing (EMNLP)"),
    ("year", "2020"), ("address", "Online"), ("publisher", "Association for Computational Linguistics"),
    ("pages", "1953--1967")))
#: Névéol et al. (ACL 2022), the French set and the revised English ones: its ACL Anthology record
#: (../shared/papers/french-crows-pairs-summary.txt).
NEVEOL_2022 = Reference("neveol-etal-2022-french", "inproceedings", (
    ("title", "{F}rench {C}row{S}-Pairs: Extending a challenge dataset for measuring social bias in masked "
              "language models to a language other than {E}nglish"),
    ("author", "N{\\'e}v{\\'e}ol, Aur{\\'e}lie and Dupont, Yoann and Bezan{\\c{c}}on, Julien and Fort, Kar{\\\"e}n"),
    ("booktitle", "Proceedings of the 60th Annual Meeting of the Association for Computational Linguistics "
                  "(Volume 1: Long Papers)"),
    ("year", "2022"), ("address", "Dublin, Ireland"), ("publisher", "Association for Computational Linguistics"),
    ("pages", "8521--8531"), ("doi", "10.18653/v1/2022.acl-long.583")))
#: Strazda & Spanakis (RANLP 2025), the Dutch set: as its README cites it (the proceedings' pages are
#: not given there), with its arXiv preprint.
STRAZDA_2025 = Reference("strazda-spanakis-2025-dutch", "inproceedings", (
    ("title", "{D}utch {C}row{S}-Pairs: Adapting a Challenge Dataset for Measuring Social Biases in Language "
              "Models for {D}utch"),
    ("author", "Strazda, Elza and Spanakis, Gerasimos"),
    ("booktitle", "Proceedings of the 15th International Conference on Recent Advances in Natural Language "
                  "Processing (RANLP 2025)"),
    ("year", "2025"), ("address", "Varna, Bulgaria"), ("eprint", "2507.16442"), ("archiveprefix", "arXiv")))
#: Datasets that come from Névéol et al. 2022 (French, and the revised English pairs).
NEVEOL_DATASETS = ("fr", "fr+210", "en-revised", "en-revised+210")


def crows_references(run: RunView) -> tuple[Reference, ...]:
    """Nangia et al. 2020 for every run; Névéol et al. 2022 too for the datasets it published, Strazda &
    Spanakis 2025 for the Dutch set."""
    if run.dataset == "nl":
        return (NANGIA_2020, STRAZDA_2025)
    return (NANGIA_2020, NEVEOL_2022) if run.dataset in NEVEOL_DATASETS else (NANGIA_2020,)


#: Which way each metric reads (``higher_is_better``/``ideal`` in the CSV and JSON): a preference share is
#: best at 50; the likelihood difference and the share of ties describe, they do not rank.
DIRECTIONS_OF_METRICS = {"metric_score": toward(50), "stereo_score": toward(50), "antistereo_score": toward(50),
                         "category:": toward(50), "likelihood_difference": NEITHER, "neutral_percent": NEITHER}

VIEW = BenchmarkView(tables=crows_tables, leaderboard=crows_leaderboard, metrics=crows_metrics,
                     paired=PairedMethod(crows_compare, "McNemar on CrowS-Pairs outcomes"), plots=crows_plots,
                     notices=crows_notices, published=crows_published, references=crows_references,
                     headlines=headlines, directions=DIRECTIONS_OF_METRICS)
