"""The figures on small fixed runs: each is drawn and holds the elements it promises."""

from __future__ import annotations

import re
import warnings
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from matplotlib.collections import PathCollection
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle

from biasatlas.benchmarks.census.view import census_scatter
from biasatlas.benchmarks.crows_pairs.paper import paper_entry
from biasatlas.benchmarks.crows_pairs.view import ABOVE, BELOW, crows_categories
from biasatlas.benchmarks.zh_neutral.overview import zh_overview
from biasatlas.benchmarks.zh_neutral.view import zh_histogram, zh_pairs
from biasatlas.display.style import FEMALE, MALE, NEUTRAL, cjk_font, style
from biasatlas.display.svg import SVG_NS, to_svg
from biasatlas.report import load_run
from report_fixtures import CENSUS, CROWS_CATS, ZH_B, census_run, crows_run, zh_run


def _vlines(ax) -> list[float]:
    return sorted(float(line.get_xdata()[0]) for line in ax.get_lines()
                  if isinstance(line, Line2D) and len(set(line.get_xdata())) == 1)


def _hex(colour) -> str:
    from matplotlib.colors import to_hex

    return to_hex(colour)


@pytest.fixture()
def crows(tmp_path):
    return load_run(crows_run(tmp_path / "crows"))


def test_crows_bars_start_at_50_with_intervals_and_the_paper_beside(crows):
    paper = paper_entry(crows)  # drawn as given: whether to give it is the comparability check's job
    assert paper is not None and paper.model == "CamemBERT"
    with style():
        plot = crows_categories(crows, paper)
    ax = plot.figure.axes[0]
    bars = [p for p in ax.patches if isinstance(p, Rectangle)]
    assert len(bars) == 4  # gender, race-color, religion, all pairs
    assert all(b.get_x() == pytest.approx(50) for b in bars)
    # each category is 4 pairs: gender 3 wins (75), race-color 2 (50), religion 1 (25): bar width = score − 50
    widths = sorted(round(b.get_width(), 6) for b in bars)
    assert widths == [-25.0, 0.0, 0.0, 25.0]
    assert 50.0 in _vlines(ax)  # the no-preference line
    assert [_hex(b.get_facecolor()) for b in bars if b.get_width() > 0] == [ABOVE.lower()]
    assert [_hex(b.get_facecolor()) for b in bars if b.get_width() < 0] == [BELOW.lower()]
    diamonds = [c for c in ax.collections if c.get_gid() == "paper"]
    # Névéol et al. 2022, CamemBERT: religion 69.6, race-color 58.6, gender 54.8, all 59.3 (bottom to top)
    assert sorted(diamonds[0].get_offsets()[:, 0].tolist()) == pytest.approx([54.8, 58.6, 59.3, 69.6])
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[-1] == "all pairs (n=12)" and "gender (n=4)" in labels


def test_crows_without_a_published_setting_has_no_paper_marks(tmp_path):
    run = load_run(crows_run(tmp_path / "x", model="my-local-model"))
    assert paper_entry(run) is None
    with style():
        ax = crows_categories(run, None).figure.axes[0]
    assert not [c for c in ax.collections if c.get_gid() == "paper"]


def test_census_scatter_points_bands_and_labels(tmp_path):
    run = load_run(census_run(tmp_path / "census"))
    with style():
        plot = census_scatter(run, n_labels=3)
    ax = plot.figure.axes[0]
    points = {c.get_gid(): c for c in ax.collections if isinstance(c, PathCollection)}
    assert set(points) == {"points-female", "points-male", "points-balanced"}
    female = points["points-female"].get_offsets()
    assert sorted(map(tuple, np.asarray(female))) == [(75.0, 50.0), (80.0, 30.0), (89.0, 70.0)]
    assert _hex(points["points-male"].get_facecolor()[0]) == MALE.lower()
    assert _hex(points["points-female"].get_facecolor()[0]) == FEMALE.lower()
    # the 45–55 bands, once on each axis
    bands = [p for p in ax.patches if p.get_gid() == "band"]
    assert len(bands) == 2
    # axvspan spans x in data units (y in axes units), axhspan the other way round
    spans = sorted((b.get_x(), b.get_width(), b.get_y(), b.get_height()) for b in bands)
    assert spans == [(0.0, 1.0, 45.0, 10.0), (45.0, 10.0, 0.0, 1.0)]
    # labels, farthest from the diagonal first: Frisør |30 − 80| = 50, Sjåfør 45, Tømrer 43.5,
    # Snekker 41.9. Tømrer (1.5, 45) lies within 10 points of Sjåfør (10, 55) on both axes
    # (8.5 and 10), so the spacing rule skips it; Snekker (3, 44.9) is 10.1 below Sjåfør.
    texts = [t.get_text() for t in ax.texts]
    assert texts == ["Frisør", "Sjåfør", "Snekker"]
    # one tooltip per point, in the collection's order
    assert len(plot.tooltips["points-male"]) == 4
    assert plot.tooltips["points-balanced"][0].startswith("Advokat: census 48.1% (balanced)")


def test_zh_histogram_counts_thresholds_and_colours(tmp_path):
    run = load_run(zh_run(tmp_path / "zh"))
    z = zh_overview(run)
    with style():
        plot = zh_histogram(run, z)
    ax = plot.figure.axes[0]
    bars = [p for p in ax.patches if isinstance(p, Rectangle) and p.get_gid() and p.get_gid().startswith("bin-")]
    assert sum(b.get_height() for b in bars) == len(ZH_B)
    assert _vlines(ax) == pytest.approx([-0.3, 0.3])
    for b in bars:
        mid = b.get_x() + b.get_width() / 2
        expected = MALE if mid > 0.3 else FEMALE if mid < -0.3 else NEUTRAL
        assert _hex(b.get_facecolor()) == expected.lower()
    assert "female 4" in ax.get_title() and "male 5" in ax.get_title() and "0.8100" in ax.get_title()
    assert "bert-base-chinese" in ax.get_title()


def test_zh_pair_bars_sum_to_100_and_label_chinese_pairs(tmp_path):
    run = load_run(zh_run(tmp_path / "zh"))
    with style():
        plot = zh_pairs(run, zh_overview(run))
    ax = plot.figure.axes[0]
    rows: dict[float, float] = {}
    for patch in ax.patches:
        rows[round(patch.get_y(), 6)] = rows.get(round(patch.get_y(), 6), 0.0) + patch.get_width()
    assert len(rows) == 3 and all(v == pytest.approx(100.0) for v in rows.values())
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert any(label.startswith("他/她 (n=6") for label in labels)
    # 男/女: 1 male, 2 female of 3; the hover text reaches the SVG segment it describes
    with style():
        root = ET.fromstring(to_svg(plot, "p"))
    titles = {t.text for t in root.iter(f"{{{SVG_NS}}}title")}
    assert {"男/女: 2 of 3 lean female", "男/女: 1 of 3 lean male", "他/她: 3 of 6 lean male"} <= titles


@pytest.mark.skipif(cjk_font() is None, reason="no CJK font installed (scripts/ci-browser-deps.sh)")
def test_chinese_labels_draw_with_a_cjk_font(tmp_path):
    run = load_run(zh_run(tmp_path / "zh"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # matplotlib warns "Glyph … missing from font(s)"
        with style():
            to_svg(zh_pairs(run, zh_overview(run)), "t")


def test_svg_ids_are_prefixed_and_tooltips_attached(tmp_path):
    run = load_run(census_run(tmp_path / "census"))
    with style():
        svg = to_svg(census_scatter(run), "fig7")
    root = ET.fromstring(svg)
    ids = [e.get("id") for e in root.iter() if e.get("id")]
    assert ids and all(i.startswith("fig7-") for i in ids)
    refs = re.findall(r'(?:href="#|url\(#)([^")]+)', svg)
    assert refs and all(r.startswith("fig7-") for r in refs)
    titles = [t.text for t in root.iter(f"{{{SVG_NS}}}title")]
    occupations = [o for o, _, _ in CENSUS]
    for occupation in occupations:
        assert any(t and t.startswith(f"{occupation}:") for t in titles), occupation
    assert titles[0].startswith("Census share of women")  # the figure's own accessible title


# -- every plot at the extremes: 0 %, 100 %, all equal, a single item ----------------------------------
@pytest.mark.parametrize(("outcomes", "width"), [(["less"] * 12, -50.0), (["more"] * 12, 50.0),
                                                 (["tie"] * 12, -50.0), (["more"], 50.0), (["less"], -50.0)])
def test_crows_bars_at_the_extremes(tmp_path, outcomes, width):
    # Every pair preferring the less stereotyping sentence (ties count as not preferring the
    # more stereotyping one) scores 0.0: a bar from 50 down to 0, never a missing bar. At 100 %
    # the Wilson bound must still contain the score, or the error bars refuse the interval.
    run = load_run(crows_run(tmp_path / "crows", outcomes=outcomes))
    with style():
        plot = crows_categories(run)
    ax = plot.figure.axes[0]
    bars = [p for p in ax.patches if isinstance(p, Rectangle)]
    n_categories = len(set(CROWS_CATS[:len(outcomes)]))
    assert len(bars) == n_categories + 1  # each category, then all pairs
    assert [b.get_width() for b in bars] == pytest.approx([width] * len(bars))
    low, high = ax.get_xlim()
    assert low <= min(50.0, 50.0 + width) and high >= max(50.0, 50.0 + width)


@pytest.mark.parametrize("shares", [[0.0] * 10, [100.0] * 10, [50.0] * 10, [70.0]])
def test_census_scatter_at_the_extremes(tmp_path, shares):
    run = load_run(census_run(tmp_path / "census", shares=shares))
    with style():
        plot = census_scatter(run)
    ax = plot.figure.axes[0]
    points = np.concatenate([c.get_offsets() for c in ax.collections if isinstance(c, PathCollection)])
    assert len(points) >= len(shares)
    low, high = ax.get_ylim()
    assert low <= min(shares) and high >= max(shares)  # every model share is inside the plot


@pytest.mark.parametrize("bs", [[0.0] * 12, [5.0] * 12, [0.31]])
def test_zh_plots_at_the_extremes(tmp_path, bs):
    run = load_run(zh_run(tmp_path / "zh", bs=bs))
    z = zh_overview(run)
    with style():
        histogram, pairs = zh_histogram(run, z), zh_pairs(run, z)
    bins = [p for p in histogram.figure.axes[0].patches if isinstance(p, Rectangle) and p.get_height() > 0]
    assert sum(b.get_height() for b in bins) == len(bs)  # every sentence lands in a bin
    low, high = histogram.figure.axes[0].get_xlim()
    assert low <= min(bs) and high >= max(bs)
    assert pairs.figure.axes
