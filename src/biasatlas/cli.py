"""The ``biasatlas`` command: parse, call the library, render. Errors are translated once."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from .cli_options import (DEFAULT_MODEL, BatchSize, Device, Dtype, Force, Limit, Model, NoCache, Out,
                          Refresh, Revision, ScorerName, ScorerOptions, Trust, Variant, execute)
from .errors import BiasAtlasError

app = typer.Typer(help="Measure social bias in language models, exactly as the papers did.",
                  no_args_is_help=True, pretty_exceptions_enable=False)
run_app = typer.Typer(help="Run a benchmark on a model and write a run folder.", no_args_is_help=True)
app.add_typer(run_app, name="run")
from .benchmarks.census.command import run_census  # noqa: E402 - light: census loads on use
run_app.command("census")(run_census)
from .report.cli import compare_command, report_command  # noqa: E402 - light: imports on use
app.command("report")(report_command)
app.command("compare")(compare_command)
from .benchmarks.zh_neutral_command import run_zh_neutral, zh_analyze  # noqa: E402 - light, like census
run_app.command("zh-neutral")(run_zh_neutral)
app.command("zh-analyze")(zh_analyze)
from .mining.cli import mine_command  # noqa: E402 - light: the stages import on use
app.command("mine")(mine_command)

@run_app.command("crows-pairs")
def crows_pairs(
    dataset: Annotated[str, typer.Option(help="en | en-revised | en-revised+210 | fr | fr+210")] = "fr+210",
    data: Annotated[Optional[Path], typer.Option(help="A CrowS-Pairs CSV/TSV file instead of --dataset.")] = None,
    lowercase: Annotated[bool, typer.Option(help="Lower-case both sentences (the French paper did, for every model).")] = False,
    tie_decimals: Annotated[int, typer.Option(help="Round scores to this many decimals before comparing (reference: 3).")] = 3,
    model: Model = DEFAULT_MODEL, scorer: ScorerName = "auto", variant: Variant = None,
    batch_size: BatchSize = 64, device: Device = "cpu", dtype: Dtype = "float32",
    revision: Revision = None, trust_remote_code: Trust = False, out: Out = None, limit: Limit = None,
    no_cache: NoCache = False, refresh: Refresh = False, force: Force = False,
) -> None:
    """CrowS-Pairs (Nangia et al. 2020; Névéol et al. 2022)."""
    from .benchmarks.crows_pairs import CrowsPairs

    bench = CrowsPairs(dataset=dataset, data=data, lowercase=lowercase, tie_decimals=tie_decimals, limit=limit)
    bench.load()  # a bad or missing file fails here, before the model loads
    execute(bench, ScorerOptions(model, scorer, variant, batch_size, device, dtype, revision,
                                 trust_remote_code), out, no_cache=no_cache, refresh=refresh, force=force)


@app.command("list")
def list_command() -> None:
    """Show benchmarks, datasets, scorers and variants."""
    from rich.console import Console
    from rich.table import Table

    from .benchmarks.crows_pairs import DATASETS
    from .registry import BENCHMARKS, VARIANTS
    from .scorers.packaged import PACKAGED_MODELS

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
