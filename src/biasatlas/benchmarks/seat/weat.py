"""WEAT (Caliskan et al. 2017) as the registry finds it: the second benchmark of the seat folder."""

from .spec import WEAT_SPEC as SPEC

__all__ = ["SPEC"]
