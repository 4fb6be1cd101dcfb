"""``biasatlas suite SUITE.toml``: a grid of benchmarks × models into one folder (:mod:`biasatlas.suite`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .options import Force


def suite_command(
    suite: Annotated[Path, typer.Argument(help="Suite file (TOML) of defaults, benchmark and model tables; "
                                          "see docs/suites.md.", show_default=False)],
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Folder of the suite's run folders "
                                             "(default: the file's out, relative to the file).")] = None,
    force: Force = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Check the file and list its cells, each with its "
                                          "options and its items and probes; load no model.")]
    = False,
) -> None:
    """Run every benchmark on every model of a suite file into one folder, then report.

    One run folder per cell; a rerun skips finished cells and resumes the rest from the score cache.

    Ends with report.html and leaderboard.md in the suite's folder.
    """
    from rich.console import Console

    from ..display.tables import to_rich
    from ..suite import read_suite, run_suite

    console = Console(stderr=True)

    def say(line: str) -> None:
        console.print(line, markup=False, highlight=False)

    checked = read_suite(suite)  # the whole file, before any model loads
    if dry_run:
        target = out or checked.out
        say(f"{suite}: {len(checked.cells)} cells, checked" + (f", into {target}" if target else ""))
        for cell in checked.cells:
            typer.echo("\n".join(cell.plan()))
        return
    result = run_suite(checked, out, force=force, log=say)
    console = Console()
    for table in result.tables:
        console.print(to_rich(table, width=console.width))
    say(f"report: {result.report}")
    say(f"leaderboard: {result.leaderboard}")
