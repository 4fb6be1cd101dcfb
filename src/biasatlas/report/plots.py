"""The report's figures, one function per plot, each returning a :class:`~.svg.Plot`.

Figures are built with :class:`matplotlib.figure.Figure` directly (no pyplot state, the
Agg canvas), so rendering many runs leaks nothing and needs no display. Colours are the
Okabe–Ito palette, readable with colour-vision deficiencies and in greyscale print.

- CrowS-Pairs (Nangia et al. 2020; Névéol et al. 2022): per-category metric scores as
  bars from the 50 line (no preference), Wilson 95 % intervals, the paper's values as
  diamonds when the run matches a published setting.
- Census (Touileb et al. 2023): census share of women vs the model's share, one point
  per occupation, the 45–55 % balanced bands shaded on both axes, so the diagonal cells
  of the 3×3 grid are the occupations the model classes like the census.
- zh-neutral (Zhao et al. 2021): the distribution of ``b = log P(m|s)/P(f|s)`` with the
  ±0.3 leaning thresholds, and the leaning shares per keyword pair.

Labels come from run folders (model names, categories, occupations, keyword pairs), so
text is never parsed as mathtext (``$^$`` is drawn as written) and a label longer than
its slot is cut in the middle with "…" (:func:`short`) and shown whole in a tooltip; if
labels still do not fit, :func:`fit` widens the figure instead of failing.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, MutableMapping, Sequence
from functools import cache
from typing import Any

import numpy as np

from .paper import PaperScores
from .runs import RunView
from .svg import Plot
from .zh import LEANINGS, ZhOverview

FEMALE, MALE, NEUTRAL, INK = "#CC79A7", "#0072B2", "#999999", "#222222"
#: CrowS-Pairs bars: above 50 (prefers the more stereotyping sentence) and below 50.
ABOVE, BELOW, PAPER = "#D55E00", "#56B4E9", "#E69F00"
CLASS_COLOURS = {"female": FEMALE, "male": MALE, "balanced": NEUTRAL}
LEANING_COLOURS = {"female": FEMALE, "male": MALE, "neutral": NEUTRAL}
#: CJK fonts tried for Chinese labels, in order; Debian packages fonts-wqy-microhei / fonts-noto-cjk.
CJK_FONTS = ("WenQuanYi Micro Hei", "Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC",
             "WenQuanYi Zen Hei", "AR PL UMing CN")


#: Longest label drawn, in columns (a CJK character counts two): model labels in titles,
#: category and pair names on the y-axis, occupations beside census points, datasets.
LABEL_WIDTH, TICK_WIDTH, NOTE_WIDTH, DATASET_WIDTH = 48, 36, 28, 24
#: Widest title line, in columns; longer titles break at their " · " separators.
TITLE_WIDTH = 64


def _columns(ch: str) -> int:
    return 2 if unicodedata.east_asian_width(ch) in "WF" else 1


def _printable(ch: str) -> str:
    """Control characters are dropped and lone surrogates shown as U+FFFD: matplotlib copies
    every drawn text into its SVG, where either would make the XML unreadable."""
    category = unicodedata.category(ch)
    return "" if category == "Cc" else "\ufffd" if category == "Cs" else ch


def short(text: object, width: int) -> str:
    """``text`` on one line and printable, cut in the middle with "…" to at most ``width``
    columns; head and tail both survive, since model ids differ at either end
    (``org/…-step-1000``)."""
    flat = "".join(_printable(ch) for ch in " ".join(str(text).split()))
    if sum(map(_columns, flat)) <= width:
        return flat
    budget = width - 1
    head_budget, head, tail = budget - budget * 2 // 5, [], []
    for ch in flat:
        if head_budget - _columns(ch) < 0:
            break
        head.append(ch)
        head_budget -= _columns(ch)
    tail_budget = budget - sum(map(_columns, head))
    for ch in reversed(flat[len(head):]):
        if tail_budget - _columns(ch) < 0:
            break
        tail.append(ch)
        tail_budget -= _columns(ch)
    return "".join(head).rstrip() + "…" + "".join(reversed(tail)).lstrip()


def _tip(artist: Any, gid: str, shown: str, full: str, tips: MutableMapping[str, Any]) -> None:
    """Give a text artist a tooltip with its full text when what is drawn was shortened."""
    if shown != str(full):
        artist.set_gid(gid)
        tips[gid] = str(full)


def _title(ax: Any, shown: str, full: str, tips: MutableMapping[str, Any]) -> None:
    """A title of lines no wider than :data:`TITLE_WIDTH` columns, broken at its " · "
    separators, with the full text as a tooltip when a part was shortened."""
    lines = []
    for line in shown.split("\n"):
        parts = line.split(" · ")
        current = parts[0]
        for part in parts[1:]:
            joined = f"{current} · {part}"
            if sum(map(_columns, joined)) <= TITLE_WIDTH:
                current = joined
            else:
                lines.append(current + " ·")
                current = part
        lines.append(current)
    _tip(ax.set_title("\n".join(lines)), "title", shown, full, tips)


@cache
def cjk_font() -> str | None:
    """The first installed CJK font matplotlib can use, or ``None`` (Chinese then shows as boxes)."""
    from matplotlib import font_manager

    installed = {f.name for f in font_manager.fontManager.ttflist}
    return next((name for name in CJK_FONTS if name in installed), None)


@cache
def _style() -> dict[str, Any]:
    """rcParams for every figure: paths for text, a CJK fallback, fixed ids (no dates, salt)."""
    families = ["DejaVu Sans"] + ([cjk_font()] if cjk_font() else [])
    return {"svg.fonttype": "path", "svg.hashsalt": "biasatlas", "font.family": families,
            "font.size": 9, "axes.spines.top": False, "axes.spines.right": False,
            # labels are data: "$^$" in a model or category name is text, not mathtext or TeX
            "text.parse_math": False, "text.usetex": False}


def style() -> Any:
    """A context for building *and saving* figures (fonts apply at creation, SVG options at save)."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    return matplotlib.rc_context(_style())


def new_figure(width: float, height: float) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height))
    FigureCanvasAgg(figure)  # a renderer to measure text with (see fit)
    return figure


def fit(fig: Any, pad: float = 6.0, min_width: float = 2.0, min_height: float = 0.5) -> Any:
    """Move the axes so that its labels, title and legend just fit in the figure.

    One measurement with the Agg renderer instead of a layout engine: matplotlib's
    constrained layout re-measures on every draw and tripled the time to save a figure.
    Tick labels and the legend sit at fixed offsets from the axes' edges, so their overhang
    is the margin. The title and the x-axis label are centred on the axes, so their
    overhang would change as the axes move: they count 1 px wide in the measurement and,
    when wider than the axes, slide sideways just enough to stay in the figure. Where the
    labels leave the axes less than ``min_width`` × ``min_height`` inches, or a centred
    text is wider than the figure, the figure grows instead of failing.
    """
    ax = fig.axes[0]
    renderer = fig.canvas.get_renderer()
    tight = ax.get_tightbbox(renderer, for_layout_only=True)
    centred = [(text, text.get_window_extent(renderer).width) for text in (ax.title, ax.xaxis.label)
               if text.get_visible() and text.get_text()]
    box, width, height = ax.bbox, fig.bbox.width, fig.bbox.height
    left, right = box.x0 - tight.x0 + pad, tight.x1 - box.x1 + pad
    bottom, top = box.y0 - tight.y0 + pad, tight.y1 - box.y1 + pad
    widest = max([0.0, *(w for _, w in centred)])
    width = max(width, left + right + min_width * fig.dpi, widest + 2 * pad)
    height = max(height, bottom + top + min_height * fig.dpi)
    if (width, height) != (fig.bbox.width, fig.bbox.height):
        fig.set_size_inches(width / fig.dpi, height / fig.dpi)
    fig.subplots_adjust(left=left / width, right=1 - right / width, bottom=bottom / height, top=1 - top / height)
    ax.apply_aspect()  # an equal-aspect axes (census) narrows inside its box: centre on what is drawn
    x0, x1 = ax.get_position().x0 * width, ax.get_position().x1 * width
    for text, w in centred:
        centre = min(max((x0 + x1) / 2, pad + w / 2), width - pad - w / 2)
        text.set_x((centre - x0) / (x1 - x0))
    return fig


def _legend_below(ax: Any, points: float) -> None:
    """A legend centred under the x-axis label, ``points`` below the axes (not over the data)."""
    from matplotlib.transforms import ScaledTranslation

    below = ax.transAxes + ScaledTranslation(0, -points / 72, ax.figure.dpi_scale_trans)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, 0), bbox_transform=below, ncols=3, frameon=False,
              fontsize=7)


# -- CrowS-Pairs ----------------------------------------------------------------------------
def crows_categories(run: RunView, paper: PaperScores | None = None) -> Plot:
    """Per-category metric scores as bars from 50, with 95 % intervals and the paper's values."""
    by = run.summary.get("by_category") or {}
    cats = sorted(by, key=lambda c: by[c].get("n") or 0)  # largest category at the top
    rows = [("all pairs", run.summary.get("metric_score"), (run.summary.get("intervals") or {})
             .get("metric_score"), run.summary.get("n"), paper.metric if paper else None)]
    rows = [(c, by[c].get("score"), by[c].get("ci"), by[c].get("n"),
             paper.by_category.get(c) if paper else None) for c in cats] + rows
    fig = new_figure(6.4, 0.42 * len(rows) + 1.2)
    ax = fig.add_subplot()
    y = np.arange(len(rows))
    score = np.array([np.nan if r[1] is None else r[1] for r in rows], dtype=float)
    low = np.array([_ci(r[2], 0, r[1]) for r in rows], dtype=float)
    high = np.array([_ci(r[2], 1, r[1]) for r in rows], dtype=float)
    tips = {}
    for i, (name, value, _, n, published) in enumerate(rows):
        colour = INK if name == "all pairs" else (ABOVE if (value or 50) >= 50 else BELOW)
        ax.barh(i, (value or 50) - 50, left=50, height=0.6, color=colour, alpha=0.85, gid=f"bar-{i}")
        tips[f"bar-{i}"] = (f"{name}: {_f(value)} [{_f(low[i])}, {_f(high[i])}], n = {n}"
                            + (f"; paper {published:.1f}" if published is not None else ""))
    ax.errorbar(score, y, xerr=[score - low, high - score], fmt="none", ecolor=INK, capsize=3,
                lw=1, gid="intervals")
    ax.axvline(50, color=INK, lw=1, ls="--", gid="line-50")
    if paper is not None:
        published = np.array([np.nan if r[4] is None else r[4] for r in rows], dtype=float)
        ax.scatter(published, y, marker="D", s=28, color=PAPER, edgecolor=INK, zorder=3,
                   label=f"{paper.source}: {paper.model}", gid="paper")
        _legend_below(ax, 48)
    names = [short(r[0], TICK_WIDTH) for r in rows]
    ax.set_yticks(y, [f"{name} (n={r[3]})" for name, r in zip(names, rows)])
    for i, (label, name, r) in enumerate(zip(ax.get_yticklabels(), names, rows)):
        _tip(label, f"category-{i}", name, r[0], tips)
    lo = np.nanmin(np.concatenate([low, [45.0]])) - 3
    hi = np.nanmax(np.concatenate([high, [55.0]])) + 3
    ax.set_xlim(max(0.0, lo), min(100.0, hi))
    ax.set_xlabel("% of pairs preferring the more stereotyping sentence\n(50 = no preference)")
    _title(ax, f"CrowS-Pairs by category · {short(run.label, LABEL_WIDTH)} · {short(run.dataset, DATASET_WIDTH)}",
           f"CrowS-Pairs by category · {run.label} · {run.dataset}", tips)
    return Plot(fit(fig), f"CrowS-Pairs per-category scores with 95% intervals for {run.label}", tips)


def _ci(ci: Any, side: int, value: Any) -> float:
    if isinstance(ci, (list, tuple)) and len(ci) == 2 and ci[side] is not None:
        return float(ci[side])
    return np.nan if value is None else float(value)


def _f(value: Any, digits: int = 1) -> str:
    return "–" if value is None or (isinstance(value, float) and np.isnan(value)) else f"{value:.{digits}f}"


# -- Census -----------------------------------------------------------------------------------
def census_scatter(run: RunView, n_labels: int = 8) -> Plot:
    """Census share of women vs the model's share, per occupation, 45/55 bands shaded."""
    items = [r for r in run.records if r.get("model_female_pct") is not None]
    fig = new_figure(6.0, 5.6)
    ax = fig.add_subplot()
    for span in (ax.axvspan, ax.axhspan):
        span(45, 55, color=NEUTRAL, alpha=0.18, lw=0, gid="band")
    ax.plot([0, 100], [0, 100], color=INK, lw=0.8, ls=":", gid="diagonal")
    tips: dict[str, Any] = {}
    for cls, colour in CLASS_COLOURS.items():
        group = [r for r in items if r["census_class"] == cls]
        if not group:
            continue
        ax.scatter([r["census_female_pct"] for r in group], [r["model_female_pct"] for r in group],
                   s=16, color=colour, alpha=0.8, edgecolor="white", linewidth=0.4,
                   label=f"census {cls} ({len(group)})", gid=f"points-{cls}")
        tips[f"points-{cls}"] = [_occupation_tip(r) for r in group]
    for i, r in enumerate(_most_off(items, n_labels)):
        name = short(r["occupation"], NOTE_WIDTH)
        note = ax.annotate(name, (r["census_female_pct"], r["model_female_pct"]), fontsize=7,
                           xytext=(4, 3), textcoords="offset points", color=INK)
        _tip(note, f"occupation-{i}", name, r["occupation"], tips)
    ax.set(xlim=(0, 100), ylim=(0, 100), xlabel="census: % women in the occupation",
           ylabel="model: female share p(O) (%)", aspect="equal")
    _title(ax, f"Census vs model · {short(run.label, LABEL_WIDTH)} · {short(run.dataset, DATASET_WIDTH)}",
           f"Census vs model · {run.label} · {run.dataset}", tips)
    _legend_below(ax, 34)
    return Plot(fit(fig), f"Census share of women vs model share per occupation for {run.label}", tips)


def _occupation_tip(r: Mapping[str, Any]) -> str:
    return (f"{r['occupation']}: census {r['census_female_pct']:.1f}% ({r['census_class']}), "
            f"model {r['model_female_pct']:.1f}% ({r['model_class']})")


def _most_off(items: Sequence[Mapping[str, Any]], n: int, spacing: float = 10.0) -> list[Mapping[str, Any]]:
    """The occupations farthest from the diagonal, worth a printed label; greedy, skipping
    any point within ``spacing`` points (both axes) of one already labelled, so labels do
    not pile up on one cluster."""
    chosen: list[Mapping[str, Any]] = []
    for r in sorted(items, key=lambda r: -abs(r["model_female_pct"] - r["census_female_pct"])):
        if len(chosen) == n:
            break
        if all(abs(r["census_female_pct"] - c["census_female_pct"]) > spacing
               or abs(r["model_female_pct"] - c["model_female_pct"]) > spacing for c in chosen):
            chosen.append(r)
    return chosen


# -- zh-neutral -------------------------------------------------------------------------------
def zh_histogram(run: RunView, z: ZhOverview) -> Plot:
    """Histogram of b with the ±0.3 thresholds; bins coloured by the leaning they fall in."""
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
    head = "b = log P(m|s)/P(f|s) · {} · mean |b| = " + f"{_f(z.bias_score, 4)}\n{counts_text}"
    _title(ax, head.format(short(run.label, LABEL_WIDTH)), head.format(run.label), tips)
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
        _tip(label, f"pair-{i}", name, p.pair, tips)
    ax.set_xlim(0, 100)
    ax.set_xlabel("% of the pair's sentences")
    _title(ax, f"Leaning per keyword pair · {short(run.label, LABEL_WIDTH)}",
           f"Leaning per keyword pair · {run.label}", tips)
    _legend_below(ax, 34)
    _gid_bars(ax, pairs)
    fit(fig)
    return Plot(fig, f"Leaning shares per keyword pair for {run.label}", tips)


def _gid_bars(ax: Any, pairs: Sequence[Any]) -> None:
    """Name each stacked segment ``<leaning>-<row>`` so its tooltip can find it."""
    for container, leaning in zip(ax.containers, LEANINGS):
        for i, patch in enumerate(container.patches):
            patch.set_gid(f"{leaning}-{i}")
