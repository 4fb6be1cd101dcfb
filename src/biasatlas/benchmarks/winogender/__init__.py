"""Winogender (Rudinger, Naradowsky, Leonard & Van Durme, NAACL 2018) read as a language-model probe.

``SPEC`` (:mod:`.spec`) is the benchmark as the registry and the report see it: :mod:`.data` reads
the authors' three files into contexts, :mod:`.benchmark` asks the probes and names the readings,
:mod:`.analysis` turns pronoun log-probabilities into shares read against BLS, and :mod:`.summary` /
:mod:`.view` are what is written and shown.
"""

from .benchmark import Winogender
from .spec import SPEC

__all__ = ["SPEC", "Winogender"]
