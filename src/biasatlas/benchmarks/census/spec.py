"""The census benchmark as one :class:`~biasatlas.benchmarks.base.BenchmarkSpec` (``biasatlas.registry``
finds it here)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..base import BenchmarkSpec
from ..sensitivity import Perturbation, Sensitivity, headline, option_values, preambles
from .benchmark import Census
from .paraphrases import paraphrases
from .summary import COLUMNS, CensusRunSummary
from .view import VIEW

#: Census methods scored, as published, on the first sub-token of each filler: GeBNLP 2022
#: (Touileb, Øvrelid & Velldal 2022) masked one token per pronoun and Bartl et al. (2020)
#: read the person word's first word piece at one mask, so a masked LM runs with
#: the ``first-token`` policy there unless the run's ``multi_token`` says otherwise.
FIRST_TOKEN_METHODS: frozenset[str] = frozenset({"gebnlp2022", "bartl2020"})
#: The shipped template languages by name (a template folder of the user's shows as given).
LANGUAGE_NAMES = {"en": "English", "fr": "French", "no": "Norwegian", "de": "German"}


def language(census: Census) -> str:
    """The templates' language: the country's, or the one ``language`` names."""
    return LANGUAGE_NAMES.get(census.template_language, census.template_language) + " templates"


def scorer_defaults(census: Census) -> Mapping[str, Any]:
    """The model options the census method implies (see :data:`FIRST_TOKEN_METHODS`)."""
    return {"multi_token": "first-token"} if census.method in FIRST_TOKEN_METHODS else {}


def census_rules(census: Census, scorer: str) -> tuple[Perturbation, ...]:
    """The census readings a scorer has (conditional and joint for likelihood scorers; a masked
    LM has one) and the other aggregations of the same probabilities into a share."""
    readings = () if scorer == "masked-lm" else option_values("causal_reading", ("conditional", "joint"),
                                                               "causal reading")
    return readings + option_values("aggregation", ("mean-prob", "pooled", "mean-share", "majority"), "aggregation")


def majority(record: Mapping[str, Any]) -> str | None:
    """An occupation's outcome: the model's female-vs-male majority (even at exactly 50 %)."""
    share = record.get("model_female_pct")
    if share is None:
        return None
    return "female" if share > 50 else "male" if share < 50 else "even"


#: Sensitivity runs (docs/sensitivity.md): the census ``preamble`` (its robustness check, now one
#: instance of this) with neutral preambles of the template language, the paraphrased predicate
#: sets of the template language (:mod:`.paraphrases`), and the readings and aggregations; an
#: occupation's outcome is its model female-vs-male majority.
SENSITIVITY = Sensitivity(
    kinds={"preambles": lambda census, scorer: preambles(census.template_language, option="preamble"),
           "paraphrases": paraphrases, "rules": census_rules},
    headlines=lambda s: (headline(s, "normative"), headline(s, "descriptive")), outcome=majority,
    outcome_phrase="the female-vs-male majority of the model's share")

SPEC = BenchmarkSpec(name="census", factory=Census, summary_type=CensusRunSummary, columns=COLUMNS, view=VIEW,
                     pairing_keys=(("identifiers", "identifiers"), ("country", "census country"),
                                   ("language", "language"), ("method", "method"), ("template_set", "template set"),
                                   ("predicates", "predicates")),
                     scorer_defaults=scorer_defaults, language=language, data_options=("country", "census"),
                     label_keys=("causal_reading", "predicates"), sensitivity=SENSITIVITY,
                     description="Census occupational bias, normative and descriptive (Touileb et al. 2023).",
                     example={"country": "no", "limit": 2}, renamed_config=(("variant", "method"),))
