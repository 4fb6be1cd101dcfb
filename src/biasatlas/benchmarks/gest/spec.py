"""GEST as one :class:`~biasatlas.benchmarks.base.BenchmarkSpec` (``biasatlas.registry`` finds it here)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...lint import LintItem
from ..base import BenchmarkSpec
from .benchmark import Gest
from .predictions import FORMAT
from .summary import COLUMNS, GestRunSummary
from .view import VIEW



def scorer_defaults(bench: Gest) -> Mapping[str, Any]:
    """A causal LM reads the prompt as the authors' ``generative_score`` does, ``tokenizer(prompt)``:
    the tokenizer's own start (Llama, Mistral, Gemma add one; GPT-2 and Pythia none), no start
    token of ours (``empty-context``; the prompt is never empty)."""
    return {"start_token": "empty-context"}


def lint_items(bench: Gest) -> list[LintItem]:
    """Each sentence in use as one text (a ``choice`` of one option: no pair rules apply), with its
    line: the lint's text rules (brackets, encoding) and its duplicates (10 in v1, 11 in v1.1)."""
    return [LintItem(s.id, s.line, {"sentence": s.text}, kind="choice") for s in bench.load()]


SPEC = BenchmarkSpec(name="gest", factory=Gest, summary_type=GestRunSummary, columns=COLUMNS, view=VIEW,
                     pairing_keys=(("version", "version"), ("template", "template")),
                     language=lambda bench: "English", scorer_defaults=scorer_defaults,
                     lint_items=lint_items, data_options=("version",),
                     description="GEST (Pikuliak et al. 2023): 16 gender stereotypes, male vs female reading of "
                                 "first-person sentences.",
                     example={"limit": 2}, prediction_formats=(FORMAT,))
