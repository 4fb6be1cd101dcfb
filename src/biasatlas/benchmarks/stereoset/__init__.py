"""StereoSet (Nadeem, Bethke & Reddy, ACL 2021): stereotype score, language-model score and ICAT.

``SPEC`` (:mod:`.spec`) is the benchmark as the registry and the report see it: :mod:`.data`
reads the two splits, :mod:`.benchmark` asks the probes and names the readings,
:mod:`.evaluation` aggregates sentence scores exactly as the original ``evaluation.py``, and
:mod:`.summary` / :mod:`.view` are what is written and shown.
"""

from .benchmark import StereoSet
from .spec import SPEC

__all__ = ["SPEC", "StereoSet"]
