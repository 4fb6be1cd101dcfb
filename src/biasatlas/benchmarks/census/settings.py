"""What the census methods (:mod:`.methods`) and the paraphrase runs (:mod:`.paraphrases`) read of
the benchmark: its items, its closed sets of methods and readings, and its settings as a protocol.

:class:`~.benchmark.Census` builds on both modules and satisfies :class:`CensusSettings`; they
name only this module, below all three, so the benchmark, its methods and its paraphrases import
one way (DESIGN.md: each layer imports only the layers below it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from ...probes import ScorerInfo
from .gebnlp import TemplateSet
from .metrics import Aggregation
from .scoring import Normalisation
from .table import CensusTable
from .templates import CensusPlan

Method = Literal["touileb2023", "gebnlp2022", "bartl2020"]
METHODS: tuple[Method, ...] = ("touileb2023", "gebnlp2022", "bartl2020")
CausalReading = Literal["conditional", "joint"]
CAUSAL_READINGS: tuple[CausalReading, ...] = ("conditional", "joint")
Auto = Literal["auto"]  # resolved once a scorer is bound (``Census.bind``)


@dataclass(frozen=True)
class CensusItem:
    """One occupation of the census table."""

    id: str
    occupation: str
    census_pct: float


class CensusSettings(Protocol):
    """The census benchmark as a method reads it: its options, its bound scorer, its table and plan,
    and the readings they resolve to (:class:`~.benchmark.Census` documents each)."""

    @property
    def method(self) -> Method: ...

    @property
    def aggregation(self) -> Aggregation: ...

    @property
    def normalisation(self) -> Auto | Normalisation: ...

    @property
    def causal_reading(self) -> Auto | CausalReading: ...

    @property
    def template_set(self) -> TemplateSet: ...

    @property
    def n_resamples(self) -> int: ...

    @property
    def seed(self) -> int: ...

    @property
    def scorer(self) -> ScorerInfo | None: ...

    @property
    def template_language(self) -> str: ...

    @property
    def census_table(self) -> CensusTable: ...

    @property
    def plan(self) -> CensusPlan: ...

    @property
    def reading(self) -> CausalReading | None: ...

    @property
    def resolved_normalisation(self) -> Normalisation: ...
