"""CrowS-Pairs as one :class:`~biasatlas.benchmarks.base.BenchmarkSpec` (``biasatlas.registry`` finds it here)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...lint import LintItem
from ..base import BenchmarkSpec
from ..sensitivity import Sensitivity, headline, preambles, variants
from .benchmark import CrowsPairs
from .groups import GROUP_PATTERNS, GROUP_WORDS
from .summary import COLUMNS, CrowsRunSummary
from .view import VIEW

#: The language of each shipped dataset (Nangia et al. 2020: English; Névéol et al. 2022:
#: French, and their revised English; Strazda & Spanakis 2025: Dutch).
DATASET_LANGUAGES = {"en": "English", "en-revised": "English", "en-revised+210": "English", "fr": "French",
                     "fr+210": "French", "nl": "Dutch"}


def lint_items(bench: CrowsPairs) -> list[LintItem]:
    """Each pair in use as stored (no lower-casing: the lint reads the file), with its line, and
    on the shipped English sets its bias type's group words (:mod:`.groups`: English words,
    so a French set or a file of the user's gets none, and no ``group-absent`` finding)."""
    english = language(bench) == "English"
    return [LintItem(p.id, p.line, {"sent_more": p.sent_more, "sent_less": p.sent_less},
                     group=GROUP_WORDS.get(p.bias_type, ()) if english else (),
                     group_pattern=GROUP_PATTERNS.get(p.bias_type, "") if english else "")
            for p in bench.load()]


def language(bench: CrowsPairs) -> str | None:
    """The shipped dataset's language; None for a file of the user's (``data``)."""
    return DATASET_LANGUAGES.get(str(bench.dataset)) if bench.data is None else None


def scorer_defaults(bench: CrowsPairs) -> Mapping[str, Any]:
    """A causal LM reads each sentence as lm-evaluation-harness 0.4.13 does, after its start
    token (an empty context: ``empty-context``, the same rows as ``always`` unless a sentence
    begins with that token)."""
    return {"start_token": "empty-context"}


#: The preambles' language code of each dataset language (:data:`~..sensitivity.NEUTRAL_PREAMBLES`).
_LANGUAGE_CODES = {"English": "en", "French": "fr", "Dutch": "nl"}

#: Sensitivity runs (docs/sensitivity.md): neutral preambles before both sentences, and the scorer's
#: other pair variants; an item's outcome is which sentence scores higher (more, less or tie).
SENSITIVITY = Sensitivity(
    kinds={"preambles": lambda bench, scorer: preambles(_LANGUAGE_CODES.get(language(bench) or "")),
           "rules": lambda bench, scorer: variants(scorer)},
    headlines=lambda s: (headline(s, "metric_score"),), outcome=lambda r: r.get("outcome"),
    outcome_phrase="which sentence scores higher")

SPEC = BenchmarkSpec(name="crows-pairs", factory=CrowsPairs, summary_type=CrowsRunSummary, columns=COLUMNS, view=VIEW,
                     label_keys=("variant",), lint_items=lint_items, scorer_defaults=scorer_defaults,
                     pairing_keys=(("bias_types", "bias types"), ("columns", "column mapping"),
                                   ("lowercase", "lowercase"), ("strip_whitespace", "strip-whitespace"),
                                   ("unicode_nfc", "unicode-nfc")),
                     description="CrowS-Pairs (Nangia et al. 2020; Névéol et al. 2022).", sensitivity=SENSITIVITY,
                     language=language, data_options=("dataset", "data"),
                     example={"dataset": "en", "limit": 6})
