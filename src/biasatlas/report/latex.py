"""The report as LaTeX tables for a paper: booktabs floats to ``\\input`` into a document.

One ``table`` float per table, each with a caption and a label: the leaderboard of each
benchmark and dataset (also for a single run: a paper's table of one model is still a table;
a column whose cell is the same in every row of two or more is said once in the caption
instead, so a paper's table keeps only what tells its rows apart), then
the agreement between measures (two models or more), then one table per run of its headline
numbers with their 95 % intervals (the rows of the CSV output) and one of its headlines beside
their controls and detectable effects (:mod:`biasatlas.display.controls`). Cells read as in
the HTML page (``[low, high]`` intervals, "–" where a value is missing, "no spread" for a
collapsed interval); LaTeX's special characters in model names, datasets and categories are
escaped (:func:`biasatlas.display.tables.latex_text`).
The preamble needs ``\\usepackage{booktabs}`` and ``\\usepackage{graphicx}`` (a table wider than
the line is shrunk to it: :mod:`biasatlas.display.latex_fit`); labels are unique; Chinese labels
need a CJK setup.
"""

from __future__ import annotations

from ..display.cite import bibtex_key
from ..display.controls import headline_table
from ..runs.view import RunView
from ..display.latex_fit import PREAMBLE
from ..display.tables import CI, Table, cell_text, to_latex
from .document import Report, title_of
from .tables import leaderboard, metric_rows


def to_latex_doc(report: Report) -> str:
    runs = [rr.run for rr in report.runs]
    head = (f"% biasatlas {report.version}: {len(runs)} run(s). Tables for \\input{{}}; the preamble needs "
            f"{PREAMBLE}. Each table fits \\linewidth (shrunk where wider); in a two-column paper, "
            "make a wide one a table* to give it the page's width.\n")
    by_dataset = [[r for r in runs if (r.benchmark, r.dataset) == key]
                  for key in dict.fromkeys((r.benchmark, r.dataset) for r in runs)]
    tables: list[tuple[Table, str]] = [
        (_constant_columns_said(t), bibtex_key("biasatlas", "leaderboard", _slug(t.title)))
        for group in by_dataset for t in leaderboard(group)]
    tables += [(t, bibtex_key("biasatlas", "agreement")) for t in report.agreement_tables]
    for rr in report.runs:
        tables.append((metric_table(rr.run, rr.notices), bibtex_key("biasatlas", rr.anchor)))
        if rr.headlines:
            tables.append((headline_table(rr.headlines), bibtex_key("biasatlas", rr.anchor, "controls")))
    labels = unique_labels([key for _, key in tables])
    return "\n".join([head, *(to_latex(table, "tab:" + label) for (table, _), label in zip(tables, labels))])


def _constant_columns_said(table: Table) -> Table:
    """``table`` without the columns (but the first) whose text is the same in every row of two or
    more, each said once in the caption ("Every row: dataset en; n 1,508."): CrowS-Pairs' 15 columns,
    5 of them constant, shrank its LaTeX leaderboard to a 4 pt font (issue 49, item 12)."""
    if len(table.rows) < 2:
        return table
    same = [i for i in range(1, len(table.columns)) if len({cell_text(row[i]) for row in table.rows}) == 1]
    if not same:
        return table
    kept = [i for i in range(len(table.columns)) if i not in same]
    said = "; ".join(f"{table.columns[i]} {cell_text(table.rows[0][i])}" for i in same)
    numeric = tuple(table.numeric[i] for i in kept) if table.numeric else ()
    return Table(table.title, tuple(table.columns[i] for i in kept), tuple(tuple(row[i] for i in kept)
                 for row in table.rows), f"{table.caption} Every row: {said}.".strip(), numeric)


def unique_labels(keys: list[str]) -> list[str]:
    """Each key once: a repeat gets ``-2``, ``-3`` … (the SEAT and WEAT leaderboards share a title,
    and two equal ``\\label``s are LaTeX's "multiply defined" warning and a wrong ``\\ref``)."""
    used: set[str] = set()
    out = []
    for key in keys:
        label, n = key, 1
        while label in used:
            n += 1
            label = f"{key}-{n}"
        used.add(label)
        out.append(label)
    return out


def metric_table(run: RunView, notices: tuple[str, ...] = ()) -> Table:
    """One run's headline numbers: label, value, 95 % interval, n (as in the CSV output); the
    run's notices (its warnings among them) close the caption, so a paper's table keeps them."""
    rows = tuple((m.label, m.value, CI(m.ci_low, m.ci_high, digits=2), m.n) for m in metric_rows(run))
    caption = f"Headline numbers of the run in {run.path.name}; 95% intervals as the benchmark computes them."
    return Table(title_of(run), ("metric", "value", "95% CI", "n"), rows, " ".join((caption, *notices)))


def _slug(title: str) -> str:
    """The benchmark part of a leaderboard's title ("CrowS-Pairs leaderboard" → "crows-pairs")."""
    return title.split(" leaderboard")[0]
