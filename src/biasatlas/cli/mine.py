"""``biasatlas mine``: a typer command function; the main CLI registers it.

Errors are not caught here: the library raises typed errors (DataError …) and the main
CLI translates them once, as for every other command.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Table

from ..mining.lexicon import DEFAULT_PAIRS, load_pairs
from ..mining.pipeline import MiningConfig, MiningReport, run_pipeline


class EngineChoice(StrEnum):
    local = "local"
    ray = "ray"


class FormatChoice(StrEnum):
    text = "text"
    jsonl = "jsonl"


def _file(help: str, *names: str) -> typer.models.OptionInfo:
    """An option naming an existing file."""
    return typer.Option(*names, help=help, exists=True, dir_okay=False)


def mine_command(
    corpus: Annotated[list[Path], _file("Corpus file (repeatable).", "--corpus")],
    out: Annotated[Path, typer.Option("--out", help="Output folder (reruns resume here).")],
    workers: Annotated[int, typer.Option(min=1, help="Local worker processes.")] = 1,
    engine: Annotated[EngineChoice, typer.Option(help="local processes or Ray Data.")] = EngineChoice.local,
    pairs: Annotated[Path | None, _file("Keyword pairs file, one 'male/female' a line.")] = None,
    format: Annotated[FormatChoice, typer.Option(
        "--format", help="text: a document per line; jsonl: a 'text' field per row.")] = FormatChoice.text,
    text_field: Annotated[str, typer.Option(help="JSONL field holding the text.")] = "text",
    min_len: Annotated[int, typer.Option(min=1, help="Shortest sentence kept (characters).")] = 10,
    max_len: Annotated[int, typer.Option(min=1, help="Longest sentence kept (characters).")] = 128,
    vocab: Annotated[Path | None, _file("Tokenizer vocab.txt for the coverage figure.")] = None,
    export_annotation: Annotated[bool, typer.Option(
        "--export-annotation", help="Write one CSV per annotator.")] = False,
    annotations: Annotated[list[Path] | None, _file(
        "Filled annotator CSV (repeat per annotator).", "--annotations")] = None,
    name_gold: Annotated[Path | None, _file("CoNLL BIO file: measure the name filter on it.")] = None,
    no_simplify: Annotated[bool, typer.Option(
        "--no-simplify", help="Skip traditional → simplified conversion.")] = False,
    shard_bytes: Annotated[int, typer.Option(
        min=1, help="Shard size in bytes (cut at line ends); a rerun reuses work only with the same size.",
    )] = MiningConfig.shard_bytes,
) -> MiningReport:
    """Mine gender-neutral candidate sentences from a raw Chinese corpus (SlguSet-style)."""
    config = MiningConfig(
        pairs=load_pairs(pairs) if pairs else DEFAULT_PAIRS, fmt=format.value,
        text_field=text_field, simplify=not no_simplify, min_len=min_len, max_len=max_len,
        workers=workers, engine=engine.value, vocab=vocab, export_annotation=export_annotation,
        annotations=tuple(annotations or ()), name_gold=name_gold,
        shard_bytes=shard_bytes)
    console = Console(stderr=True)
    with Progress(TextColumn("{task.description:<8}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=True) as bar:
        ids: dict[str, TaskID] = {}

        def progress(stage: str, done: int, total: int) -> None:
            if stage not in ids:
                ids[stage] = bar.add_task(stage, total=total)
            bar.update(ids[stage], completed=done)

        # through the bars' console, so a warning prints above the bars, not through them
        def warn(line: str) -> None:
            console.print(f"[yellow]warning:[/] {escape(line)}", soft_wrap=True)  # one line, however wide

        report = run_pipeline(corpus, out, config, progress, warn)
    _render(report, Console())
    return report


def _render(report: MiningReport, console: Console) -> None:
    table = Table(title=f"biasatlas mine → {report.out_dir}")
    for column in ("stage", "in", "out", "status"):
        table.add_column(column)
    for stage, counts in report.card["stages"].items():
        status = "reused" if stage in report.stages_skipped else "ran"
        table.add_row(stage, str(counts.get("in", "")), str(counts.get("out", "")), status)
    console.print(table)
    console.print(f"{report.n_candidates} candidate sentences → {report.candidates_path}")
    console.print(f"dataset card → {report.card_markdown}")
