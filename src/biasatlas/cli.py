"""The ``biasatlas`` command: parse, call the library, render. Errors are translated once."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from .errors import BiasAtlasError

app = typer.Typer(help="Measure social bias in language models, exactly as the papers did.",
                  no_args_is_help=True, pretty_exceptions_enable=False)
run_app = typer.Typer(help="Run a benchmark on a model and write a run folder.", no_args_is_help=True)
app.add_typer(run_app, name="run")

DEFAULT_MODEL = "gemma-3-270m"
Model = Annotated[str, typer.Option("--model", "-m", help="Hub id, local folder, packaged name "
                                    "(gemma-3-270m, smollm2-135m) or 'fake'.")]
ScorerName = Annotated[str, typer.Option("--scorer", help="auto | masked-lm | causal-lm | seq2seq | fake")]
Variant = Annotated[Optional[str], typer.Option("--variant", help="Pair-scoring variant (see 'biasatlas list').")]
BatchSize = Annotated[int, typer.Option("--batch-size", help="Rows (masked copies or sentences) per forward pass.")]
Device = Annotated[str, typer.Option("--device", help="cpu, cuda, cuda:1, mps …")]
Dtype = Annotated[str, typer.Option("--dtype", help="float32 (default), or bfloat16/float16 on GPU.")]
Revision = Annotated[Optional[str], typer.Option("--revision", help="Hub revision (commit, tag, branch).")]
Trust = Annotated[bool, typer.Option("--trust-remote-code", help="Allow a hub model's own code to run.")]
Out = Annotated[Optional[Path], typer.Option("--out", "-o", help="Run folder to write.")]
Limit = Annotated[Optional[int], typer.Option("--limit", help="Only the first N items (for a quick look).")]


@dataclass(frozen=True)
class ScorerOptions:
    model: str
    scorer: str
    variant: str | None
    batch_size: int
    device: str
    dtype: str
    revision: str | None
    trust_remote_code: bool

    def build(self) -> Any:
        from .registry import load_scorer

        kw: dict[str, Any] = {"variant": self.variant}
        if self.model != "fake" and self.scorer != "fake":
            kw.update(batch_size=self.batch_size, device=self.device, dtype=self.dtype,
                      revision=self.revision, trust_remote_code=self.trust_remote_code)
        return load_scorer(self.model, self.scorer, **kw)


def execute(benchmark: Any, options: ScorerOptions, out: Path | None) -> None:
    """Score, write the run folder, print the benchmark's table."""
    from rich.console import Console

    from .pipeline import evaluate
    from .results import write_run

    console = Console(stderr=True)
    console.print(f"[bold]{benchmark.name}[/] · loading model {options.model} …")
    run = evaluate(benchmark, options.build(), progress=True)
    Console().print(benchmark.table(run.summary))
    if out is not None:
        write_run(run, out)
        console.print(f"run folder: {out}")


@run_app.command("crows-pairs")
def crows_pairs(
    dataset: Annotated[str, typer.Option(help="en | en-revised | en-revised+210 | fr | fr+210")] = "fr+210",
    data: Annotated[Optional[Path], typer.Option(help="A CrowS-Pairs CSV/TSV file instead of --dataset.")] = None,
    lowercase: Annotated[bool, typer.Option(help="Lower-case both sentences (the French paper did, for every model).")] = False,
    tie_decimals: Annotated[int, typer.Option(help="Round scores to this many decimals before comparing (reference: 3).")] = 3,
    model: Model = DEFAULT_MODEL, scorer: ScorerName = "auto", variant: Variant = None,
    batch_size: BatchSize = 64, device: Device = "cpu", dtype: Dtype = "float32",
    revision: Revision = None, trust_remote_code: Trust = False, out: Out = None, limit: Limit = None,
) -> None:
    """CrowS-Pairs (Nangia et al. 2020; Névéol et al. 2022)."""
    from .benchmarks.crows_pairs import CrowsPairs

    bench = CrowsPairs(dataset=dataset, data=data, lowercase=lowercase, tie_decimals=tie_decimals, limit=limit)
    execute(bench, ScorerOptions(model, scorer, variant, batch_size, device, dtype, revision,
                                 trust_remote_code), out)


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
    except Exception as exc:  # click usage errors carry their own exit code
        import click

        if isinstance(exc, click.ClickException):
            exc.show()
            sys.exit(exc.exit_code)
        raise
