"""The report as one self-contained HTML file: inline SVG plots, inline CSS, no script.

Rendered by jinja2 with autoescaping on, so every dataset sentence, occupation and model
name is text, never markup. The only unescaped content is the SVG that
:mod:`biasatlas.display.svg` builds with ElementTree (which escapes text itself). A
Content-Security-Policy meta tag forbids scripts and every network fetch, so even a
mistake elsewhere cannot load or run anything. The page prints: figures do not split
across pages and the navigation is hidden.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..display.style import cjk_font, style
from ..display.svg import to_svg
from ..display.tables import Table, cell_text
from ..registry import benchmark_specs, find_spec
from ..version import __version__
from .document import Report, RunReport, title_of
from .across import across_models_plots
from .agreement import agreement_plot, measures
from .cite import report_references, to_bibtex
from .sections import run_plots

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


@dataclass(frozen=True)
class FigureBlock:
    svg: str
    caption: str


def _environment() -> Any:
    from jinja2 import Environment, PackageLoader, StrictUndefined

    env = Environment(loader=PackageLoader("biasatlas.report", "templates"), autoescape=True,
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters["cell"] = cell_text
    return env


def run_figures(rr: RunReport) -> list[FigureBlock]:
    """Draw and serialise the run's plots (ids prefixed with the run's anchor)."""
    from markupsafe import Markup


    with style():
        plots = run_plots(rr.run)
        return [FigureBlock(Markup(to_svg(p, f"{rr.anchor}-f{i}")), p.caption)  # noqa: S704 - built by ElementTree
                for i, p in enumerate(plots)]


def agreement_figures(report: Report) -> tuple[FigureBlock, ...]:
    """The matrix of Spearman's ρ between the report's measures, as inline SVG; none when no two
    measures share enough models for a correlation (the table says so, row by row)."""
    from markupsafe import Markup


    if all(a.spearman is None for a in report.agreement):
        return ()
    runs = [rr.run for rr in report.runs]
    found = measures(runs, {i: rr.headlines for i, rr in enumerate(report.runs)})
    with style():
        plot = agreement_plot(found, report.agreement)
        return (FigureBlock(Markup(to_svg(plot, "agreement-f0")), plot.caption),)  # noqa: S704 - built by ElementTree


def across_figures(report: Report) -> tuple[FigureBlock, ...]:
    """Per benchmark with two runs or more, its models' headlines with intervals (:mod:`.across`)."""
    from markupsafe import Markup


    with style():
        return tuple(FigureBlock(Markup(to_svg(p, f"across-f{i}")), p.caption)  # noqa: S704 - built by ElementTree
                     for i, p in enumerate(across_models_plots(report.runs)))


def needs_cjk(report: Report) -> bool:
    """Whether any plot label could hold Chinese (a benchmark whose view says so, or CJK in the items)."""
    return any(_cjk_benchmark(rr.run.benchmark) or _CJK.search(str(rr.run.records[:50])) for rr in report.runs)


def _cjk_benchmark(benchmark: str) -> bool:
    spec = find_spec(benchmark)
    return spec is not None and spec.view.needs_cjk_font


@dataclass(frozen=True)
class Block:
    """A page section of tables only (leaderboard, comparisons)."""

    anchor: str
    heading: str
    tables: tuple[Table, ...]
    note: str = ""
    warnings: tuple[str, ...] = ()
    figures: tuple[FigureBlock, ...] = ()


def compare_note() -> str:
    """How runs are paired and tested: each registered benchmark's test, named by its view
    (alphabetical, so the sentence does not depend on the order of registration)."""
    phrases = sorted(spec.view.paired.phrase for spec in benchmark_specs() if spec.view.paired is not None)
    return ("Runs of the same benchmark and data file, each against the first: " + ", ".join(phrases)
            + "; Holm across categories.")


def render_html(report: Report, title: str = "biasatlas report") -> str:
    blocks = [Block("leaderboard", "Leaderboard", report.leaderboard,
                    figures=across_figures(report))] if report.leaderboard else []
    if report.comparisons or report.notes:
        note = " ".join((compare_note(), *report.notes))
        blocks.append(Block("comparisons", "Paired comparisons", report.comparison_tables, note,
                            report.comparison_warnings))
    if report.agreement:
        blocks.append(Block("agreement", "Agreement between measures", report.agreement_tables,
                            figures=agreement_figures(report)))
    figures = {rr.anchor: run_figures(rr) for rr in report.runs}
    missing_font = needs_cjk(report) and cjk_font() is None
    return _page(title, blocks, report.runs, figures, missing_font, _cite(report))


def _cite(report: Report) -> str:
    """The report's BibTeX (the same text as ``--format bibtex``), for its "Cite" section."""
    refs = report_references([rr.run for rr in report.runs], report.version)
    return to_bibtex(refs, report.version) if refs else ""


def render_tables_page(tables: Sequence[Table], title: str, warnings: Sequence[str] = ()) -> str:
    """A page of tables alone (``biasatlas compare --format html``), warnings on top."""
    return _page(title, [Block("tables", title, tuple(tables), warnings=tuple(warnings))], (), {}, False)


def _page(title: str, blocks: Sequence[Block], runs: Sequence[RunReport], figures: dict[str, Any],
          missing_font: bool, bibtex: str = "") -> str:
    return _environment().get_template("report.html.j2").render(
        title=title, blocks=blocks, runs=runs, figures=figures, title_of=title_of,
        missing_font=missing_font, version=__version__, bibtex=bibtex)

