"""``biasatlas run A,B -m X,Y --out DIR``: several benchmarks on several models without a suite file
(lm-evaluation-harness's ``--tasks a,b``), run as the suite of that grid (:func:`biasatlas.suite.grid_suite`).

Each benchmark runs at its default options (a benchmark's own options need ``biasatlas run NAME``
or a suite file: ``DIR/suite.toml``, written here, is one to start from); the model and engine
flags are ``biasatlas run NAME``'s, given to every model; ``--model`` takes a comma-separated list.
"""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from typing import Annotated, Any

import typer

from .options import Force
from .parameters import ENGINE_PANEL, MODEL_PANEL, RUN_PANEL, click_command, parameter, record_parameter

GRID_HELP = ("Run each of these comma-separated benchmarks, at their default options, on each --model (a comma-"
             "separated list) into one folder, as a suite (docs/suites.md): one run folder per benchmark × model, "
             "report.html and leaderboard.md beside them, DIR/suite.toml to rerun or extend it.")


def build_grid_command(names: str) -> Any:
    """The click command of ``biasatlas run A,B``: the model and engine flags of one run, ``--out``
    (required) and ``--force``."""
    from ..registry import BENCHMARKS
    from ..request import EngineOptions, ModelOptions

    benchmarks = [n.strip() for n in names.split(",") if n.strip()]
    unknown = [n for n in benchmarks if n not in BENCHMARKS]
    if unknown:
        from ..errors import did_you_mean

        raise did_you_mean("benchmark", unknown[0], BENCHMARKS)
    out = Annotated[Path, typer.Option("--out", "-o", help="Folder of the grid's run folders.", metavar="<folder>")]
    parameters = [*(record_parameter(f, ModelOptions, MODEL_PANEL) for f in fields(ModelOptions)),
                  *(record_parameter(f, EngineOptions, ENGINE_PANEL) for f in fields(EngineOptions)),
                  parameter("out", out, ..., RUN_PANEL), parameter("force", Force, False, RUN_PANEL)]

    def command(**values: Any) -> None:
        _run(benchmarks, values)

    return click_command(names, command, parameters, GRID_HELP)


def _run(benchmarks: list[str], values: dict[str, Any]) -> None:
    from rich.console import Console

    from ..display.tables import to_rich
    from ..request import EngineOptions, ModelOptions
    from ..suite import grid_suite, run_suite

    if values.get("predictions") is not None:  # one file answers one benchmark's ids: never a grid's
        from ..errors import UsageError

        raise UsageError("--predictions scores one benchmark's saved answers: run it with biasatlas run NAME "
                         "--predictions FILE, one benchmark at a time")
    models = [m.strip() for m in str(values.pop("model")).split(",") if m.strip()]
    chosen = [f for f in (*fields(ModelOptions), *fields(EngineOptions)) if f.name != "model"]
    defaults = {f.name: values[f.name] for f in chosen if values[f.name] is not None and values[f.name] != f.default}
    if "batch_size" in defaults and str(defaults["batch_size"]) == str(ModelOptions.batch_size):
        del defaults["batch_size"]  # the flag's text default, not a choice
    console = Console(stderr=True)

    def say(line: str) -> None:
        console.print(line, markup=False, highlight=False, soft_wrap=True)

    suite = grid_suite(benchmarks, models, defaults, values["out"])
    say(f"{len(benchmarks)} benchmark(s) × {len(models)} model(s): {len(suite.cells)} runs into {values['out']}")
    result = run_suite(suite, values["out"], force=values["force"], log=say)
    printer = Console()
    for table in result.tables:
        printer.print(to_rich(table, width=printer.width))
    say(f"report: {result.report}")
    say(f"leaderboard: {result.leaderboard}")
