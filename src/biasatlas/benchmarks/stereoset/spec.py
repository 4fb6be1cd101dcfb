"""StereoSet as one :class:`~biasatlas.benchmarks.base.BenchmarkSpec` (``biasatlas.registry`` finds it here)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...lint import LintItem
from ..base import BenchmarkSpec
from ..sensitivity import Sensitivity, headline, option_values, preambles
from .benchmark import StereoSet
from .summary import COLUMNS, StereoSetRunSummary
from .view import VIEW


def lint_items(bench: StereoSet) -> list[LintItem]:
    """Intrasentence examples as pairs (the stereotype against the anti-stereotype: they should
    differ in the word that fills the blank only), intersentence ones as three choices; each
    with its target term, which its context should hold (``group-absent``)."""
    out = []
    for example in bench.load():
        target, context = (example.target.lower(),), ("context", example.context)
        if example.task == "intrasentence":
            texts = {label: example.by_label(label).sentence for label in ("stereotype", "anti-stereotype")}
            out.append(LintItem(example.id, None, texts, group=target, group_in=context))
        else:
            out.append(LintItem(example.id, None, {c.gold_label: c.sentence for c in example.candidates}, "choice",
                                group=target, group_in=context))
    return out


def scorer_defaults(bench: StereoSet) -> Mapping[str, Any]:
    """A masked LM reads intrasentence fillers by the original's reveal loop unless the run says
    otherwise (``--multi-token joint`` or ``first-token``); a causal LM reads a sentence's first
    token after the start token alone and the rest without it, as the original's GPT-2 runner
    (``first-only``)."""
    return {"multi_token": "reveal", "start_token": "first-only"}


#: Sensitivity runs (docs/sensitivity.md): neutral preambles before every text (the context too), and
#: the other length rule; an item's outcome is whether the stereotype outranks the anti-stereotype.
SENSITIVITY = Sensitivity(
    kinds={"preambles": lambda bench, scorer: preambles("en" if bench.data is None else None),
           "rules": lambda bench, scorer: option_values("length", ("mean", "sum"), "per-sentence score")},
    headlines=lambda s: tuple(headline(s, k) for k in ("ss", "lms", "icat")),
    outcome=lambda r: r.get("stereotype_preferred"), outcome_phrase="whether the stereotype outranks the "
    "anti-stereotype")

SPEC = BenchmarkSpec(name="stereoset", factory=StereoSet, summary_type=StereoSetRunSummary, columns=COLUMNS, view=VIEW,
                     pairing_keys=(("length", "length"),), label_keys=("reading",), lint_items=lint_items,
                     scorer_defaults=scorer_defaults,
                     description="StereoSet (Nadeem, Bethke & Reddy 2021): SS, LMS and ICAT.", sensitivity=SENSITIVITY,
                     example={"limit": 2})
