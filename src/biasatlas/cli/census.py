"""``biasatlas run census``: the census benchmark from the command line.

The GeBNLP 2022 method scored the first sub-token of each pronoun, so with
``--method gebnlp2022`` a masked-LM scorer is built with the ``first-token`` policy
unless ``--multi-token`` says otherwise; ``touileb2023`` masks every token of a filler
jointly by default. The census spec declares that policy (``scorer_defaults``), so
the Python API and this command agree.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from ..request import EngineOptions, ModelOptions, RunRequest
from .options import (DeviceMap, Engine, RayAddress, WorkerCpus, WorkerGpus, Workers,
                      DEFAULT_MODEL, BatchSize, Device, Dtype, Force, Limit, Model, NoCache, Out, Refresh,
                      Revision, Sample, ScorerName, Seed, Trust, Variant, execute, input_file, parsed)

# The census benchmark's closed sets (biasatlas.benchmarks.census), as choices; the test
# table checks that they agree with the library's.
Country = Literal["us", "uk", "fr", "no"]
Aggregation = Literal["mean-prob", "pooled", "mean-share", "majority"]
Normalisation = Literal["auto", "none", "template"]
Method = Literal["touileb2023", "gebnlp2022"]
TemplateSet = Literal["er", "jobber_som"]
MultiToken = Literal["joint", "first-token"]
Identifiers = Literal["paired", "all"]
CausalReading = Literal["auto", "conditional", "joint"]


def run_census(
    country: Annotated[Country, typer.Option(
        case_sensitive=False, help="Shipped census table; uk needs --census (not shipped).")] = "us",
    census: Annotated[Path | None, input_file(
        "Your own census CSV (columns occupation,female_pct) instead of the shipped table.")] = None,
    language: Annotated[str | None, typer.Option(
        help="Template language: en | fr | no, or a folder (default: the country's).")] = None,
    inflections: Annotated[Path | None, input_file(
        "Occupation forms CSV for --census tables (occupation,sg,pl,article for English).")] = None,
    aggregation: Annotated[Aggregation, typer.Option(
        help="How scores become a share (default mean-prob).")] = "mean-prob",
    normalisation: Annotated[Normalisation, typer.Option(
        help="auto: none for masked LMs, template for causal/seq2seq.")] = "auto",
    method: Annotated[Method, typer.Option(
        help="touileb2023 (EACL 2023) or gebnlp2022 (the Norwegian predecessor).")] = "touileb2023",
    template_set: Annotated[TemplateSet, typer.Option(help="gebnlp2022 only.")] = "jobber_som",
    multi_token: Annotated[MultiToken | None, typer.Option(
        help="Masked LMs (default: joint; first-token for gebnlp2022).")] = None,
    identifiers: Annotated[Identifiers, typer.Option(
        help="paired (default: every identifier with its other-gender twin, so a symmetric model "
             "scores 50) | all (the paper's Table 2 as printed: 15 female, 13 male in en/no).")] = "paired",
    causal_reading: Annotated[CausalReading, typer.Option(
        help="Causal/seq2seq LMs: conditional (auto's choice: log P(occupation | identifier + predicate)) "
             "| joint (log P(whole sentence), which includes each identifier's own prior).")] = "auto",
    preamble: Annotated[str, typer.Option(
        help="Text put before every sentence (a robustness check; default none).")] = "",
    skip_missing: Annotated[bool, typer.Option(
        help="Skip (and record) occupations without inflection forms instead of failing.")] = False,
    model: Model = DEFAULT_MODEL, scorer: ScorerName = "auto", variant: Variant = None,
    batch_size: BatchSize = "64", device: Device = "cpu", dtype: Dtype = "float32",
    revision: Revision = None, trust_remote_code: Trust = False, out: Out = None, limit: Limit = None,
    sample: Sample = None, seed: Seed = 0,
    no_cache: NoCache = False, refresh: Refresh = False, force: Force = False,
    device_map: DeviceMap = None, engine: Engine = "local", ray_address: RayAddress = None, workers: Workers = 1,
    worker_cpus: WorkerCpus = 1.0, worker_gpus: WorkerGpus = None,
) -> None:
    """Census occupational bias, normative and descriptive (Touileb et al. 2023)."""
    # Typer has checked each choice against its closed set; Census checks them again for the
    # Python API.
    choices: dict[str, Any] = {"aggregation": aggregation, "normalisation": normalisation,
                               "method": method, "template_set": template_set,
                               "identifiers": identifiers, "causal_reading": causal_reading}
    options: dict[str, Any] = {"country": country.lower(), "census": census, "language": language,
                               "inflections": inflections, "sample": sample, "seed": seed, "limit": limit,
                               "missing": "skip" if skip_missing else "error", "preamble": preamble, **choices}
    model_options = ModelOptions(model=model, scorer=scorer, variant=variant, batch_size=parsed(batch_size),
                                 device=device, dtype=dtype, revision=revision, trust_remote_code=trust_remote_code,
                                 multi_token=multi_token, device_map=device_map)
    engine_options = EngineOptions(engine=engine, ray_address=ray_address, workers=workers, worker_cpus=worker_cpus,
                                   worker_gpus=worker_gpus)
    execute(RunRequest("census", options, model_options, engine_options), out, no_cache=no_cache, refresh=refresh,
            force=force)
