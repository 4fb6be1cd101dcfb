"""Layout faults of the report and the terminal tables, each pinned by a test.

- A collapsed interval (low = high) reads "no spread", never "[0.0, 0.0]", and the table
  that shows one explains it in its caption.
- Terminal tables (the report's own tables, ``biasatlas run``'s output) fit 80 columns
  without wrapping a cell (an interval cut into "[8.3," and "58.3]" misreads); a table
  that cannot fit is stacked, one row per block.
- Census point labels sit inside the plot area and never overlap one another; a label
  with no free place is left out (its point keeps its tooltip).
- Every text of every figure (titles above all) lies inside the figure.
- One spelling per label: "ties" and "anti-stereo" for CrowS-Pairs, "balanced" for the
  census class, in the terminal, the report and the CSV labels.
"""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from rich.console import Console

from biasatlas.display.tables import CI, NO_SPREAD, NO_SPREAD_NOTE, Table, to_markdown, to_rich
from biasatlas.report import build_report, load_run, load_runs, render
from biasatlas.report.sections import run_tables, run_terminal
from report_fixtures import CENSUS, census_run, crows_run, zh_run

CATEGORIES = ("race-color", "gender", "socioeconomic", "nationality", "religion", "age", "sexual-orientation",
              "physical-appearance", "disability", "autre")


def _terminal(renderable, width: int = 80) -> str:
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


# -- collapsed intervals ----------------------------------------------------------------------------
def test_a_collapsed_interval_says_no_spread_and_the_caption_explains():
    assert str(CI(0.0, 0.0)) == NO_SPREAD and str(CI(12.5, 12.5, digits=2)) == NO_SPREAD
    assert str(CI(0.0, 0.04)) == "[0.0, 0.0]"  # a real (if tiny) spread still prints as an interval
    assert str(CI(None, None)) == "–"
    table = Table("t", ("model", "score", "95% CI"), (("m", 0.0, CI(0.0, 0.0)),), "Bootstrap.")
    assert table.caption == f"Bootstrap. {NO_SPREAD_NOTE}"
    assert "| m | 0.00 | no spread |" in to_markdown(table)
    plain = Table("t", ("model", "95% CI"), (("m", CI(1.0, 2.0)),), "Bootstrap.")
    assert plain.caption == "Bootstrap."


def test_census_run_with_a_collapsed_bootstrap_reads_no_spread_everywhere(tmp_path):
    """No occupation balanced under any resample: the normative interval is [0, 0]."""
    folder = census_run(tmp_path / "c", scores={"normative": 0.0, "descriptive": 40.0,
                                                 "descriptive_by_class": {"female": 10.0, "male": 30.0,
                                                                          "balanced": 0.0}})
    summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    summary["intervals"]["normative"] = [0.0, 0.0]
    (folder / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    run = load_run(folder)
    md = render(build_report([run]), "md")
    assert "[0.0, 0.0]" not in md and "| 95% CI | no spread | \\[10.0, 70.0] |" in md
    assert NO_SPREAD_NOTE in md
    text = _terminal(run_terminal(run))
    assert "[0.0, 0.0]" not in text and "no spread" in text


@pytest.mark.slow  # about a second: the full suite runs it, the fast loop does not
def test_paired_bootstrap_of_identical_runs_has_no_spread(tmp_path):
    from biasatlas.report import compare_runs
    from biasatlas.report.compare import comparison_table

    a, b = load_runs([census_run(tmp_path / "a"), census_run(tmp_path / "b", model="other")])
    tests = compare_runs(a, b, n_resamples=50).tests
    assert tests and all(t.ci_low == t.ci_high == 0.0 for t in tests)
    assert all(str(row[6]) == "no spread" for row in comparison_table(compare_runs(a, b, n_resamples=50)).rows)


# -- terminal tables at 80 columns --------------------------------------------------------------------
WIDE_MODEL = "organisation/a-rather-long-model-name-7b"


@pytest.mark.parametrize("make", [crows_run, census_run, zh_run], ids=["crows-pairs", "census", "zh-neutral"])
def test_terminal_tables_fit_80_columns_without_wrapping_a_cell(tmp_path, make):
    run = load_run(make(tmp_path / "run", model=WIDE_MODEL))
    tables = run_tables(run)
    text = _terminal(run_terminal(run))
    lines = text.splitlines()
    assert all(len(line) <= 80 for line in lines), max(lines, key=len)
    cells = {cell for table in tables for row in table.text_rows() for cell in row if cell}
    assert "[" in "".join(cells)  # intervals among them: the cells an 80-column wrap used to cut
    for cell in cells:  # every cell whole, on one line (in its table, or its row's block when stacked)
        assert any(cell in line for line in lines), (cell, text)
    for table in tables:
        assert table.title in text


def test_a_one_row_table_too_wide_for_the_terminal_is_turned_on_its_side_never_wrapped():
    columns = ("model", "dataset", "n", "metric", "95% CI", "likelihood difference", "95% CI", "stereo",
               "anti-stereo", "ties", "limit", "lowercase")
    rows = (("almanach/camembert-base (nangia)", "fr+210", 1677, 60.05, CI(57.68, 62.37), 1.2345,
             CI(1.1, 1.3, digits=2), 61.11, 48.33, 17, None, True),)
    table = Table("CrowS-Pairs leaderboard", columns, rows, "Sorted by metric score.")
    wide = _terminal(to_rich(table), width=400)
    assert max(len(line) for line in wide.splitlines()) > 80  # it does not fit …
    text = _terminal(to_rich(table, width=80))
    assert all(len(line) <= 80 for line in text.splitlines())
    lines = text.splitlines()
    # … so each column becomes a line (name, then the run's cell), under the run's name
    assert "almanach/camembert-base" in text and "model: " not in text
    for name, cell in (("95% CI", "[57.7, 62.4]"), ("95% CI", "[1.10, 1.30]"), ("anti-stereo", "48.33")):
        assert any(name in line and cell in line for line in lines), (name, cell, text)
    assert to_rich(table, width=80).row_count == len(columns) - 1
    assert to_rich(table, width=400).row_count == 1  # wide enough: the table itself


# -- census labels -------------------------------------------------------------------------------------
def _crowded_census(tmp_path):
    """Twelve occupations with long names: nine in a row along the top (11 points apart, so the
    spacing rule keeps them all, but their labels are three times as wide), three at the right
    edge (census 97–99 %), where a label to the right would leave the plot."""
    names = [f"{stem}medarbeider" for stem in ("Regnskaps", "Kundeservice", "Produksjons", "Lager", "Butikk",
                                                 "Renholds", "Administrasjons", "Sikkerhets", "Helse", "Miljø",
                                                 "Transport", "Anleggs")]
    census = [1.0 + 11 * i for i in range(9)] + [97.0, 98.0, 99.0]
    model = [96.0 - (i % 2) for i in range(9)] + [5.0, 17.0, 29.0]
    records = [{"id": n.lower(), "occupation": n, "census_female_pct": c, "model_female_pct": m,
                "census_class": "female" if c > 55 else "male", "model_class": "female" if m > 55 else "male"}
               for n, c, m in zip(names, census, model)]
    folder = census_run(tmp_path / "crowded")
    (folder / "items.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return load_run(folder)


def _boxes(plot):
    plot.figure.canvas.draw()  # measured as saved
    renderer = plot.figure.canvas.get_renderer()
    ax = plot.figure.axes[0]
    labels = [t for t in ax.texts if (t.get_gid() or "").startswith("occupation-")]
    return ax.patch.get_window_extent(renderer), [t.get_window_extent(renderer) for t in labels], labels


def test_census_labels_stay_inside_the_plot_and_never_overlap(tmp_path):
    from biasatlas.benchmarks.census.view import census_scatter
    from biasatlas.display.style import style

    run = _crowded_census(tmp_path)
    with style():
        plot = census_scatter(run, n_labels=8)
        area, boxes, labels = _boxes(plot)
    assert 3 <= len(labels) < 12, [t.get_text() for t in labels]  # some fit, not all: the rest are dropped
    for box in boxes:
        assert area.x0 <= box.x0 and box.x1 <= area.x1 and area.y0 <= box.y0 and box.y1 <= area.y1, (box, area)
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert not a.overlaps(b), (a, b)
    # the points nearest x = 100 (census 97–99 %) got labels too: placed to their left, inside
    assert any(t.xy[0] > 95 and t.get_horizontalalignment() == "right" for t in labels)
    # every point keeps its tooltip, labelled or not
    assert sum(len(v) for k, v in plot.tooltips.items() if k.startswith("points-")) == 12


def test_census_labels_on_the_fixture_are_the_most_off_and_inside(tmp_path):
    from biasatlas.benchmarks.census.view import census_scatter
    from biasatlas.display.style import style

    with style():
        plot = census_scatter(load_run(census_run(tmp_path / "c")), n_labels=8)
        area, boxes, labels = _boxes(plot)
    # ranked by |model − census|: Frisør 50, Sjåfør 45, Snekker 41.9 (Tømrer, 43.5, lies within 10 points of
    # Sjåfør on both axes: skipped), Barnehagelærer 25, Sykepleier 19, Lege 12, Økonom 10.1, Elektriker 7.5
    texts = [t.get_text() for t in labels]
    assert texts == ["Frisør", "Sjåfør", "Snekker", "Barnehagelærer", "Sykepleier", "Lege", "Økonom", "Elektriker"]
    assert all(area.x0 <= b.x0 and b.x1 <= area.x1 and area.y0 <= b.y0 and b.y1 <= area.y1 for b in boxes)
    assert {o for o, _, _ in CENSUS} >= set(texts)


# -- titles and every other text inside the figure ----------------------------------------------------------
LONG = "organisation-with-a-long-name/camembert-base-finetuned-on-something-else-step-100000"


@pytest.mark.parametrize("model", [LONG, "中文" * 30, "W" * 60, "m"])
def test_every_text_of_every_figure_lies_inside_it(tmp_path, model):
    from biasatlas.display.style import style
    from biasatlas.report.sections import run_plots

    runs = load_runs([crows_run(tmp_path / "c", model=model), census_run(tmp_path / "e", model=model),
                      zh_run(tmp_path / "z", model=model)])
    with style():
        for run in runs:
            for plot in run_plots(run):
                fig = plot.figure
                fig.canvas.draw()  # as saving does: axis labels take their places at draw time
                renderer = fig.canvas.get_renderer()
                drawn = fig.get_tightbbox(renderer)  # inches: everything drawn, titles and labels included
                width, height = fig.get_size_inches()
                assert drawn.x0 >= -0.01 and drawn.y0 >= -0.01, (run.benchmark, drawn)
                assert drawn.x1 <= width + 0.01 and drawn.y1 <= height + 0.01, (run.benchmark, drawn, width, height)
                title = fig.axes[0].title.get_window_extent(renderer)
                assert title.y1 <= fig.bbox.height and title.x0 >= 0 and title.x1 <= fig.bbox.width


# -- one spelling per label ----------------------------------------------------------------------------------
def test_crows_labels_read_ties_and_anti_stereo_in_every_output(tmp_path):
    run = load_run(crows_run(tmp_path / "c"))
    report = build_report([run], compare=False)
    md = render(report, "md")
    shown = md.split("**Provenance**")[0]  # tables and captions; the provenance names files and fields
    assert "| ties | 1 |" in shown and "| anti-stereo |" in shown and "| anti-stereo | " in shown
    assert "neutral" not in shown and "antistereo" not in shown
    text = _terminal(run_terminal(run))
    assert "ties" in text and "anti-stereo" in text and "neutral" not in text and "antistereo" not in text
    labels = {r["metric"]: r["label"] for r in csv.DictReader(io.StringIO(render(report, "csv")))}
    assert labels["neutral_percent"] == "ties" and labels["antistereo_score"] == "anti-stereo"
    assert labels["metric_score"] == "metric"


def test_census_class_reads_balanced_in_every_output(tmp_path):
    runs = load_runs([census_run(tmp_path / "a"), census_run(tmp_path / "b", model="m2")])
    md = render(build_report(runs, compare=False), "md")
    headers = [line for line in md.splitlines() if line.startswith("| model |")]
    assert headers and all("| balanced |" in h and "neutral" not in h for h in headers)
    text = _terminal(run_terminal(runs[0]))
    assert re.search(r"balanced\s*┃\s*female", text)
    assert not any("neutral" in line for line in text.splitlines() if "┃" in line)  # headers: the caption explains
    labels = {r["metric"]: r["label"] for r in csv.DictReader(io.StringIO(render(build_report(runs), "csv")))}
    assert labels["descriptive:balanced"] == "descriptive: balanced"
