"""End to end in a real browser: ``biasatlas report`` over runs of all three benchmarks,
opened in headless Chromium (Debian's ``/usr/bin/chromium``, driven by Playwright).

The page must load with no console error and no request beyond the file itself, show
every plot, show dataset markup as text and never run it, and print to PDF. Layout, as
the browser draws it: every text of every figure lies inside its SVG (titles are not cut
off), and the census point labels lie inside the plot area without overlapping. The
page and each figure are saved as screenshots (to ``$BIASATLAS_SCREENSHOTS`` when set, to
look at; else to the test's temporary folder).
``scripts/ci-browser-deps.sh`` installs Chromium, a CJK font and Playwright; without them
the test fails (the README's test command installs them); ``BIASATLAS_SKIP_BROWSER=1``
turns that into a skip for a machine where they cannot be installed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from report_fixtures import XSS, XSS_IMG, real_run, write_crows_tsv, zh_run
from shared_data import shared_data_dir

CHROMIUM = os.environ.get("BIASATLAS_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"


def _browser_or_skip():
    required = os.environ.get("BIASATLAS_SKIP_BROWSER") != "1"
    missing = []
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing.append("the playwright package")
        sync_playwright = None
    if not Path(CHROMIUM).is_file():
        missing.append(f"chromium at {CHROMIUM}")
    if missing:
        message = f"browser test needs {' and '.join(missing)}: run scripts/ci-browser-deps.sh"
        if required:
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return sync_playwright


@pytest.fixture(scope="module")
def page_path(tmp_path_factory) -> tuple[Path, int]:
    """Real crows-pairs and census runs (fake scorer, no torch), a zh-neutral run, one report."""
    from biasatlas.benchmarks.census import Census
    from biasatlas.benchmarks.crows_pairs import CrowsPairs

    from biasatlas.benchmarks.bbq import BBQ

    root = tmp_path_factory.mktemp("e2e")
    data = write_crows_tsv(root / "pairs.tsv")
    runs = [real_run(CrowsPairs(dataset=None, data=data), root / "crows-a"),
            real_run(CrowsPairs(dataset=None, data=data), root / "crows-b", boost=("femmes",), bias=3.0),
            real_run(Census(country="no", limit=60, n_resamples=100), root / "census"),
            # BBQ's thirteen columns, its degenerate sets and its headline table with long "reading" cells
            real_run(BBQ(dataset="en", sample=40, n_resamples=50, data=shared_data_dir() / "bbq"), root / "bbq"),
            *_zh_runs(root)]
    out = root / "report.html"
    done = subprocess.run([sys.executable, "-m", "biasatlas", "report", *map(str, runs), "--out", str(out),
                           "--n-resamples", "200"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    # crows ×2, census scatter, BBQ's categories, zh histogram + pair bars each; the leaderboard's
    # figure across models of each benchmark with two runs (CrowS-Pairs, and zh-neutral when both ran)
    n_zh = len(runs) - 4
    n_figures = 2 + 1 + 1 + 2 * n_zh + 1 + (n_zh >= 2)
    return out, n_figures


def _zh_runs(root: Path) -> list[Path]:
    """The fixed zh fixture (its sentence carries markup), and a real zh-neutral run when
    that benchmark is installed."""
    runs = [zh_run(root / "zh")]
    try:
        from biasatlas.benchmarks.zh_neutral import ZhNeutral
    except ImportError:
        return runs
    return runs + [real_run(ZhNeutral(limit=30, topics_k=5), root / "zh-real")]


#: Per figure, in the browser: texts outside the SVG's box, census labels outside the plot area,
#: and pairs of census labels that overlap (ids of the SVG groups matplotlib writes).
LAYOUT_JS = """() => Array.from(document.querySelectorAll('svg.figure')).map(svg => {
  const inside = (r, box) => r.left >= box.left - 0.5 && r.right <= box.right + 0.5
                              && r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5;
  const box = svg.getBoundingClientRect();
  const texts = Array.from(svg.querySelectorAll('g[id*="text_"], g[id$="-title"], g[id*="-occupation-"]'))
                     .filter(g => g.getBoundingClientRect().width > 0);
  const area = svg.querySelector('g[id$="-plot-area"]');
  const labels = Array.from(svg.querySelectorAll('g[id*="-occupation-"]')).map(g => g.getBoundingClientRect());
  const overlaps = [];
  labels.forEach((a, i) => labels.slice(i + 1).forEach(b => {
    if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) overlaps.push([i]);
  }));
  return {id: svg.querySelector('g').id, texts: texts.length,
          outside: texts.filter(g => !inside(g.getBoundingClientRect(), box)).map(g => g.id),
          labels: labels.length, overlaps: overlaps.length,
          labelsOutside: area ? labels.filter(r => !inside(r, area.getBoundingClientRect())).length : 0};
})"""


def _screenshots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("BIASATLAS_SCREENSHOTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.mark.slow
def test_report_page_in_headless_chromium(page_path, tmp_path):
    sync_playwright = _browser_or_skip()
    path, n_figures = page_path
    url = path.as_uri()
    shots = _screenshots(tmp_path)
    requests, errors, dialogs = [], [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.on("request", lambda r: requests.append(r.url))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.goto(url, wait_until="load")
            page.wait_for_timeout(200)
            figures = page.locator("svg.figure")
            count = figures.count()
            boxes = []
            for i in range(count):
                figures.nth(i).scroll_into_view_if_needed()
                assert figures.nth(i).is_visible()
                boxes.append(figures.nth(i).bounding_box())
                figures.nth(i).screenshot(path=str(shots / f"figure-{i}.png"))
            page.screenshot(path=str(shots / "page.png"), full_page=True)
            layout = page.evaluate(LAYOUT_JS)
            text = page.inner_text("body")
            scripts = page.evaluate("document.scripts.length")
            tooltips = page.locator("svg.figure title").count()
            page.pdf(path=str(tmp_path / "report.pdf"))
        finally:
            browser.close()
    assert requests == [url], requests  # the page itself, nothing else
    assert errors == [] and dialogs == [] and scripts == 0
    assert count == n_figures
    assert all(b and b["width"] > 300 and b["height"] > 150 for b in boxes), boxes
    assert XSS in text and XSS_IMG in text  # the sentences shown as text …
    assert "他/她" in text and "Øyvind" in text and "l'informatique" in text
    assert tooltips > 25  # … and every census point, bar and bin has hover text
    assert (tmp_path / "report.pdf").stat().st_size > 10_000  # it prints
    assert all(f["texts"] > 5 and f["outside"] == [] for f in layout), layout  # no text cut off
    census = [f for f in layout if f["labels"]]
    assert len(census) == 1 and census[0]["labelsOutside"] == 0 and census[0]["overlaps"] == 0, layout
    assert "Cite" in text and "@inproceedings{touileb-etal-2023-measuring," in text
    assert "@inproceedings{nangia-etal-2020-crows," in text and "@inproceedings{zhao-etal-2021-zhong," in text


@pytest.mark.slow
def test_markup_in_a_zh_sentence_stays_text(tmp_path):
    sync_playwright = _browser_or_skip()
    folder = zh_run(tmp_path / "zh")
    out = tmp_path / "zh.html"
    done = subprocess.run([sys.executable, "-m", "biasatlas", "report", str(folder), "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    requests, dialogs = [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page()
            page.on("request", lambda r: requests.append(r.url))
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.goto(out.as_uri(), wait_until="load")
            text = page.inner_text("body")
            images = page.evaluate("document.images.length")
        finally:
            browser.close()
    assert XSS_IMG in text and images == 0 and dialogs == [] and requests == [out.as_uri()]


#: What overflows at a width: the page, any element's right edge past the viewport (outside a figure's
#: own drawing), a table wider than its box, a word of a cell broken inside ("degenerate" over
#: two lines), and each headline table's cells that are not visible on the page.
FIT_JS = """() => {
  const vw = document.documentElement.clientWidth;
  const over = Array.from(document.querySelectorAll('body *')).filter(e => !e.closest('svg'))
    .filter(e => e.getBoundingClientRect().right > vw + 0.5).map(e => e.tagName + ' ' + e.textContent.slice(0, 40));
  const wide = Array.from(document.querySelectorAll('.table-wrap'))
    .filter(w => w.scrollWidth > w.clientWidth + 0.5).map(w => w.getAttribute('aria-label'));
  const split = word => Array.from(document.querySelectorAll('td')).filter(c => c.textContent.includes(word))
    .filter(c => {
      const node = Array.from(c.childNodes).find(n => n.nodeType === 3 && n.textContent.includes(word));
      const range = document.createRange();
      const at = node.textContent.indexOf(word);
      range.setStart(node, at); range.setEnd(node, at + word.length);
      return new Set(Array.from(range.getClientRects()).map(r => Math.round(r.top))).size > 1;
    }).length;
  const heads = Array.from(document.querySelectorAll('.table-wrap'))
    .filter(w => w.getAttribute('aria-label') === 'Headline numbers and their controls');
  const hidden = heads.flatMap(w => Array.from(w.querySelectorAll('td'))).filter(c => {
    const r = c.getBoundingClientRect();
    return !(r.width > 0 && r.height > 0 && r.height < 200 && r.left >= -0.5 && r.right <= vw + 0.5);
  }).map(c => c.textContent.slice(0, 40));
  return {vw, page: document.documentElement.scrollWidth, over, wide, degenerate: split('degenerate'),
          degenerates: Array.from(document.querySelectorAll('td'))
            .filter(c => c.textContent.includes('degenerate')).length,
          heads: heads.length, cells: heads.flatMap(w => Array.from(w.querySelectorAll('td'))).length, hidden};
}"""


def _fit(page_file: Path, width: int, shot: Path) -> dict:
    sync_playwright = _browser_or_skip()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": width, "height": 900})
            page.goto(page_file.as_uri(), wait_until="load")
            fit = page.evaluate(FIT_JS)
            page.screenshot(path=str(shot), full_page=True)
            heads = page.locator('.table-wrap[aria-label="Headline numbers and their controls"]')
            for i, wrap in enumerate(heads.all()):
                wrap.scroll_into_view_if_needed()
                page.screenshot(path=str(shot.with_name(f"{shot.stem}-headlines-{i}.png")))
        finally:
            browser.close()
    return fit


@pytest.mark.slow
@pytest.mark.parametrize("width", [1280, 390])
def test_report_page_fits_the_screen_with_every_headline_cell_visible(page_path, tmp_path, width):
    # 1280 px: the BBQ table and the CrowS-Pairs leaderboard were 1,335 px in a 1,152-px page (last
    # columns cut), and "degenerate" broke inside the word; 390 px: the headline table's rows were
    # ~350 px tall with nothing visible. Now each table fits its box at 1280 px, and on a phone each
    # row is a card of "column: value" lines
    path, _ = page_path
    fit = _fit(path, width, _screenshots(tmp_path) / f"page-{width}.png")
    assert fit["page"] <= width and fit["over"] == [], fit["over"][:5]
    assert fit["wide"] == [], fit["wide"]
    assert fit["degenerates"] > 0 and fit["degenerate"] == 0
    assert fit["heads"] >= 4 and fit["cells"] > 40 and fit["hidden"] == [], fit["hidden"][:5]


NARROW_JS = """() => ({
  page: document.documentElement.scrollWidth,
  wraps: Array.from(document.querySelectorAll('.table-wrap')).map(w => w.getBoundingClientRect().right),
  scrolls: Array.from(document.querySelectorAll('.table-wrap')).filter(w => w.scrollWidth > w.clientWidth).length
})"""


@pytest.mark.slow
def test_report_page_at_390_px_keeps_its_tables_on_the_page(page_path, tmp_path):
    # a phone's width: the page stays 390 px wide (it was 1,063), and no table needs to scroll:
    # each row is a card (a table's caption, short, stays on one line)
    sync_playwright = _browser_or_skip()
    path, _ = page_path
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 390, "height": 844})
            page.goto(path.as_uri(), wait_until="load")
            narrow = page.evaluate(NARROW_JS)
            page.screenshot(path=str(_screenshots(tmp_path) / "page-390.png"), full_page=True)
        finally:
            browser.close()
    assert narrow["page"] <= 390, narrow["page"]
    assert narrow["wraps"] and max(narrow["wraps"]) <= 390
    assert narrow["scrolls"] == 0  # the leaderboards are cards on a phone: nothing to scroll
