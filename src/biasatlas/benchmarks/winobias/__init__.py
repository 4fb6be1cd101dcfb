"""WinoBias (Zhao, Wang, Yatskar, Ordonez & Chang, NAACL 2018) read as a language-model probe.

``SPEC`` (:mod:`.spec`) is the benchmark as the registry and the report see it: :mod:`.data` reads
the pro/anti files into pairs, :mod:`.benchmark` asks the probes and names the readings,
:mod:`.analysis` turns the log-probabilities into preferences and per-occupation shares, and
:mod:`.summary` / :mod:`.view` are what is written and shown.
"""

from .benchmark import WinoBias
from .spec import SPEC

__all__ = ["SPEC", "WinoBias"]
