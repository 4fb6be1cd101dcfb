"""GEST as one :class:`~biasatlas.benchmarks.base.BenchmarkSpec` (``biasatlas.registry`` finds it here)."""

from __future__ import annotations

from ..base import BenchmarkSpec
from .benchmark import Gest
from .summary import COLUMNS, GestRunSummary
from .view import VIEW

SPEC = BenchmarkSpec(name="gest", factory=Gest, summary_type=GestRunSummary, columns=COLUMNS, view=VIEW,
                     pairing_keys=(("version", "version"), ("template", "template")),
                     language=lambda bench: "English", data_options=("version",),
                     description="GEST (Pikuliak et al. 2023): 16 gender stereotypes, male vs female reading of "
                                 "first-person sentences.",
                     example={"limit": 2})
