"""The report as LaTeX tables for a paper: booktabs floats to ``\\input`` into a document.

One ``table`` float per table, each with a caption and a label: the leaderboard of each
benchmark (also for a single run: a paper's table of one model is still a table), then
the agreement between measures (two models or more), then one table per run of its headline
numbers with their 95 % intervals (the rows of the CSV output) and one of its headlines beside
their controls and detectable effects (:mod:`biasatlas.display.controls`). Cells read as in
the HTML page (``[low, high]`` intervals, "–" where a value is missing, "no spread" for a
collapsed interval); LaTeX's special characters in model names, datasets and categories are
escaped (:func:`biasatlas.display.tables.latex_text`).
The preamble needs ``\\usepackage{booktabs}``; Chinese labels need a CJK setup.
"""

from __future__ import annotations

from ..display.cite import bibtex_key
from ..display.controls import headline_table
from ..runs.view import RunView
from ..display.tables import CI, Table, to_latex
from .document import Report, title_of
from .tables import leaderboard, metric_rows


def to_latex_doc(report: Report) -> str:
    runs = [rr.run for rr in report.runs]
    head = (f"% biasatlas {report.version}: {len(runs)} run(s). Tables for \\input{{}}; the preamble needs "
            "\\usepackage{booktabs}.\n")
    parts = [head]
    for table in leaderboard(runs):
        parts.append(to_latex(table, "tab:" + bibtex_key("biasatlas", "leaderboard", _slug(table.title))))
    for table in report.agreement_tables:
        parts.append(to_latex(table, "tab:" + bibtex_key("biasatlas", "agreement")))
    for rr in report.runs:
        parts.append(to_latex(metric_table(rr.run, rr.notices), "tab:" + bibtex_key("biasatlas", rr.anchor)))
        if rr.headlines:
            parts.append(to_latex(headline_table(rr.headlines), "tab:" + bibtex_key("biasatlas", rr.anchor,
                                                                                     "controls")))
    return "\n".join(parts)


def metric_table(run: RunView, notices: tuple[str, ...] = ()) -> Table:
    """One run's headline numbers: label, value, 95 % interval, n (as in the CSV output); the
    run's notices (its warnings among them) close the caption, so a paper's table keeps them."""
    rows = tuple((m.label, m.value, CI(m.ci_low, m.ci_high, digits=2), m.n) for m in metric_rows(run))
    caption = f"Headline numbers of the run in {run.path.name}; 95% intervals as the benchmark computes them."
    return Table(title_of(run), ("metric", "value", "95% CI", "n"), rows, " ".join((caption, *notices)))


def _slug(title: str) -> str:
    """The benchmark part of a leaderboard's title ("CrowS-Pairs leaderboard" → "crows-pairs")."""
    return title.split(" leaderboard")[0]
