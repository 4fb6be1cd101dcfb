"""CrowS-Pairs (Nangia et al. 2020; Névéol et al. 2022): minimal-pair pseudo-log-likelihood bias."""

from .benchmark import CATEGORIES, DATASETS, CrowsPair, CrowsPairs, read_pairs, summarise

__all__ = ["CATEGORIES", "DATASETS", "CrowsPair", "CrowsPairs", "read_pairs", "summarise"]
