"""``biasatlas run census``: the census benchmark from the command line.

The GeBNLP 2022 method scored the first sub-token of each pronoun, so with
``--method gebnlp2022`` a masked-LM scorer is built with the ``first-token`` policy
unless ``--multi-token`` says otherwise; ``touileb2023`` masks every token of a filler
jointly by default.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from .options import (DEFAULT_MODEL, BatchSize, Device, Dtype, Force, Limit, Model, NoCache, Out,
                            Refresh, Revision, ScorerName, ScorerOptions, Trust, Variant, execute)


@dataclass(frozen=True)
class CensusScorerOptions(ScorerOptions):
    """The shared scorer options plus the masked-LM multi-token policy."""

    multi_token: str | None = None

    def build(self) -> Any:
        from ..registry import load_scorer, scorer_kind

        kind = self.scorer if self.scorer != "auto" else scorer_kind(
            self.model, trust_remote_code=self.trust_remote_code, revision=self.revision)
        if kind != "masked-lm" or self.multi_token is None:
            return super().build()
        return load_scorer(self.model, kind, variant=self.variant, batch_size=self.batch_size,
                           device=self.device, dtype=self.dtype, revision=self.revision,
                           trust_remote_code=self.trust_remote_code, multi_token=self.multi_token)


def run_census(
    country: Annotated[str, typer.Option(help="us | uk | fr | no. uk needs --census (not shipped).")] = "us",
    census: Annotated[Path | None, typer.Option(
        help="Your own census CSV (columns occupation,female_pct) instead of the shipped table.")] = None,
    language: Annotated[str | None, typer.Option(
        help="Template language: en | fr | no, or a folder (default: the country's).")] = None,
    inflections: Annotated[Path | None, typer.Option(
        help="Occupation forms CSV for --census tables (occupation,sg,pl,article for English).")] = None,
    sample: Annotated[int | None, typer.Option(min=1, help="Score N occupations drawn at random (seeded).")] = None,
    seed: Annotated[int, typer.Option(help="Seed of --sample and of the bootstrap intervals.")] = 0,
    aggregation: Annotated[str, typer.Option(
        help="mean-prob (default) | pooled | mean-share | majority: how scores become a share.")] = "mean-prob",
    normalisation: Annotated[str, typer.Option(
        help="auto (none for masked LMs, template for causal/seq2seq) | none | template.")] = "auto",
    method: Annotated[str, typer.Option(
        help="touileb2023 (EACL 2023) | gebnlp2022 (the Norwegian predecessor).")] = "touileb2023",
    template_set: Annotated[str, typer.Option(help="gebnlp2022 only: er | jobber_som.")] = "jobber_som",
    multi_token: Annotated[str | None, typer.Option(
        help="Masked LMs: joint | first-token (default: joint; first-token for gebnlp2022).")] = None,
    identifiers: Annotated[str, typer.Option(
        help="paired (default: every identifier with its other-gender twin, so a symmetric model "
             "scores 50) | all (the paper's Table 2 as printed: 15 female, 13 male in en/no).")] = "paired",
    causal_reading: Annotated[str, typer.Option(
        help="Causal/seq2seq LMs: conditional (default: log P(occupation | identifier + predicate)) "
             "| joint (log P(whole sentence), which includes each identifier's own prior).")] = "auto",
    preamble: Annotated[str, typer.Option(
        help="Text put before every sentence (a robustness check; default none).")] = "",
    skip_missing: Annotated[bool, typer.Option(
        help="Skip (and record) occupations without inflection forms instead of failing.")] = False,
    model: Model = DEFAULT_MODEL, scorer: ScorerName = "auto", variant: Variant = None,
    batch_size: BatchSize = 64, device: Device = "cpu", dtype: Dtype = "float32",
    revision: Revision = None, trust_remote_code: Trust = False, out: Out = None, limit: Limit = None,
    no_cache: NoCache = False, refresh: Refresh = False, force: Force = False,
) -> None:
    """Census occupational bias, normative and descriptive (Touileb et al. 2023)."""
    from ..benchmarks.census.benchmark import Census

    # Typer hands over plain strings; Census checks each against its closed set, naming the
    # choices ("did you mean"), so they pass through untyped here.
    choices: dict[str, Any] = {"aggregation": aggregation, "normalisation": normalisation,
                               "method": method, "template_set": template_set,
                               "identifiers": identifiers, "causal_reading": causal_reading}
    bench = Census(country=country.lower(), census=census, language=language, inflections=inflections,
                   sample=sample, seed=seed, limit=limit, missing="skip" if skip_missing else "error",
                   preamble=preamble, **choices)
    bench.load()  # a bad table, country or missing form fails here, before the model loads
    policy = multi_token or ("first-token" if method == "gebnlp2022" else None)
    execute(bench, CensusScorerOptions(model, scorer, variant, batch_size, device, dtype, revision,
                                       trust_remote_code, multi_token=policy), out,
            no_cache=no_cache, refresh=refresh, force=force)
