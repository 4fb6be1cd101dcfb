"""Census-grounded occupational bias (Touileb, Øvrelid & Velldal, EACL 2023).

See ``docs/benchmarks/census.md`` and METHODS.md §1.
"""

from .table import CensusRow, CensusTable, load_census

__all__ = ["CensusRow", "CensusTable", "load_census"]
