"""``biasatlas run crows-pairs``: CrowS-Pairs from the command line."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

from ..api import ModelOptions
from .options import (DeviceMap, Engine, EngineOptions, RayAddress, WorkerCpus, WorkerGpus, Workers,
                      DEFAULT_MODEL, BatchSize, Device, Dtype, Force, Limit, Model, NoCache, Out, Refresh,
                      Revision, Sample, ScorerName, Seed, Trust, Variant, execute, input_file)

#: ``biasatlas.benchmarks.crows_pairs.DATASETS``, as choices (the test table checks they agree).
Dataset = Literal["en", "en-revised", "en-revised+210", "fr", "fr+210"]


def run_crows_pairs(
    dataset: Annotated[Dataset, typer.Option(help="Shipped dataset (ignored with --data).")] = "fr+210",
    data: Annotated[Path | None, input_file("A CrowS-Pairs CSV/TSV file instead of --dataset.")] = None,
    lowercase: Annotated[bool, typer.Option(
        help="Lower-case both sentences (the French script does, for every model but RoBERTa).")] = False,
    strip_whitespace: Annotated[bool, typer.Option(
        help="Trim edge whitespace from each sentence (the original scripts score the text as stored).")] = False,
    unicode_nfc: Annotated[bool, typer.Option(
        help="NFC-normalise each sentence (the original scripts do not).")] = False,
    tie_decimals: Annotated[int, typer.Option(
        min=0, help="Round scores to this many decimals before comparing (reference: 3).")] = 3,
    model: Model = DEFAULT_MODEL, scorer: ScorerName = "auto", variant: Variant = None,
    batch_size: BatchSize = "64", device: Device = "cpu", dtype: Dtype = "float32",
    revision: Revision = None, trust_remote_code: Trust = False, out: Out = None, limit: Limit = None,
    sample: Sample = None, seed: Seed = 0,
    no_cache: NoCache = False, refresh: Refresh = False, force: Force = False,
    device_map: DeviceMap = None, engine: Engine = "local", ray_address: RayAddress = None, workers: Workers = 1,
    worker_cpus: WorkerCpus = 1.0, worker_gpus: WorkerGpus = None,
) -> None:
    """CrowS-Pairs (Nangia et al. 2020; Névéol et al. 2022)."""
    from ..benchmarks.crows_pairs import CrowsPairs

    bench = CrowsPairs(dataset=dataset, data=data, lowercase=lowercase, strip_whitespace=strip_whitespace,
                       unicode_nfc=unicode_nfc, tie_decimals=tie_decimals, limit=limit, sample=sample, seed=seed)
    execute(bench, ModelOptions(model, scorer, variant, batch_size, device, dtype, revision,
                                trust_remote_code,
                                device_map=device_map), out,
            engine=EngineOptions(engine, ray_address, workers, worker_cpus, worker_gpus),
            no_cache=no_cache, refresh=refresh, force=force)
