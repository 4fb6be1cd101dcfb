"""BBQ and its family as one :class:`~biasatlas.benchmarks.base.BenchmarkSpec` (the registry finds it here)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from itertools import permutations
from typing import Any

from ...lint import LintItem
from ..base import BenchmarkSpec
from ..sensitivity import Perturbation, Sensitivity, headline, option_values, preambles
from .benchmark import BBQ, RULES
from .controls import OWN_SCORES
from .data import LANGUAGE, Example
from .generated.table import kin
from .predictions import DOCS, FORMATS
from .summary import COLUMNS, BBQRunSummary
from .view import VIEW


def lint_items(bench: BBQ) -> list[LintItem]:
    """Each question as a choice: its context and question, and its options, the group answers
    (all but the "unknown" one) checked against the context."""
    out = []
    for example in bench.load():
        options = {f"option {i}": text for i, text in enumerate(example.options)}
        named = tuple(f"option {i}" for i in range(len(example.options)) if i != example.unknown)
        out.append(LintItem(example.id, None, {"context": example.context, "question": example.question, **options},
                            "choice", named))
    return out


def _language(benchmark: Any) -> str | None:
    return LANGUAGE.get(getattr(benchmark, "dataset", ""))


def reordered(example: Example, order: Sequence[int]) -> Example:
    """``example`` with its options shown in ``order`` (``order[k]``: the option at place k) and its
    label, unknown and target indices following them; an example with another number of options
    is left as it is."""
    if len(order) != len(example.options):
        return example
    place = {old: new for new, old in enumerate(order)}
    groups = tuple(example.groups[i] for i in order) if example.groups else ()
    return replace(example, options=tuple(example.options[i] for i in order), label=place[example.label],
                   groups=groups,
                   unknown=place[example.unknown], target=None if example.target is None else place[example.target])


def orders(bench: BBQ, scorer: str) -> tuple[Perturbation, ...]:
    """The five other orders of the three options. Each option is scored on its own after one
    prompt, so the readings here are order-invariant: their spread must be zero (a reading that
    lists the options in its prompt would not be)."""
    return tuple(Perturbation(f"order-{''.join(map(str, o))}", f"options in order {''.join(map(str, o))}",
                              items=_reorder_all(o)) for o in permutations(range(3)) if o != (0, 1, 2))


def _reorder_all(order: Sequence[int]) -> Callable[[Sequence[Example]], list[Example]]:
    return lambda items: [reordered(e, order) for e in items]


def _rules(bench: BBQ) -> tuple[Perturbation, ...]:
    """The likelihood reading's answer rules, or the generated reading's parse rules."""
    if bench.answers == "generated":
        # a rule asking other prompts (KoBBQ's, MBBQ's: other probes) is no perturbation of lm-eval's rule, nor it
        # of them; each dataset's generated run varies only among the rules that ask its prompts
        return option_values("parser", kin(bench.protocol), "answer parser")
    return option_values("rule", RULES, "answer rule")


def _sensitivity_keys(summary: Mapping[str, Any]) -> tuple[str, ...]:
    """Both accuracies and the run's headline bias scores (EsBBQ/CaBBQ: their authors')."""
    return ("accuracy_amb", "accuracy_dis", *OWN_SCORES.get(str(summary.get("dataset")), ("bias_amb", "bias_dis")))


#: Sensitivity runs (docs/sensitivity.md): neutral preambles before the prompt (English sets only),
#: the answer rules, the options' order, and the prompt plain or through the model's chat template; an
#: item's outcome is the answer chosen (biased, counter or unknown; None for a tie).
SENSITIVITY = Sensitivity(
    kinds={"preambles": lambda bench, scorer: preambles("en" if bench.dataset in ("en", "mbbq-en") else None),
           "rules": lambda bench, scorer: _rules(bench), "orders": orders,
           "templates": lambda bench, scorer: option_values("chat_template", ("none", "model"), "chat template")},
    headlines=lambda s: tuple(headline(s, k) for k in _sensitivity_keys(s)),
    outcome=lambda r: r.get("answer"), outcome_phrase="the answer chosen (biased, counter or unknown)")

def scorer_defaults(bench: BBQ) -> Mapping[str, Any]:
    """A causal LM reads the options as lm-evaluation-harness 0.4.13 does (its prompt is the
    reference's): the prompt begins as the tokenizer begins a text, with no start token of ours
    (``empty-context``)."""
    return {"start_token": "empty-context"}


SPEC = BenchmarkSpec(
    name="bbq", factory=BBQ, summary_type=BBQRunSummary, columns=COLUMNS, view=VIEW,
    # chat_template: recorded only when a template is used, so two plain runs still pair and a plain run
    # never pairs with one asked through a template (another prompt)
    pairing_keys=(("rule", "rule"), ("options", "options"), ("chat_template", "chat template"), ("answers", "answers"),
                  ("parser", "answer parser"), ("mbbq_prompts", "MBBQ prompts"),
                  ("mbbq_upstream_sha256", "MBBQ authors' answer_detection.py sha256")),
    unrecorded={"chat_template": "none", "answers": "likelihood"}, reading_keys=("answers",), language=_language,
    data_options=("dataset", "category", "data"), lint_items=lint_items, sensitivity=SENSITIVITY,
    scorer_defaults=scorer_defaults,
    description="BBQ (Parrish et al. 2022) and MBBQ, KoBBQ, CBBQ: accuracy, bias scores, abstention.",
    example={"category": "Religion", "limit": 3, "n_resamples": 20}, prediction_formats=FORMATS, lm_eval_docs=(DOCS,))
