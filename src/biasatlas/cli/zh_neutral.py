"""``biasatlas run zh-neutral`` and ``biasatlas zh-analyze``: the command-line faces of
:mod:`biasatlas.benchmarks.zh_neutral` and its :mod:`~biasatlas.benchmarks.zh_neutral.analysis`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

from ..request import EngineOptions, ModelOptions, RunRequest
from .options import (DeviceMap, Engine, RayAddress, WorkerCpus, WorkerGpus, Workers,
                      DEFAULT_MODEL, BatchSize, Device, Dtype, Force, Limit, Model, NoCache, Out, Refresh,
                      Revision, Sample, ScorerName, Seed, Trust, Variant, execute, input_file, parsed)

#: ``LOG_BASES`` and ``UNEQUAL_MASKS`` of :mod:`biasatlas.benchmarks.zh_neutral.benchmark`, as choices.
LogBase = Literal["e", "2", "10"]
UnequalMasks = Literal["skip", "compare"]


def run_zh_neutral(
    data: Annotated[Path | None, input_file(
        "Sentence set: candidates.jsonl from the miner, or CSV with sentence,keyword,offset,pair "
        "(default: the shipped demonstration set).")] = None,
    log_base: Annotated[LogBase, typer.Option(help="Base of the log in b = log(P(m)/P(f)).")] = "e",
    threshold: Annotated[float, typer.Option(
        min=0, help="Leaning threshold on b, in the chosen base (paper: 0.3).")] = 0.3,
    pair: Annotated[list[str] | None, typer.Option(
        help="Keep only this keyword pair, written male/female (repeatable), e.g. 男童/女童.")] = None,
    unequal_masks: Annotated[UnequalMasks, typer.Option(
        help="Masked LMs, when the two words get different token counts: skip (recorded) or compare.")] = "skip",
    topics: Annotated[int, typer.Option(min=0, help="Topic words per leaning subset and method (0: none).")] = 10,
    model: Model = DEFAULT_MODEL, scorer: ScorerName = "auto", variant: Variant = None,
    batch_size: BatchSize = "64", device: Device = "cpu", dtype: Dtype = "float32",
    revision: Revision = None, trust_remote_code: Trust = False, out: Out = None, limit: Limit = None,
    sample: Sample = None, seed: Seed = 0,
    no_cache: NoCache = False, refresh: Refresh = False, force: Force = False,
    device_map: DeviceMap = None, engine: Engine = "local", ray_address: RayAddress = None, workers: Workers = 1,
    worker_cpus: WorkerCpus = 1.0, worker_gpus: WorkerGpus = None,
) -> None:
    """Chinese gender-neutral sentences: masked log-ratio b (Zhao et al. 2021, SlguSet)."""
    options = {"data": data, "pairs": tuple(pair) if pair else None, "log_base": log_base, "threshold": threshold,
               "unequal_masks": unequal_masks, "limit": limit, "sample": sample, "seed": seed, "topics_k": topics}
    model_options = ModelOptions(model=model, scorer=scorer, variant=variant, batch_size=parsed(batch_size),
                                 device=device, dtype=dtype, revision=revision, trust_remote_code=trust_remote_code,
                                 device_map=device_map)
    engine_options = EngineOptions(engine=engine, ray_address=ray_address, workers=workers, worker_cpus=worker_cpus,
                                   worker_gpus=worker_gpus)
    execute(RunRequest("zh-neutral", options, model_options, engine_options), out, no_cache=no_cache, refresh=refresh,
            force=force)


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
