"""How the report's figures look: fonts, colours, label fitting, one matplotlib context.

Figures are built with :class:`matplotlib.figure.Figure` directly (no pyplot state, the
Agg canvas), so rendering many runs leaks nothing and needs no display. Colours are the
Okabe–Ito palette, readable with colour-vision deficiencies and in greyscale print.

Labels come from run folders (model names, categories, occupations, keyword pairs), so
text is never parsed as mathtext (``$^$`` is drawn as written) and a label longer than
its slot is cut in the middle with "…" (:func:`short`) and shown whole in a tooltip
(:func:`tip`); if labels still do not fit, :func:`fit` widens the figure instead of failing.
Each benchmark draws its own figures with these (``view.py`` in its folder).
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import MutableMapping
from functools import cache
from typing import Any

#: Okabe–Ito colours for the two gender sides, the neutral middle and the ink of lines and text.
FEMALE, MALE, NEUTRAL, INK = "#CC79A7", "#0072B2", "#999999", "#222222"
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


def tip(artist: Any, gid: str, shown: str, full: str, tips: MutableMapping[str, Any]) -> None:
    """Give a text artist a tooltip with its full text when what is drawn was shortened."""
    if shown != str(full):
        artist.set_gid(gid)
        tips[gid] = str(full)


def title(ax: Any, shown: str, full: str, tips: MutableMapping[str, Any]) -> None:
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
    tip(ax.set_title("\n".join(lines)), "title", shown, full, tips)


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
    params: Any = _style()  # matplotlib types rc_context with a Literal of every key
    return matplotlib.rc_context(params)


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


def legend_below(ax: Any, points: float) -> None:
    """A legend centred under the x-axis label, ``points`` below the axes (not over the data)."""
    from matplotlib.transforms import ScaledTranslation

    below = ax.transAxes + ScaledTranslation(0, -points / 72, ax.figure.dpi_scale_trans)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, 0), bbox_transform=below, ncols=3, frameon=False,
              fontsize=7)


def number_text(value: Any, digits: int = 1) -> str:
    """A number with ``digits`` decimals for titles and tooltips; "–" when missing."""
    return "–" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"
