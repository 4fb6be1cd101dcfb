"""``biasatlas run crows-pairs``: CrowS-Pairs from the command line."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

from ..request import EngineOptions, ModelOptions, RunRequest
from .options import (DeviceMap, Engine, RayAddress, WorkerCpus, WorkerGpus, Workers,
                      DEFAULT_MODEL, BatchSize, Device, Dtype, Force, Limit, Model, NoCache, Out, Refresh,
                      Revision, Sample, ScorerName, Seed, Trust, Variant, execute, input_file, parsed)

#: ``biasatlas.benchmarks.crows_pairs.DATASETS``, as choices (the test table checks they agree).
Dataset = Literal["en", "en-revised", "en-revised+210", "fr", "fr+210"]


def run_crows_pairs(
    dataset: Annotated[Dataset, typer.Option(help="Shipped dataset (ignored with --data).")] = "fr+210",
    data: Annotated[Path | None, input_file("A CrowS-Pairs CSV/TSV file instead of --dataset.")] = None,
    lowercase: Annotated[bool, typer.Option(
        help="Lower-case both sentences (the French paper did, for every model).")] = False,
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
    options = {"dataset": dataset, "data": data, "lowercase": lowercase, "tie_decimals": tie_decimals,
               "limit": limit, "sample": sample, "seed": seed}
    model_options = ModelOptions(model=model, scorer=scorer, variant=variant, batch_size=parsed(batch_size),
                                 device=device, dtype=dtype, revision=revision, trust_remote_code=trust_remote_code,
                                 device_map=device_map)
    engine_options = EngineOptions(engine=engine, ray_address=ray_address, workers=workers, worker_cpus=worker_cpus,
                                   worker_gpus=worker_gpus)
    execute(RunRequest("crows-pairs", options, model_options, engine_options), out, no_cache=no_cache, refresh=refresh,
            force=force)
