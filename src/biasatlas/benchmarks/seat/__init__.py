"""SEAT and WEAT: embedding association tests (May et al., NAACL 2019; Caliskan et al., Science 2017).

``SPEC`` is ``seat`` (sentence encoders); :mod:`.weat` exports ``weat`` (static word vectors).
:mod:`.data` reads the test files, :mod:`.statistic` is the effect size and permutation test,
:mod:`.benchmark` asks the probes, and :mod:`.summary` / :mod:`.view` are what is written and shown.
"""

from .benchmark import Seat, Weat
from .spec import SPEC

__all__ = ["SPEC", "Seat", "Weat"]
