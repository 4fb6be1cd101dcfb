"""``biasatlas lint NAME``: the per-item findings of :mod:`biasatlas.lint` on a benchmark's data.

One command per benchmark whose spec can lint its items (``lint_items``), with that benchmark's
own data flags (``--dataset``, ``--data``, ``--columns``, ``--limit`` …) built as ``run NAME``
builds them, so ``lint`` reads exactly the items a run would score. Findings are not errors:
the command prints the count per rule and exits 0; ``--out`` writes every finding as JSON Lines.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from .parameters import click_command
from .run import _Commands, benchmark_parameters, benchmark_values


class LintGroup(TyperGroup):
    """``biasatlas lint``: a command per benchmark that can lint its data, built on first use."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.commands = _Commands(build_lint_command, lints=True)  # type: ignore[assignment]  # read as a dict


MaxTokens = Annotated[int, typer.Option(min=0, help="A pair changing more tokens than this is an edit-tokens "
                                        "finding (lower-cased words and punctuation).", metavar="<N>")]
Findings = Annotated[Path | None, typer.Option("--out", "-o", help="Write every finding to this JSON Lines file.",
                                               metavar="<file>")]


def build_lint_command(name: str) -> Any:
    """The click command of ``biasatlas lint NAME``: the benchmark's options, ``--max-tokens``, ``--out``."""
    from ..lint import DEFAULT_MAX_TOKENS
    from ..registry import benchmark_spec

    spec = benchmark_spec(name)
    extra = [inspect.Parameter("max_tokens", inspect.Parameter.KEYWORD_ONLY, default=DEFAULT_MAX_TOKENS,
                               annotation=MaxTokens),
             inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=Findings)]

    def command(**values: Any) -> None:
        _lint(spec, values)

    return click_command(name, command, [*benchmark_parameters(spec), *extra],
                         f"Per-item data findings for {name}: identical texts, edits beyond one span, the group "
                         "term absent, brackets, encoding damage, duplicates (docs/lint.md).")


def _lint(spec: Any, values: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    from ..atomic import atomic_write
    from ..lint import counts, flagged, lint
    from ..outputs import LEDGER, check_output, record_output
    from ..textfiles import json_line

    max_tokens, out = values.pop("max_tokens"), values.pop("out")
    options = benchmark_values(spec, values)
    bench = spec.factory(**options)
    if out is not None:  # never over the data it reads, a run's file, or a file biasatlas did not write
        check_output(out, "lint", inputs=_inputs(bench, options))
    items = spec.lint_items(bench)
    findings = lint(items, max_tokens=max_tokens)
    table = Table(title=f"{spec.name} lint: {len(flagged(findings)):,} of {len(items):,} items with a finding")
    for column in ("rule", "items", "share", "first"):
        table.add_column(column, justify="right" if column in ("items", "share") else "left", no_wrap=True)
    for rule, n in counts(findings).items():
        first = next((f for f in findings if f.rule == rule), None)
        where = "" if first is None else f"{first.id}" + (f" (line {first.line})" if first.line else "")
        table.add_row(rule, f"{n:,}", f"{100 * n / len(items):.1f} %" if items else "–", where)
    Console().print(table)
    if out is not None:
        atomic_write(out, "".join(json_line(f.as_dict()) + "\n" for f in findings))
        if not record_output(out, "lint"):  # recorded: ours to replace on a rerun
            typer.secho(f"warning: could not record {out} in {out.parent / LEDGER}: a rerun "
                        "will not replace it", fg="yellow", err=True)
        typer.echo(f"findings: {out} ({len(findings):,})", err=True)


def _inputs(bench: Any, options: dict[str, Any]) -> list[Path]:
    """The files the lint reads: the paths given as options (``--data``) and those the benchmark's
    config records with their sha256 (the shipped dataset's file)."""
    from ..runs.folder import recorded_inputs

    given = [Path(v) for v in options.values() if isinstance(v, Path)]
    return given + recorded_inputs(bench.config())
