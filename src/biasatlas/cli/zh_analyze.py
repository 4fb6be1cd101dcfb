"""``biasatlas zh-analyze``: the command-line face of :mod:`biasatlas.benchmarks.zh_neutral.analysis`
(``biasatlas run zh-neutral`` is assembled from the benchmark's spec, in :mod:`.run`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def zh_analyze(
    runs: Annotated[list[Path], typer.Argument(help="zh-neutral run folders.")],
    pair: Annotated[str | None, typer.Option(help="Case study of one pair, e.g. 男童/女童.")] = None,
    topics: Annotated[bool, typer.Option("--topics", help="Topic words of the leaning subsets.")] = False,
    top_k: Annotated[int, typer.Option(help="How many topic words.")] = 10,
    show: Annotated[int, typer.Option(help="Sentences to print per leaning in the case study.")] = 5,
) -> None:
    """Correlate per-sentence b across runs; case study of a pair; topic words."""
    from rich.console import Console

    from ..errors import MissingInput
    from ..benchmarks.zh_neutral.analysis import case_study, correlate_runs, read_records, topics as topic_table

    if len(runs) < 2 and pair is None and not topics:
        raise MissingInput("nothing to do: give two or more run folders, --pair or --topics")
    console = Console()
    if len(runs) >= 2:
        console.print(_correlation_table(correlate_runs(runs)))
    for run in runs:
        records = read_records(run)
        if pair is not None:
            study = case_study(records, pair)
            console.print(f"[bold]{run}[/] · {study.pair}: n={study.n}, "
                          + ", ".join(f"{k} {v}" for k, v in study.counts.items()))
            for lean in ("male", "female"):
                for sentence in study.sentences[lean][:show]:
                    console.print(f"  {lean:<6} {sentence}")
        if topics:
            for lean, by_method in topic_table(records, top_k).items():
                for method, words in by_method.items():
                    console.print(f"[bold]{run}[/] · {lean} · {method}: " + " ".join(w for w, _ in words))


def _correlation_table(rows: list) -> object:
    from rich.table import Table

    table = Table(title="zh-neutral · per-sentence b across runs")
    for col in ("run a", "run b", "n", "Pearson r", "p", "Spearman ρ", "p"):
        table.add_column(col, justify="left" if col.startswith("run") else "right")
    for r in rows:
        table.add_row(r.a, r.b, str(r.n), f"{r.pearson:.3f}", f"{r.pearson_p:.2g}",
                      f"{r.spearman:.3f}", f"{r.spearman_p:.2g}")
    return table
