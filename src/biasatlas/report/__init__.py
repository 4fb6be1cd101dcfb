"""Reports over run folders: tables, plots, an HTML page and paired comparisons.

The report reads run folders only (DESIGN.md), never a model::

    from biasatlas.report import load_runs, build_report, render_html
    runs = load_runs(["runs/camembert", "runs/flaubert"])
    html = render_html(build_report(runs))

It names no benchmark: each run's benchmark is looked up in :mod:`biasatlas.registry`, and
its spec's view (``view.py`` in the benchmark's folder) supplies the tables, plots,
leaderboard and paired test that this package assembles.
"""

from __future__ import annotations

from ..display.paired import PairedTest
from ..runs.view import RunView
from ..display.tables import Table
from ..stats import holm, mcnemar_table, mcnemar_test
from .cite import report_references, to_bibtex
from .compare import Comparison, compare_runs
from .document import FORMATS, Report, build_report, to_csv_doc, to_json_doc, to_markdown_doc
from .html import render_html
from .latex import to_latex_doc
from ..runs.load import load_run, load_runs
from .tables import leaderboard, metric_rows
from ..errors import did_you_mean

__all__ = ["FORMATS", "Comparison", "PairedTest", "Report", "RunView", "Table", "build_report",
           "compare_runs", "holm", "leaderboard", "load_run", "load_runs", "mcnemar_table", "mcnemar_test",
           "metric_rows", "render", "render_html", "report_references", "to_bibtex", "to_bibtex_doc", "to_csv_doc",
           "to_json_doc", "to_latex_doc", "to_markdown_doc"]


def to_bibtex_doc(report: Report) -> str:
    """BibTeX of the papers behind the report's benchmarks, of its models and of biasatlas (:mod:`.cite`)."""
    return to_bibtex(report_references([rr.run for rr in report.runs], report.version), report.version)


def render(report: Report, fmt: str = "html") -> str:
    """The report in one of :data:`FORMATS`."""
    if fmt not in FORMATS:
        raise did_you_mean("report format", fmt, FORMATS)
    renderers = {"html": render_html, "md": to_markdown_doc, "csv": to_csv_doc, "json": to_json_doc,
                 "latex": to_latex_doc, "bibtex": to_bibtex_doc}
    return renderers[fmt](report)
