"""``biasatlas run crows-pairs``: CrowS-Pairs from the command line."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .options import (DEFAULT_MODEL, BatchSize, Device, Dtype, Force, Limit, Model, NoCache, Out, Refresh,
                      Revision, ScorerName, ScorerOptions, Trust, Variant, execute)


def run_crows_pairs(
    dataset: Annotated[str, typer.Option(help="en | en-revised | en-revised+210 | fr | fr+210")] = "fr+210",
    data: Annotated[Path | None, typer.Option(help="A CrowS-Pairs CSV/TSV file instead of --dataset.")] = None,
    lowercase: Annotated[bool, typer.Option(
        help="Lower-case both sentences (the French paper did, for every model).")] = False,
    tie_decimals: Annotated[int, typer.Option(
        help="Round scores to this many decimals before comparing (reference: 3).")] = 3,
    model: Model = DEFAULT_MODEL, scorer: ScorerName = "auto", variant: Variant = None,
    batch_size: BatchSize = 64, device: Device = "cpu", dtype: Dtype = "float32",
    revision: Revision = None, trust_remote_code: Trust = False, out: Out = None, limit: Limit = None,
    no_cache: NoCache = False, refresh: Refresh = False, force: Force = False,
) -> None:
    """CrowS-Pairs (Nangia et al. 2020; Névéol et al. 2022)."""
    from ..benchmarks.crows_pairs import CrowsPairs

    bench = CrowsPairs(dataset=dataset, data=data, lowercase=lowercase, tie_decimals=tie_decimals, limit=limit)
    bench.load()  # a bad or missing file fails here, before the model loads
    execute(bench, ScorerOptions(model, scorer, variant, batch_size, device, dtype, revision,
                                 trust_remote_code), out, no_cache=no_cache, refresh=refresh, force=force)
