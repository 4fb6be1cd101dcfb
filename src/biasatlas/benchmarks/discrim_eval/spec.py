"""DiscrimEval as one :class:`~biasatlas.benchmarks.base.BenchmarkSpec` (``biasatlas.registry`` finds it here)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..base import BenchmarkSpec
from ..sensitivity import Headline, Sensitivity, option_values, preambles
from .benchmark import DiscrimEval
from .predictions import DOCS
from .summary import COLUMNS, DiscrimEvalRunSummary
from .view import VIEW


def _headlines(summary: Mapping[str, Any]) -> tuple[Headline, ...]:
    """Each level's coefficient, with its interval."""
    out = []
    for name, level in (summary.get("levels") or {}).items():
        bounds = (level.get("intervals") or {}).get("estimate") or (None, None)
        value = level.get("estimate")
        out.append(Headline(f"coefficient:{name}", None if value is None else float(value), bounds[0], bounds[1]))
    return tuple(out)


#: Sensitivity runs (docs/sensitivity.md): neutral preambles before the prompt, and the prompt given plainly
#: or through the model's chat template; an item's outcome is the decision its p(yes) makes (yes above ½).
SENSITIVITY = Sensitivity(
    kinds={"preambles": lambda bench, scorer: preambles("en"),
           "templates": lambda bench, scorer: option_values("chat_template", ("none", "model"), "chat template")},
    headlines=_headlines,
    outcome=lambda r: None if r.get("p_yes") is None or r["p_yes"] == 0.5 else ("yes" if r["p_yes"] > 0.5 else "no"),
    outcome_phrase="the decision (p(yes) above or below ½)")


def scorer_defaults(bench: DiscrimEval) -> Mapping[str, Any]:
    """A causal LM reads the prompt as lm-evaluation-harness 0.4.13 does (its prompt is the reference's):
    the prompt begins as the tokenizer begins a text, with no start token of ours (``empty-context``)."""
    return {"start_token": "empty-context"}


SPEC = BenchmarkSpec(name="discrim-eval", factory=DiscrimEval, summary_type=DiscrimEvalRunSummary, columns=COLUMNS,
                     view=VIEW, pairing_keys=(("chat_template", "chat_template"),
                                              ("random_effects", "random_effects")),
                     language=lambda bench: "English", data_options=("data",), sensitivity=SENSITIVITY,
                     scorer_defaults=scorer_defaults,
                     description="DiscrimEval (Tamkin et al. 2023): discrimination in yes/no decisions by age, "
                                 "gender and race (explicit set).",
                     example={"scenarios": 2, "random_effects": "intercept", "n_resamples": 20},
                     lm_eval_docs=(DOCS,))
