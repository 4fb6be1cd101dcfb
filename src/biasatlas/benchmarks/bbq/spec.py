"""BBQ and its family as one :class:`~biasatlas.benchmarks.base.BenchmarkSpec` (the registry finds it here)."""

from __future__ import annotations

from typing import Any

from ...lint import LintItem
from ..base import BenchmarkSpec, Flag
from .benchmark import BBQ
from .data import CATEGORIES, DATASETS, LANGUAGE
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


_ALL_CATEGORIES = tuple(dict.fromkeys(c for cs in CATEGORIES.values() for c in cs))
SPEC = BenchmarkSpec(
    name="bbq", factory=BBQ, summary_type=BBQRunSummary, columns=COLUMNS, view=VIEW,
    pairing_keys=(("rule", "rule"), ("options", "options")), language=_language,
    data_options=("dataset", "category", "data"), lint_items=lint_items,
    description="BBQ (Parrish et al. 2022) and MBBQ, KoBBQ, CBBQ: accuracy, bias scores, abstention.",
    flags={"dataset": Flag("en (BBQ), mbbq-nl, mbbq-es, mbbq-tr, mbbq-en (MBBQ), kobbq (KoBBQ test), "
                           "cbbq (CBBQ gender).", choices=DATASETS),
           "category": Flag("One category of the dataset (default: all of them).", choices=_ALL_CATEGORIES),
           "data": Flag("A folder holding the dataset's files as upstream names them (.gz allowed) "
                        "instead of the pinned download."),
           "rule": Flag("How an option is scored: sum (log-likelihood, the paper's and lm-eval's), mean "
                        "(per token) or pmi (minus its log-likelihood after a content-free prompt)."),
           "options": Flag("3 (the item's options) or lm-eval (its 12: the two people and ten unknown strings; "
                           "en and mbbq-en)."),
           "control": Flag("MBBQ: also score the control set (names instead of group words).",
                           switch=(False, True)),
           "limit": Flag("Only the first N examples.", minimum=1),
           "sample": Flag("N examples drawn at random (seeded by --seed).", minimum=1)})
