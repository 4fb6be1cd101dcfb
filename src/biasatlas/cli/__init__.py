"""The ``biasatlas`` command: parse, call the library, render. Errors are translated once.

:func:`main` is the one error path: every failure ends in one ``error: …`` line (and at
most one hint line), never a traceback, with the exit status the error class carries
(``biasatlas.errors``: 2 for a usage mistake, 1 for a failure at run time). Anything else
is a bug and says so in one line; ``--debug`` shows the traceback. Ctrl-C exits 130.
"""

from __future__ import annotations

import sys
import traceback
from typing import Annotated, Any, NoReturn

import typer

from ..errors import BiasAtlasError
from .check_server import check_server_command
from .lint import LintGroup
from .mine import mine_command
from .options import PACKAGED_NOTES
from .report import compare_command, report_command
from .run import RunGroup, option_choices, plain_placeholders, with_default_data
from .suite import suite_command
from .zh_analyze import zh_analyze

# Every command module is light: each imports its library code (torch, the benchmarks)
# inside the command function, so `biasatlas --help` starts in a fraction of a second. The
# run commands are built from each benchmark's spec when first named (cli/run.py).
app = typer.Typer(help="Measure social bias in language models, exactly as the papers did.",
                  no_args_is_help=True, pretty_exceptions_enable=False)
run_app = typer.Typer(cls=RunGroup, help="Run a benchmark on a model and write a run folder; 'run A,B -m X,Y -o DIR' "
                      "runs several benchmarks on several models into one folder, as a suite.", no_args_is_help=True)
app.add_typer(run_app, name="run")
lint_app = typer.Typer(cls=LintGroup, help="Per-item findings on a benchmark's data (findings are not errors).",
                       no_args_is_help=True)
app.add_typer(lint_app, name="lint")
app.command("report")(report_command)
app.command("compare")(compare_command)
app.command("suite")(suite_command)
app.command("zh-analyze")(zh_analyze)
app.command("mine")(mine_command)
app.command("check-server")(check_server_command)

DEBUG_FLAG = "--debug"
INTERRUPTED = 130


def versions() -> str:
    """biasatlas's version and, when installed, torch's and transformers' (read from the
    installed metadata: nothing is imported)."""
    from importlib import metadata

    parts = []
    for name in ("biasatlas", "torch", "transformers"):
        try:
            parts.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            if name == "biasatlas":
                parts.append("biasatlas (not installed: run from a source tree)")
    return ", ".join(parts)


def _show_version(value: bool) -> None:
    if value:
        typer.echo(versions())
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[bool, typer.Option("--version", callback=_show_version, is_eager=True,
                                          help="Print the versions of biasatlas, torch and transformers.")] = False,
    debug: Annotated[bool, typer.Option(DEBUG_FLAG, help="Show the traceback of an error (anywhere on the "
                                        "command line).")] = False,
) -> None:
    """Measure social bias in language models, exactly as the papers did."""


@app.command("list")
def list_command() -> None:
    """Show benchmarks with the choices of their options (datasets, countries, splits …),
    scorers and their variants, and the packaged models with their install state."""
    from rich.console import Console
    from rich.table import Table

    from ..registry import SCORERS, benchmark_specs
    from ..scorers.inprocess.encoder import PACKAGED_ENCODERS, encoder_install_state
    from ..scorers.inprocess.packaged import install_state

    table = Table(title="biasatlas")
    table.add_column("kind")
    table.add_column("names")
    for spec in benchmark_specs():
        table.add_row(f"benchmark {spec.name}", with_default_data(spec))
        for flag, choices in option_choices(spec):
            table.add_row(f"  {flag}", ", ".join(map(str, choices)))
    for scorer, variants in ((spec.name, spec.variants) for spec in SCORERS.values()):
        served = ("; --model http://HOST:PORT/v1 [--served-model ID] [--served-api completions|chat] "
                  "(docs/serving.md)") if scorer == "served" else ""
        table.add_row(f"scorer {scorer}", "variants: " + ", ".join(variants) + served)
    for name, note in PACKAGED_NOTES.items():
        table.add_row(f"packaged model {name}", f"{note}; 4-bit quantised GGUF, dequantised once on first use; "
                      + install_state(name))
    for name in PACKAGED_ENCODERS:
        table.add_row(f"packaged encoder {name}", "sentence encoder (no MLM head) for seat --scorer encoder; "
                      + encoder_install_state(name))
    Console().print(table)


@app.command("model-folder")
def model_folder_command(
    name: Annotated[str, typer.Argument(help="A packaged model (biasatlas list names them).")],
) -> None:
    """Print the folder a packaged model is converted into, converting it first if it is not yet
    (once, about a minute): the folder to serve with vLLM (docs/serving.md) or to give lm-eval."""
    from ..scorers.inprocess.packaged import resolve_packaged_model

    print(resolve_packaged_model(name))


def main(argv: list[str] | None = None) -> NoReturn:
    """Entry point: run the app; every failure becomes one line and an exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    debug = _take_flag(args, DEBUG_FLAG)
    said: list[str] = []
    try:
        command = typer.main.get_command(app)
        plain_placeholders(command)
        _keep_interrupts(command, said)
        result = command.main(args=args, prog_name="biasatlas", standalone_mode=False)
    except BaseException as exc:  # noqa: BLE001 (the one place every failure is translated)
        sys.exit(_report(exc, args, debug))
    # In this mode typer returns the exit status of --help, --version and Ctrl-C (130).
    if result == INTERRUPTED:
        _error(next((s for s in reversed(said) if s), "interrupted"))
    sys.exit(result if isinstance(result, int) else 0)


def _keep_interrupts(command: Any, said: list[str]) -> None:
    """Keep what a Ctrl-C says (:class:`~biasatlas.errors.RunInterrupted`: the answers kept) in
    ``said``: typer turns the KeyboardInterrupt into exit status 130 and drops its message."""
    invoke = command.invoke

    def invoking(ctx: Any) -> Any:
        try:
            return invoke(ctx)
        except KeyboardInterrupt as exc:
            said.append(str(exc))
            raise
        except EOFError as exc:  # click turns it into an Abort: one blank line, no message, even with --debug
            raise _EndOfFile(exc) from exc

    command.invoke = invoking


class _EndOfFile(Exception):
    """An ``EOFError`` no library code translated (a bug), carried past click to :func:`_report`."""


def _take_flag(args: list[str], flag: str) -> bool:
    """Remove ``flag`` from ``args`` wherever it stands before ``--``; whether it was there."""
    end = args.index("--") if "--" in args else len(args)
    found = flag in args[:end]
    args[:end] = [a for a in args[:end] if a != flag]
    return found


def _report(exc: BaseException, args: list[str], debug: bool) -> int:
    """Print ``exc`` as the user should see it; the exit status."""
    if isinstance(exc, SystemExit):
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    if isinstance(exc, (typer.Exit, typer.Abort)):
        return int(getattr(exc, "exit_code", 1))
    if isinstance(exc, _EndOfFile) and isinstance(exc.__cause__, EOFError):
        exc = exc.__cause__  # said as the internal error it is, with its own traceback under --debug
    if debug:
        traceback.print_exception(exc)
    if isinstance(exc, KeyboardInterrupt):  # a run says what it kept (errors.RunInterrupted)
        _error(str(exc) or "interrupted")
        return INTERRUPTED
    if _is_click_error(exc):
        return _usage(exc, args)
    if isinstance(exc, BiasAtlasError):
        _error(f"error: {exc}")
        return exc.exit_code
    if _is_out_of_memory(exc):
        _error(f"error: out of memory ({_first_line(exc)})", "hint: try a smaller --batch-size")
        return 1
    if isinstance(exc, OSError):
        _error(f"error: {exc}")
        return 1
    _error(f"internal error: {type(exc).__name__}: {_first_line(exc)}"
           + ("" if debug else " (rerun with --debug for the traceback)"))
    return 1


def _usage(exc: Any, args: list[str]) -> int:
    """A click/typer usage error: its message, a hint naming the command's help, its status."""
    if type(exc).__name__ == "NoArgsIsHelpError":  # a bare group: its help is the answer
        exc.show()
        return int(exc.exit_code)
    message = exc.format_message().replace("Value error, ", "")
    message = message[:1].lower() + message[1:]  # "no such option …", as every other error line
    close = _closest_choice(exc, args)
    _error(f"error: {message}" + (f" Did you mean {close!r}?" if close else ""),
           f"hint: see '{_command_path(exc)} --help'")
    return int(exc.exit_code)


def _closest_choice(exc: Any, args: list[str]) -> str | None:
    """For a bad choice (``--aggregation pool``), the nearest allowed value."""
    import difflib

    param = getattr(exc, "param", None)
    choices = getattr(getattr(param, "type_descriptor", None), "choices", None)
    if not choices:
        return None
    given = _given_values(args, set(getattr(param, "opts", ())))
    allowed = [str(getattr(c, "value", c)) for c in choices]
    close = difflib.get_close_matches(given[-1], allowed, n=1) if given else []
    return close[0] if close else None


def _given_values(args: list[str], opts: set[str]) -> list[str]:
    """The values given on the command line to an option named any of ``opts``."""
    values = []
    for i, arg in enumerate(args):
        name, eq, value = arg.partition("=")
        if name in opts and (eq or i + 1 < len(args)):
            values.append(value if eq else args[i + 1])
    return values


def _command_path(exc: Any) -> str:
    ctx = getattr(exc, "ctx", None)
    return str(getattr(ctx, "command_path", "") or "biasatlas")


def _is_click_error(exc: BaseException) -> bool:
    """Click's exceptions, and typer's own copies of them (typer 0.20+ vendors click)."""
    import click

    vendored = tuple(k for k in typer.BadParameter.__mro__ if k.__name__ == "ClickException")
    return isinstance(exc, (click.ClickException, *vendored))


def _is_out_of_memory(exc: BaseException) -> bool:
    """Host or accelerator memory ran out (torch's OutOfMemoryError, without importing torch)."""
    return isinstance(exc, MemoryError) or any(k.__name__ == "OutOfMemoryError" for k in type(exc).__mro__)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else "(no message)"


def _error(*lines: str) -> None:
    for i, line in enumerate(lines):
        typer.secho(line, fg="red" if i == 0 else None, err=True)
