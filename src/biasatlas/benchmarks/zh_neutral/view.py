"""What the terminal and the report show of a zh-neutral run (Zhao et al. 2021, SlguSet).

- Tables: the bias score (mean |b|) with its interval and how many sentences lean male,
  neutral or female; the same per keyword pair; topic words of the leaning subsets; the
  sentences leaning most. Counts come from :func:`.overview.zh_overview`.
- Plots: the distribution of ``b = log P(m|s)/P(f|s)`` with the ±threshold leaning lines,
  and the leaning shares per keyword pair.
- Paired test: the Wilcoxon signed-rank test on the per-sentence ``|b|`` (the paper's
  score is its mean), overall and per keyword pair with Holm across pairs; plus the
  signed ``b`` overall (does one model lean more male?).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...display.cite import Reference
from ...display.paired import Paired, PairedTest, difference_interval, pair_items, with_holm
from ...runs.view import RunView
from ...display.style import (FEMALE, INK, LABEL_WIDTH, MALE, NEUTRAL, TICK_WIDTH, fit, legend_below, new_figure,
                              number_text, short, tip, title)
from ...display.svg import Plot
from ...display.direction import LOWER, NEITHER
from ...display.tables import CI, N_EXAMPLES, Metric, Table, fragile_note, leaderboard_table
from ...stats import wilcoxon_test
from ..base import BenchmarkView, PairedMethod
from .controls import headlines
from .overview import LEANINGS, ZhOverview, zh_overview
from .summary import zh_summary

LEANING_COLOURS = {"female": FEMALE, "male": MALE, "neutral": NEUTRAL}


# -- tables ---------------------------------------------------------------------------------------
def zh_tables(run: RunView) -> list[Table]:
    z = zh_overview(run)
    pct = {k: 100.0 * v / z.n if z.n else None for k, v in z.leaning.items()}
    overview = ((z.n, z.bias_score, CI(*(zh_summary(run).bias_score_ci or (None, None)), digits=2), z.leaning["male"],
                 pct["male"], z.leaning["neutral"], pct["neutral"], z.leaning["female"], pct["female"]),)
    pairs = tuple((p.pair, p.n, p.mean_b, p.mean_abs_b, CI(*p.ci, digits=2), p.counts["male"], p.counts["neutral"],
                   p.counts["female"]) for p in z.pairs)
    topics = tuple((k, ", ".join(w if s is None else f"{w} ({s:.3g})" for w, s in words[:15]))
                   for k, words in z.topics.items())
    tables = [Table("zh-neutral score (Zhao et al. 2021)", ("n", "mean |b|", "95% CI", "male", "male %",
                                                           "neutral", "neutral %", "female", "female %"),
                    overview, f"b = log P(m|s)/P(f|s), log base {z.log_base}; leaning male if "
                    f"b > {z.threshold:g}, female if b < −{z.threshold:g}."
                    + fragile_note(run.summary, zh_summary(run).n, "sentences", "the leaning")),
              Table("By keyword pair", ("pair", "n", "mean b", "mean |b|", "95% CI", "male", "neutral", "female"),
                    pairs)]
    if topics:
        tables.append(Table("Topic words of the leaning subsets", ("leaning", "words"), topics))
    ordered = sorted((r for r in run.records if r.get("b") is not None), key=lambda r: r["b"])
    extreme = (ordered[::-1] if len(ordered) <= N_EXAMPLES
               else ordered[-N_EXAMPLES // 2:][::-1] + ordered[: N_EXAMPLES // 2])
    tables.append(Table("Sentences leaning most", ("id", "sentence", "keyword", "pair", "b", "leaning"),
                        tuple((r["id"], r["sentence"], r.get("keyword"), r["pair"], r["b"], r["leaning"])
                              for r in extreme)))
    return tables


def zh_leaderboard(runs: Sequence[RunView]) -> Table:
    rows = []
    for r in runs:
        z = zh_overview(r)
        ci = CI(*(zh_summary(r).bias_score_ci or (None, None)), digits=2)
        rows.append((r, (r.label, r.dataset, z.n, z.bias_score, ci, z.leaning.get("male"), z.leaning.get("female"),
                         z.leaning.get("neutral"))))
    rows.sort(key=lambda x: (x[1][1], -(x[1][3] or 0)))
    return leaderboard_table("zh-neutral leaderboard (Zhao et al. 2021)",
                             ("model", "dataset", "n", "mean |b|", "95% CI", "male", "female", "neutral"), rows,
                             runs, "Sorted by mean |b| (higher = more gendered); leaning counts at "
                             "each run's threshold (paper: 0.3).")


def zh_metrics(run: RunView) -> list[Metric]:
    z = zh_overview(run)
    out = [Metric("bias_score", z.bias_score, *(zh_summary(run).bias_score_ci or (None, None)), z.n)]
    out += [Metric(f"leaning:{k}", float(v), n=z.n) for k, v in z.leaning.items()]
    out += [Metric(f"pair:{p.pair}:mean_abs_b", p.mean_abs_b, n=p.n) for p in z.pairs]
    return out


# -- plots ------------------------------------------------------------------------------------------
def zh_plots(run: RunView) -> list[Plot]:
    z = zh_overview(run)
    return [zh_histogram(run, z), zh_pairs(run, z)]


def zh_histogram(run: RunView, z: ZhOverview) -> Plot:
    """Histogram of b with the ±threshold lines; bins coloured by the leaning they fall in."""
    fig = new_figure(6.4, 3.4)
    ax = fig.add_subplot()
    b = z.b
    lo, hi = (float(np.min(b)), float(np.max(b))) if len(b) else (-1.0, 1.0)
    edges = np.histogram_bin_edges(b, bins=min(80, max(10, int(np.sqrt(max(len(b), 1))))),
                                   range=(min(lo, -1.0), max(hi, 1.0)))
    counts, edges = np.histogram(b, bins=edges)
    mids = (edges[:-1] + edges[1:]) / 2
    colours = np.where(mids > z.threshold, MALE, np.where(mids < -z.threshold, FEMALE, NEUTRAL))
    bars = ax.bar(edges[:-1], counts, width=np.diff(edges), align="edge", color=colours,
                  edgecolor="white", linewidth=0.3)
    tips = {}
    for i, (patch, count) in enumerate(zip(bars.patches, counts)):
        patch.set_gid(f"bin-{i}")
        tips[f"bin-{i}"] = f"b in [{edges[i]:.2f}, {edges[i + 1]:.2f}): {int(count)} sentences"
    for x in (-z.threshold, z.threshold):
        ax.axvline(x, color=INK, lw=1, ls="--", gid=f"threshold-{'neg' if x < 0 else 'pos'}")
    counts_text = "  ·  ".join(f"{k} {z.leaning[k]}" for k in ("female", "neutral", "male"))
    head = "b = log P(m|s)/P(f|s) · {} · mean |b| = " + f"{number_text(z.bias_score, 4)}\n{counts_text}"
    title(ax, head.format(short(run.label, LABEL_WIDTH)), head.format(run.label), tips)
    ax.set_xlabel(f"b, log base {z.log_base}  (< −{z.threshold:g} leans female · > {z.threshold:g} leans male)")
    ax.set_ylabel("sentences")
    return Plot(fit(fig), f"Histogram of b for {run.label} with the ±{z.threshold:g} leaning thresholds", tips)


def zh_pairs(run: RunView, z: ZhOverview) -> Plot:
    """Leaning shares per keyword pair (他/她, 男/女 …), stacked to 100 %."""
    pairs = list(reversed(z.pairs))
    fig = new_figure(6.4, 0.38 * len(pairs) + 1.3)
    ax = fig.add_subplot()
    left = np.zeros(len(pairs))
    tips = {}
    for leaning in LEANINGS:
        share = np.array([100.0 * p.counts[leaning] / p.n for p in pairs])
        ax.barh(np.arange(len(pairs)), share, left=left, color=LEANING_COLOURS[leaning], height=0.6,
                label=leaning, gid=f"lean-{leaning}")
        for i, p in enumerate(pairs):
            tips[f"{leaning}-{i}"] = f"{p.pair}: {p.counts[leaning]} of {p.n} lean {leaning}"
        left += share
    names = [short(p.pair, TICK_WIDTH) for p in pairs]
    ax.set_yticks(np.arange(len(pairs)), [f"{name} (n={p.n}, mean |b| {p.mean_abs_b:.2f})"
                                          for name, p in zip(names, pairs)])
    for i, (label, name, p) in enumerate(zip(ax.get_yticklabels(), names, pairs)):
        tip(label, f"pair-{i}", name, p.pair, tips)
    ax.set_xlim(0, 100)
    ax.set_xlabel("% of the pair's sentences")
    title(ax, f"Leaning per keyword pair · {short(run.label, LABEL_WIDTH)}",
          f"Leaning per keyword pair · {run.label}", tips)
    legend_below(ax, 34)
    _gid_bars(ax, pairs)
    fit(fig)
    return Plot(fig, f"Leaning shares per keyword pair for {run.label}", tips)


def _gid_bars(ax: Any, pairs: Sequence[Any]) -> None:
    """Name each stacked segment ``<leaning>-<row>`` so its tooltip can find it."""
    for container, leaning in zip(ax.containers, LEANINGS):
        for i, patch in enumerate(container.patches):
            patch.set_gid(f"{leaning}-{i}")


# -- paired test ------------------------------------------------------------------------------------
def zh_compare(a: RunView, b: RunView, *, n_resamples: int = 2000, seed: int = 0) -> Paired:
    """Wilcoxon on |b| and on signed b over all sentences, then on |b| per pair (Holm across pairs);
    B − A's interval from a paired bootstrap over each row's sentences."""
    ra, rb, only_a, only_b = pair_items(a, b, "id")
    keep = [i for i in range(len(ra)) if ra[i].get("b") is not None and rb[i].get("b") is not None]
    ra, rb = [ra[i] for i in keep], [rb[i] for i in keep]
    ba, bb = np.array([float(r["b"]) for r in ra]), np.array([float(r["b"]) for r in rb])
    resampling = (n_resamples, seed)
    tests = [_wilcoxon_row("all sentences", "mean |b|", np.abs(ba), np.abs(bb), resampling),
             _wilcoxon_row("all sentences", "mean b (signed)", ba, bb, resampling)]
    pairs = np.array([str(r["pair"]) for r in ra])
    for pair in sorted(set(pairs)):
        mask = pairs == pair
        tests.append(_wilcoxon_row(pair, "mean |b|", np.abs(ba[mask]), np.abs(bb[mask]), resampling))
    return Paired(with_holm(tests, lambda t: t.scope != "all sentences"), len(ra), only_a, only_b)


def _wilcoxon_row(scope: str, quantity: str, a: np.ndarray, b: np.ndarray, resampling: tuple[int, int]
                  ) -> PairedTest:
    stat, p, detail = wilcoxon_test(a, b)
    low, high = difference_interval(a, b, *resampling)
    return PairedTest(scope, quantity, len(a), float(a.mean()) if len(a) else None,
                      float(b.mean()) if len(b) else None, stat, p, "Wilcoxon signed-rank", detail=detail,
                      ci_low=low, ci_high=high)


# -- references --------------------------------------------------------------------------------------
#: Zhao, Du, Zhu & Liu (CCL 2021), SlguSet: title and venue as in docs/benchmarks/zh-neutral.md, the
#: authors' given names, pages and the English title from its ACL Anthology record. The Chinese title
#: needs a CJK-capable LaTeX setup (xeCJK, or biblatex with XeLaTeX).
ZHAO_2021 = Reference("zhao-etal-2021-zhong", "inproceedings", (
    ("title", "中文句子级性别无偏数据集构建及预训练语言模型的性别偏度评估 ({C}onstruction of {C}hinese "
              "Sentence-Level Gender-Unbiased Data Set and Evaluation of Gender Bias in Pre-Training Language)"),
    ("author", "Zhao, Jishun and Du, Bingjie and Zhu, Shucheng and Liu, Pengyuan"),
    ("booktitle", "Proceedings of the 20th Chinese National Conference on Computational Linguistics"),
    ("year", "2021"), ("address", "Huhhot, China"), ("publisher", "Chinese Information Processing Society of China"),
    ("pages", "564--575"), ("language", "Chinese")))


def zh_references(run: RunView) -> tuple[Reference, ...]:
    return (ZHAO_2021,)


#: Which way each metric reads (``higher_is_better``/``ideal`` in the CSV and JSON): the bias score and each
#: pair's mean |b| lower (0: no leaning); the shares of leanings describe.
DIRECTIONS_OF_METRICS = {"bias_score": LOWER, "pair:": LOWER, "leaning:": NEITHER}

VIEW = BenchmarkView(tables=zh_tables, leaderboard=zh_leaderboard, metrics=zh_metrics,
                     paired=PairedMethod(zh_compare, "Wilcoxon signed-rank on zh-neutral b"), plots=zh_plots,
                     needs_cjk_font=True, references=zh_references,
                     headlines=headlines, directions=DIRECTIONS_OF_METRICS)
