"""What the run commands (:mod:`.run`) and ``biasatlas suite`` share: the run's own flags, the
packaged models' notes, ``--batch-size``'s parser, and the calls that run a request and print it.

A run's model and engine flags are not declared here: they are the fields of
:class:`~biasatlas.request.ModelOptions` and :class:`~biasatlas.request.EngineOptions`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

from ..request import DEFAULT_MODEL, RunRequest
from ..scorers.inprocess.packaged import PACKAGED_MODELS
from ..values import BatchSize, check_batch_size

#: What each packaged model is, for ``--help`` and ``biasatlas list``: both are 4-bit
#: quantised GGUF files, dequantised to float32 once on first use, and one is a chat model.
PACKAGED_NOTES: dict[str, str] = {name: spec.summary + (", default" if name == DEFAULT_MODEL else "")
                                  for name, spec in PACKAGED_MODELS.items()}


def batch_size(text: str) -> BatchSize:
    """``--batch-size``: the text read as a number where it is digits, then the one check of a
    batch size (:func:`~biasatlas.values.check_batch_size`), as a usage error."""
    from ..errors import UsageError

    word = text.strip()
    try:
        return check_batch_size(int(word) if word.isdigit() else word)
    except UsageError as exc:
        raise typer.BadParameter(str(exc)) from None


Out = Annotated[Path | None, typer.Option("--out", "-o", help="Run folder to write.", metavar="<folder>")]
NoCache = Annotated[bool, typer.Option("--no-cache", help="Neither read nor write the score cache.")]
Refresh = Annotated[bool, typer.Option("--refresh", help="Rescore everything and overwrite cached scores.")]
Label = Annotated[str | None, typer.Option(help="The run's name in reports (default: the model's; a local "
                                           "folder's base name).", metavar="<name>")]
ExcludeFlagged = Annotated[bool, typer.Option("--exclude-flagged", help="Score only the items 'biasatlas lint' "
                                              "finds nothing on (the clean subset; recorded, never paired with "
                                              "a full run).")]
#: ``--sensitivity`` choices: :data:`biasatlas.benchmarks.sensitivity.KINDS` (a test keeps them equal; a
#: literal here keeps ``--help`` light). Each benchmark offers those its spec declares.
SensitivityKind = Literal["preambles", "paraphrases", "rules", "orders", "templates"]
Sensitivity = Annotated[SensitivityKind | None, typer.Option(
    "--sensitivity", help="Also score the items under the benchmark's named perturbations of this kind (each "
    "a run folder under --out, with sensitivity.json): the spread of the headline numbers and the share of "
    "items whose outcome flips (docs/sensitivity.md).", show_default=False)]
Force = Annotated[bool, typer.Option("--force", help="Replace the run in --out when its settings differ "
                                     "(a folder that is not a run folder is never replaced).")]


def run_and_print(request: RunRequest, out: Path | None, *, no_cache: bool = False, refresh: bool = False,
                  force: bool = False, label: str | None = None) -> None:
    """Run ``request`` through :func:`biasatlas.api.execute` (the score cache unless ``no_cache``), print
    the table and where the run folder is.

    The API claims ``--out`` before the model loads, so a wrong ``--out`` fails in a second,
    not after the scoring. Without ``--out`` nothing is written, and a line says so.
    """
    from rich.console import Console

    from ..api import execute

    console = Console(stderr=True)

    def say(line: str) -> None:  # soft_wrap: one line each, wrapped by the terminal, never cut by rich
        console.print(line, markup=False, highlight=False, soft_wrap=True)

    run = execute(request, out=out, force=force, cache=not no_cache, refresh=refresh, progress=True, log=say,
                  label=label)
    Console().print(run.table())
    lint = run.summary_dict.get("lint")
    if isinstance(lint, dict) and lint.get("flagged"):
        what = "left out" if lint.get("excluded") else "scored; --exclude-flagged leaves them out"
        say(f"data lint: {lint['flagged']:,} of {lint.get('items', 0):,} items carry a finding ({what}; "
            f"biasatlas lint {run.benchmark} lists them)")
    from ..display.controls import terminal_lines

    for line in terminal_lines(run.headlines()):  # each headline beside its controls, a failed one FLAGGED
        Console().print(line, markup=False, highlight=False, soft_wrap=True)
    if out is None:
        console.print("not saved: pass --out FOLDER to keep a run folder")
    else:
        console.print(f"run folder: {out}", markup=False, highlight=False)


def run_sensitivity_and_print(request: RunRequest, kind: str, out: Path | None, *, no_cache: bool = False,
                              refresh: bool = False, force: bool = False, label: str | None = None) -> None:
    """Run ``request`` under ``kind``'s perturbations (:func:`biasatlas.sensitivity.run`) and print its
    tables, then where they are saved."""
    from rich.console import Console

    from ..display.tables import to_rich
    from ..sensitivity import SENSITIVITY_FILE, run, tables

    console = Console(stderr=True)

    def say(line: str) -> None:
        console.print(line, markup=False, highlight=False, soft_wrap=True)

    result = run(request, kind, out=out, cache=not no_cache, refresh=refresh, force=force, progress=True, log=say,
                 label=label)
    out_console = Console()
    for table in tables(result):
        out_console.print(to_rich(table, width=out_console.width))  # narrowed or stacked, never cut
    if out is None:
        console.print("not saved: pass --out FOLDER to keep the run folders and sensitivity.json")
    else:
        console.print(f"sensitivity: {out / SENSITIVITY_FILE} (each run in a subfolder)", markup=False,
                      highlight=False)
