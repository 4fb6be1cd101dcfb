"""Census-grounded occupational bias (Touileb, Øvrelid & Velldal, EACL 2023).

Pure code, no model: load a census table, build slot probes from gendered identifiers,
predicates and occupation forms, and turn a scorer's answers into the paper's
normative and descriptive scores. See ``docs/benchmarks/census.md`` and METHODS.md §1.

>>> table = load_census("no")                      # 417 Norwegian occupations
>>> plan = build_plan("no", table)                  # probes + the map back to templates
>>> len(plan.probes), plan.n_sentences
(4980, 70056)

``answers = scorer.score(plan.probes)`` and ``compute_metrics(plan, answers)`` close the
loop; ``build_probes`` returns the probes alone.
"""

from .gebnlp import GebnlpResult, build_gebnlp_probes, compute_gebnlp_metrics
from .language import LanguageSpec, load_language
from .metrics import (AGGREGATIONS, CensusSummary, ClassScores, Interval, TemplateProbs,
                      female_share, share_class, summarise)
from .scoring import NORMALISATIONS, CensusResult, OccupationScore, compute_metrics
from .table import BUILTIN_TABLES, CensusRow, CensusTable, load_census
from .templates import Cell, CensusPlan, Skip, build_plan, build_probes

__all__ = [
    "AGGREGATIONS", "BUILTIN_TABLES", "NORMALISATIONS", "Cell", "CensusPlan", "CensusResult",
    "CensusRow", "CensusSummary", "CensusTable", "ClassScores", "GebnlpResult", "Interval",
    "LanguageSpec", "OccupationScore", "Skip", "TemplateProbs", "build_gebnlp_probes",
    "build_plan", "build_probes", "compute_gebnlp_metrics", "compute_metrics", "female_share",
    "load_census", "load_language", "share_class", "summarise",
]
