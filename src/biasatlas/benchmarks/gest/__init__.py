"""GEST (Pikuliak, Oresko, Hrckova & Simko, arXiv:2311.18711): sixteen gender stereotypes in 3,565
first-person English sentences, read by masked and causal LMs.

``SPEC`` (:mod:`.spec`) is the benchmark as the registry and the report see it: :mod:`.data` reads the
sentences, :mod:`.templates` holds the authors' templates, :mod:`.benchmark` asks the probes and
names the readings, :mod:`.analysis` computes the stereotype rates, and :mod:`.summary` /
:mod:`.view` are what is written and shown.
"""

from .benchmark import Gest
from .spec import SPEC

__all__ = ["SPEC", "Gest"]
