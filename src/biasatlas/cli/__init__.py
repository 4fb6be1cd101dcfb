"""The ``biasatlas`` command: parse, call the library, render. Errors are translated once."""

from __future__ import annotations

import sys

import typer

from ..errors import BiasAtlasError
from .census import run_census
from .crows_pairs import run_crows_pairs
from .mine import mine_command
from .report import compare_command, report_command
from .zh_neutral import run_zh_neutral, zh_analyze

# Every command module is light: each imports its library code (torch, the benchmarks)
# inside the command function, so `biasatlas --help` starts in a fraction of a second.
app = typer.Typer(help="Measure social bias in language models, exactly as the papers did.",
                  no_args_is_help=True, pretty_exceptions_enable=False)
run_app = typer.Typer(help="Run a benchmark on a model and write a run folder.", no_args_is_help=True)
app.add_typer(run_app, name="run")
run_app.command("census")(run_census)
run_app.command("zh-neutral")(run_zh_neutral)
run_app.command("crows-pairs")(run_crows_pairs)
app.command("report")(report_command)
app.command("compare")(compare_command)
app.command("zh-analyze")(zh_analyze)
app.command("mine")(mine_command)


@app.command("list")
def list_command() -> None:
    """Show benchmarks, datasets, scorers and variants."""
    from rich.console import Console
    from rich.table import Table

    from ..benchmarks.crows_pairs import DATASETS
    from ..registry import BENCHMARKS, VARIANTS
    from ..scorers.packaged import PACKAGED_MODELS

    table = Table(title="biasatlas")
    table.add_column("kind")
    table.add_column("names")
    table.add_row("benchmarks", ", ".join(BENCHMARKS))
    table.add_row("crows-pairs datasets", ", ".join(DATASETS))
    for scorer, variants in VARIANTS.items():
        table.add_row(f"scorer {scorer}", "variants: " + ", ".join(variants))
    table.add_row("packaged models", ", ".join(PACKAGED_MODELS))
    Console().print(table)


def main() -> None:
    """Entry point: run the app, turning biasatlas errors into one clear line and exit 2."""
    try:
        app(standalone_mode=False)
    except BiasAtlasError as exc:
        typer.secho(f"error: {exc}", fg="red", err=True)
        sys.exit(2)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except typer.Abort:
        sys.exit(130)
    except Exception as exc:  # usage errors carry their own exit code and message
        if _is_usage_error(exc):
            exc.show()  # type: ignore[attr-defined]
            sys.exit(exc.exit_code)  # type: ignore[attr-defined]
        raise


def _is_usage_error(exc: Exception) -> bool:
    """Click's exceptions, and typer's own copies of them (typer 0.20+ vendors click)."""
    import click

    vendored = tuple(k for k in typer.BadParameter.__mro__ if k.__name__ == "ClickException")
    return isinstance(exc, (click.ClickException, *vendored))
