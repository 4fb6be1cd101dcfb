"""Options shared by every ``biasatlas run <benchmark>`` command, and the run itself.

Every benchmark's command (one module each in this package) uses these aliases, so all
benchmarks take the same model options with the same help text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal, cast

import typer

from ..request import DEFAULT_MODEL, RunRequest, check_batch_size
from ..scorers.base import BatchSize as BatchSizeValue
from ..scorers.packaged import PACKAGED_MODELS

#: What each packaged model is, for ``--help`` and ``biasatlas list``: both are 4-bit
#: quantised GGUF files, dequantised to float32 once on first use, and one is a chat model.
PACKAGED_NOTES: dict[str, str] = {name: spec.summary + (", default" if name == DEFAULT_MODEL else "")
                                  for name, spec in PACKAGED_MODELS.items()}
# Closed sets are typer choices: a typo is a usage error listing them, and shells complete
# them. Kept as literals here (importing the registry's benchmarks would cost a second on
# every --help); tests/test_cli_errors.py checks each against the library's own set.
ScorerChoice = Literal["auto", "masked-lm", "causal-lm", "seq2seq", "fake"]
VariantChoice = Literal["nangia", "modified-tokens", "aul", "sentence-ll", "shared-ll", "hash"]
DtypeChoice = Literal["float32", "float16", "bfloat16"]


def batch_size(text: str) -> int | str:
    """``--batch-size``: the request's own check (:func:`~biasatlas.request.check_batch_size`)
    of a number of rows or ``auto``, as a usage error."""
    from ..errors import UsageError

    word = text.strip()
    try:
        return check_batch_size("auto" if word.lower() == "auto" else int(word) if word.isdigit() else word)
    except UsageError as exc:
        raise typer.BadParameter(str(exc)) from None


def parsed(value: str) -> BatchSizeValue:
    """``--batch-size`` as :func:`batch_size` has parsed it (typer declares it a string)."""
    return cast("BatchSizeValue", value)


Model = Annotated[str, typer.Option(
    "--model", "-m", help="Hub id, local model folder, 'fake', or a packaged model (4-bit quantised GGUF, "
    "dequantised to float32 once on first use): " + " or ".join(f"{name} ({note})" for name, note in
                                                                  PACKAGED_NOTES.items()) + ".")]
ScorerName = Annotated[ScorerChoice, typer.Option("--scorer", help="Scorer (auto: from the model's architecture).")]
Variant = Annotated[VariantChoice | None, typer.Option(
    "--variant", help="Pair-scoring variant; each scorer has its own (see 'biasatlas list').")]
BatchSize = Annotated[str, typer.Option("--batch-size", parser=batch_size, metavar="N|auto",
                                        help="Rows (masked copies or sentences) per forward pass, or auto.")]
Device = Annotated[str, typer.Option("--device", help="cpu, cuda, cuda:1, mps …")]
Dtype = Annotated[DtypeChoice, typer.Option("--dtype", help="float32 (default), or bfloat16/float16 on GPU.")]
Revision = Annotated[str | None, typer.Option("--revision", help="Hub revision (commit, tag, branch).")]
Trust = Annotated[bool, typer.Option("--trust-remote-code", help="Allow a hub model's own code to run.")]
Out = Annotated[Path | None, typer.Option("--out", "-o", help="Run folder to write.")]
NoCache = Annotated[bool, typer.Option("--no-cache", help="Neither read nor write the score cache.")]
Refresh = Annotated[bool, typer.Option("--refresh", help="Rescore everything and overwrite cached scores.")]
Limit = Annotated[int | None, typer.Option("--limit", min=1, help="Only the first N items (for a quick look).")]
Sample = Annotated[int | None, typer.Option(
    "--sample", min=1, help="Score N items drawn at random (seeded by --seed), kept in file order.")]
Seed = Annotated[int, typer.Option("--seed", help="Seed of --sample and of the bootstrap intervals.")]
Force = Annotated[bool, typer.Option("--force", help="Replace the run in --out when its settings differ "
                                     "(a folder that is not a run folder is never replaced).")]


def input_file(help: str) -> Any:
    """An option naming an existing file: a wrong path is a usage error (exit 2) before anything loads."""
    return typer.Option(help=help, exists=True, dir_okay=False)


DeviceMap = Annotated[str | None, typer.Option(
    "--device-map", help="accelerate's placement, e.g. auto: a model larger than one GPU over several.")]
EngineChoice = Literal["local", "ray"]
Engine = Annotated[EngineChoice, typer.Option(
    "--engine", help="local (default) | ray: score the same chunks on a Ray actor pool (docs/scale.md).")]
RayAddress = Annotated[str | None, typer.Option(
    "--ray-address", help="Join this Ray cluster ('auto', 'ray://head:10001'); default: a local instance.")]
Workers = Annotated[int, typer.Option("--workers", min=1, help="Ray workers, one scorer each.")]
WorkerCpus = Annotated[float, typer.Option("--worker-cpus", min=0, help="CPUs per Ray worker.")]
WorkerGpus = Annotated[float | None, typer.Option(
    "--worker-gpus", min=0, help="GPUs per Ray worker (default: 1 with --device cuda, else 0).")]


def execute(request: RunRequest, out: Path | None, *, no_cache: bool = False, refresh: bool = False,
            force: bool = False) -> None:
    """Run ``request`` through :func:`biasatlas.api.execute` (the score cache unless ``no_cache``), print
    the table and where the run folder is.

    The API claims ``--out`` before the model loads, so a wrong ``--out`` fails in a second,
    not after the scoring. Without ``--out`` nothing is written, and a line says so.
    """
    from rich.console import Console

    from ..api import execute as run_request

    console = Console(stderr=True)
    run = run_request(request, out=out, force=force, cache=not no_cache, refresh=refresh, progress=True,
                      log=lambda line: console.print(line, markup=False, highlight=False))
    Console().print(run.table())
    if out is None:
        console.print("not saved: pass --out FOLDER to keep a run folder")
    else:
        console.print(f"run folder: {out}", markup=False, highlight=False)

