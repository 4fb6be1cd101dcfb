"""``biasatlas report`` and ``biasatlas compare``: thin commands over :mod:`biasatlas.report`.

Registered in :mod:`biasatlas.cli`; errors are library errors, translated there once (one
``error:`` line, exit code 2). ``report`` leaves out folders without ``summary.json`` (runs
not finished) with a warning, unless no finished run is left (``--no-skip-unfinished``
makes the first such folder an error). Its format comes from ``--format`` or from the
suffix of ``--out``; a suffix it does not know is a usage error naming the formats (never
silently HTML).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from ..errors import BiasAtlasError, UsageError

if TYPE_CHECKING:
    from ..outputs import Kind

Runs = Annotated[list[Path], typer.Argument(help="Finished run folders (each with summary.json), or sensitivity "
                                            "folders (each with sensitivity.json).",
                                            show_default=False)]
Labels = Annotated[list[str] | None, typer.Option(
    "--label", help="Name a run in the tables and plots, DIR=NAME (repeat for several; default: its model's "
    "name, or its --label when it ran).", metavar="<dir=name>...", show_default=False)]
Seed = Annotated[int, typer.Option(help="Seed of the paired tests that resample (census: the paired bootstrap "
                                   "over occupations); McNemar and Wilcoxon do not resample.")]
Resamples = Annotated[int, typer.Option(min=1, help="Resamples of the paired tests that resample (census: the "
                                        "paired bootstrap over occupations).")]
#: ``--format`` choices: the library's :data:`biasatlas.report.FORMATS` (a test keeps them equal;
#: a literal here keeps ``--help`` from importing the report package).
ReportFormat = Literal["html", "md", "csv", "json", "latex", "bibtex"]
_SUFFIX = {".html": "html", ".htm": "html", ".md": "md", ".markdown": "md", ".csv": "csv", ".json": "json",
           ".tex": "latex", ".bib": "bibtex"}


class OutputError(BiasAtlasError):
    """``--out`` names a path that cannot be created (what may not be written there is refused
    earlier, by :func:`biasatlas.outputs.check_output`)."""


def _check_out(out: Path | None, what: Kind, runs: list[Path]) -> None:
    """Refuse, before the (slow) rendering, an ``--out`` that is a folder, one of the runs or inside
    one, or a file biasatlas did not write as this kind (:func:`biasatlas.outputs.check_output`)."""
    from ..outputs import check_output

    if out is not None:
        check_output(out, what, inputs=runs)


def _emit(text: str, out: Path | None, what: Kind, runs: list[Path]) -> None:
    # JSON may carry a lone surrogate ("\\ud800"), which UTF-8 cannot encode: write "?" instead
    text = text.encode("utf-8", "replace").decode("utf-8")
    if out is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        return
    from ..outputs import LEDGER, record_output

    _check_out(out, what, runs)  # again: the rendering took a while
    _write_atomically(out, text)
    if not record_output(out, what):  # recorded: ours to replace on a rerun
        _warn(f"could not record {out} in {out.parent / LEDGER}: a rerun will not replace it")
    typer.echo(f"{what}: {out} ({len(text.encode('utf-8')) / 1024:.0f} KiB)", err=True)


def _write_atomically(out: Path, text: str) -> None:
    """Write a temporary file beside ``out`` and rename it into place; on any failure remove
    the temporary file and raise :class:`OutputError` (a reader never sees half a report)."""
    from ..atomic import atomic_write

    try:
        atomic_write(out, text)
    except OSError as exc:
        raise OutputError(f"cannot write --out {out}: {exc.strerror or exc}") from None


def _warn(message: str) -> None:
    typer.secho(f"warning: {message}", fg="yellow", err=True)


def report_format(fmt: str | None, out: Path | None) -> str:
    """``--format`` as given; else from ``--out``'s suffix (.html .md .csv .json .tex .bib);
    else Markdown on stdout (a page of HTML with inline plots is about a megabyte: it is written
    when asked for, never poured into a terminal). An ``--out`` whose suffix names no format is a
    usage error."""
    if fmt is not None:
        return fmt
    if out is None:
        return "md"
    if out.suffix.lower() not in _SUFFIX:
        known = ", ".join(sorted(_SUFFIX))
        raise UsageError(f"cannot tell the report format from --out {out.name!r} (suffix "
                         f"{out.suffix or 'none'}): name a file ending in {known}, or pass --format "
                         "html|md|csv|json|latex|bibtex")
    return _SUFFIX[out.suffix.lower()]


def report_command(
    runs: Runs,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Output file (default: stdout); "
                                             ".html .md .csv .json .tex .bib pick the format.")] = None,
    fmt: Annotated[ReportFormat | None, typer.Option(
        "--format", "-f", help="Default: from --out's suffix, else md (stdout). latex: booktabs tables; bibtex: "
        "what to cite.")] = None,
    compare: Annotated[bool, typer.Option(help="Add paired tests of each run against the first of its "
                                          "benchmark and dataset.")] = True,
    title: Annotated[str, typer.Option(help="Page title (HTML).")] = "biasatlas report",
    skip_unfinished: Annotated[bool, typer.Option(
        help="Leave out folders without summary.json (unfinished runs) with a warning; or fail on them.")] = True,
    n_resamples: Resamples = 2000, seed: Seed = 0, label: Labels = None,
    pair: Annotated[list[str] | None, typer.Option(
        help="Compare exactly these two run folders, A,B (repeatable), instead of each run against the first "
             "of its benchmark, dataset and reading.", metavar="A,B")] = None,
) -> None:
    """Render run folders as one self-contained HTML page (plots inline), Markdown, CSV, JSON, LaTeX
    tables or BibTeX. With neither --out nor --format: Markdown on stdout. Sensitivity folders (each
    with sensitivity.json) give their tables and, over several models, Kendall's τ of each
    perturbation's model ranking against the unperturbed one (md, html or json)."""
    from ..report import build_report, load_runs, render, render_html

    _check_out(out, "report", runs)
    chosen = report_format(fmt, out)
    if _sensitivity_folders(runs):  # sensitivity folders: their tables and the models' ranking stability
        from ..sensitivity import report as sensitivity_report

        _emit(sensitivity_report(runs, chosen, n_resamples=n_resamples, seed=seed), out, "report", runs)
        return
    views = load_runs(runs, skip_unfinished=skip_unfinished, warn=_warn, labels=label or ())
    tables_only = chosen in ("latex", "bibtex")  # neither shows the paired tests: skip computing them
    report = build_report(views, compare=compare and not tables_only, n_resamples=n_resamples, seed=seed,
                          pairs=[_pair(text) for text in pair or ()])
    text = render_html(report, title) if chosen == "html" else render(report, chosen)
    _emit(text, out, "report", runs)


def _pair(text: str) -> tuple[str, str]:
    """``--pair A,B``: two run folders."""
    a, sep, b = text.partition(",")
    if not sep or not a.strip() or not b.strip():
        raise UsageError(f"--pair takes two run folders as A,B, not {text!r}")
    return a.strip(), b.strip()


def _sensitivity_folders(runs: list[Path]) -> bool:
    """Whether ``runs`` are sensitivity folders (each with sensitivity.json); a mix is refused."""
    from ..sensitivity import SENSITIVITY_FILE

    marked = [(r / SENSITIVITY_FILE).is_file() for r in runs]
    if any(marked) and not all(marked):
        raise UsageError("give report either run folders or sensitivity folders (with sensitivity.json), not both")
    return bool(runs) and all(marked)


def compare_command(
    runs: Runs,
    fmt: Annotated[str, typer.Option("--format", "-f", help="terminal | md | html | json | csv (one row per "
                                     "test, B − A with its interval); on a narrow terminal (80 columns) md "
                                     "keeps each test on one line",
                                     metavar="<terminal|md|html|json|csv>")] = "terminal",
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Output file (default: stdout).")] = None,
    all_pairs: Annotated[bool, typer.Option(help="Test every pair of runs, not each against the first.")] = False,
    force: Annotated[bool, typer.Option("--force", help="Pair runs that differ in data, subset or "
                                        "preprocessing; the output then carries a warning.")] = False,
    n_resamples: Resamples = 2000, seed: Seed = 0, label: Labels = None,
) -> None:
    """Paired tests between runs on the same items, Holm-corrected, and a leaderboard.

    Refuses runs that differ in dataset, data file, subset (limit, sample) or preprocessing
    (lower-casing, census identifiers, country, language, method) unless ``--force``.
    """
    from ..errors import DataError
    from ..report import compare_runs, leaderboard, load_runs
    from ..report.compare import comparison_pairs, comparison_table, headline, require_like_for_like

    if len(runs) < 2:
        raise UsageError("compare needs at least two run folders")
    _check_out(out, "comparison", runs)
    seen: dict[Path, Path] = {}
    for run in runs:
        if run.resolve() in seen:
            again = "" if seen[run.resolve()] == run else f" (as {seen[run.resolve()]} and {run})"
            _warn(f"the run folder {run} is given twice{again}: compared with itself it shows no difference")
        seen.setdefault(run.resolve(), run)
    views = load_runs(runs, labels=label or ())
    pairs = comparison_pairs(views, all_pairs=all_pairs, across_datasets=True)
    if not pairs:
        raise DataError("no two runs share a benchmark: nothing to pair")
    if not force:
        require_like_for_like(pairs)
    comparisons = [compare_runs(a, b, force=force, n_resamples=n_resamples, seed=seed) for a, b in pairs]
    warnings = [c.warning for c in comparisons if c.warning]
    tables = leaderboard(views) + [comparison_table(c) for c in comparisons]
    if fmt == "terminal" and out is None:
        _print_terminal(tables, warnings, [f"{c.label_a} vs {c.label_b}: {headline(c)}" for c in comparisons])
        return
    if fmt == "csv":
        from ..report.compare import comparisons_csv

        _emit(comparisons_csv(comparisons), out, "comparison", runs)
        return
    _emit(_render_tables(tables, fmt, warnings), out, "comparison", runs)


def _print_terminal(tables: list, warnings: list[str], headlines: list[str]) -> None:
    """The tables, each comparison's table led by its one-line headline, then the headlines
    again together (what a reader of a long scroll-back wants last)."""
    from rich.console import Console
    from rich.markup import escape

    from ..display.tables import to_rich

    console = Console()
    for warning in warnings:
        console.print(f"[bold yellow]WARNING:[/] {escape(warning)}")
    leaders = len(tables) - len(headlines)
    for i, table in enumerate(tables):
        if i >= leaders:
            console.print(escape(_whole_intervals(headlines[i - leaders])), style="bold")
        console.print(to_rich(table, width=console.width))  # narrowed or stacked, never a cell wrapped
    for line in headlines if len(headlines) > 1 else ():
        console.print(escape(_whole_intervals(line)))


def _whole_intervals(line: str) -> str:
    """``line`` with a no-break space inside each "[low, high]", so a headline wrapped to the
    terminal breaks between words but never inside an interval ("[-25.00," / "50.00]" misreads)."""
    import re

    return re.sub(r"(\[[^\]]*?,) ", "\\1\u00a0", line)


def _render_tables(tables: list, fmt: str, warnings: list[str]) -> str:
    """The tables in ``fmt``; warnings lead in Markdown and HTML, and open each forced table's caption."""
    from ..display.tables import md_text, to_markdown

    if fmt in ("md", "terminal"):
        return "\n".join([f"> **WARNING:** {md_text(w)}\n" for w in warnings] + [to_markdown(t) for t in tables])
    if fmt == "json":
        import json

        from ..report.document import json_safe

        return json.dumps(json_safe([{"title": t.title, "columns": list(t.columns),
                                    "rows": [[_plain(c) for c in row] for row in t.rows], "caption": t.caption}
                                   for t in tables]), indent=2, ensure_ascii=False)
    if fmt == "html":
        from ..report.html import render_tables_page

        return render_tables_page(tables, "biasatlas comparison", warnings)
    from ..errors import did_you_mean

    raise did_you_mean("compare format", fmt, ("terminal", "md", "html", "json", "csv"))


def _plain(cell: object) -> object:
    from ..display.tables import CI, PValue

    if isinstance(cell, CI):
        return [cell.low, cell.high]
    if isinstance(cell, PValue):
        return cell.value
    return cell
