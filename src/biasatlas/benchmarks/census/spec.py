"""The census benchmark as one :class:`~biasatlas.benchmarks.base.BenchmarkSpec` (``biasatlas.registry``
finds it here)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..base import BenchmarkSpec
from .benchmark import Census
from .summary import COLUMNS, CensusRunSummary
from .view import VIEW

#: Census methods scored, as published, on the first sub-token of each filler: GeBNLP 2022
#: (Touileb, Øvrelid & Velldal 2022) masked one token per pronoun, so a masked LM runs with
#: the ``first-token`` policy there unless the run's ``multi_token`` says otherwise.
FIRST_TOKEN_METHODS: frozenset[str] = frozenset({"gebnlp2022"})


def scorer_defaults(census: Census) -> Mapping[str, Any]:
    """The model options the census method implies (see :data:`FIRST_TOKEN_METHODS`)."""
    return {"multi_token": "first-token"} if census.method in FIRST_TOKEN_METHODS else {}


SPEC = BenchmarkSpec(name="census", factory=Census, summary_type=CensusRunSummary, columns=COLUMNS, view=VIEW,
                     pairing_keys=(("identifiers", "identifiers"), ("country", "census country"),
                                   ("language", "language"), ("variant", "method"), ("template_set", "template set")),
                     scorer_defaults=scorer_defaults)
