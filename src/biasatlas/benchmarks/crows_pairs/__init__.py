"""CrowS-Pairs (Nangia et al. 2020; Névéol et al. 2022): minimal-pair pseudo-log-likelihood bias.

``SPEC`` (:mod:`.spec`) is the benchmark as the registry and the report see it: the
benchmark itself (:mod:`.benchmark`, its files read by :mod:`.files`), its typed summary (:mod:`.summary`), and what the
terminal and the report show of it (:mod:`.view`, with the paper's numbers in :mod:`.paper`).
"""

from .benchmark import DATASETS, CrowsPairs, summarise
from .files import CATEGORIES, CrowsPair, read_pairs
from .spec import SPEC

__all__ = ["CATEGORIES", "DATASETS", "SPEC", "CrowsPair", "CrowsPairs", "read_pairs", "summarise"]
