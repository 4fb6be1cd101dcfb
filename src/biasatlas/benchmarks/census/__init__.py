"""Census-grounded occupational bias (Touileb, Øvrelid & Velldal, EACL 2023).

Pure code, no model: load a census table, build slot probes from gendered identifiers,
predicates and occupation forms, and turn a scorer's answers into the paper's
normative and descriptive scores. See ``docs/benchmarks/census.md`` and METHODS.md §1.

>>> from biasatlas.benchmarks.census import build_plan, load_census
>>> table = load_census("no")                      # 417 Norwegian occupations
>>> plan = build_plan("no", table)                  # paired identifiers: 26 × 6 per occupation
>>> len(plan.probes), plan.n_sentences
(4980, 65052)

``answers = scorer.score(plan.probes)`` and ``compute_metrics(plan, answers)`` close the
loop; ``build_probes`` returns the probes alone. :class:`Census` (``benchmark.py``) is
the same benchmark for :func:`biasatlas.pipeline.run_benchmark` and ``biasatlas run census``;
``SPEC`` (``spec.py``) is the benchmark as the registry and the report see it, with its
typed summary (``summary.py``) and what the terminal and the report show (``view.py``).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

# Exports are imported on first use (PEP 562): ``biasatlas --help`` imports the census
# command module, and the metrics' numpy/scipy imports would make every CLI call slow.
_EXPORTS: dict[str, str] = {
    **dict.fromkeys(("GebnlpResult", "build_gebnlp_probes", "compute_gebnlp_metrics"), "gebnlp"),
    **dict.fromkeys(("LanguageSpec", "load_language"), "language"),
    **dict.fromkeys(("AGGREGATIONS", "CensusSummary", "ClassScores", "Interval", "TemplateProbs",
                     "female_share", "share_class", "summarise"), "metrics"),
    **dict.fromkeys(("NORMALISATIONS", "CensusResult", "OccupationScore", "compute_metrics"),
                    "scoring"),
    **dict.fromkeys(("BUILTIN_TABLES", "CensusRow", "CensusTable", "load_census"), "table"),
    **dict.fromkeys(("Cell", "CensusPlan", "Skip", "build_plan", "build_probes"), "templates"),
    "Census": "benchmark",
    "SPEC": "spec",
}
__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:
    from .benchmark import Census
    from .gebnlp import GebnlpResult, build_gebnlp_probes, compute_gebnlp_metrics
    from .language import LanguageSpec, load_language
    from .metrics import (AGGREGATIONS, CensusSummary, ClassScores, Interval, TemplateProbs,
                          female_share, share_class, summarise)
    from .scoring import NORMALISATIONS, CensusResult, OccupationScore, compute_metrics
    from .spec import SPEC
    from .table import BUILTIN_TABLES, CensusRow, CensusTable, load_census
    from .templates import Cell, CensusPlan, Skip, build_plan, build_probes


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
    globals()[name] = value  # later look-ups skip this function
    return value
