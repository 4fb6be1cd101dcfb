"""GEST as one :class:`~biasatlas.benchmarks.base.BenchmarkSpec` (``biasatlas.registry`` finds it here)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..base import BenchmarkSpec
from .benchmark import Gest
from .summary import COLUMNS, GestRunSummary
from .view import VIEW



def scorer_defaults(bench: Gest) -> Mapping[str, Any]:
    """A causal LM reads the prompt as the authors' ``generative_score`` does, ``tokenizer(prompt)``:
    the tokenizer's own start (Llama, Mistral, Gemma add one; GPT-2 and Pythia none), no start
    token of ours (``empty-context``; the prompt is never empty)."""
    return {"start_token": "empty-context"}


SPEC = BenchmarkSpec(name="gest", factory=Gest, summary_type=GestRunSummary, columns=COLUMNS, view=VIEW,
                     pairing_keys=(("version", "version"), ("template", "template")),
                     language=lambda bench: "English", scorer_defaults=scorer_defaults, data_options=("version",),
                     description="GEST (Pikuliak et al. 2023): 16 gender stereotypes, male vs female reading of "
                                 "first-person sentences.",
                     example={"limit": 2})
