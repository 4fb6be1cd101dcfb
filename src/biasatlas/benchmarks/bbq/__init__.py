"""BBQ and its multilingual family: MBBQ (nl, es, tr, en), KoBBQ, CBBQ (METHODS-MORE.md §2-4).

``SPEC`` (:mod:`.spec`) is the benchmark as the registry and the report see it: :mod:`.data`
reads each dataset into one record, :mod:`.benchmark` asks the probes and names the answer
rules, :mod:`.evaluation` computes the authors' scores, and :mod:`.summary` / :mod:`.view`
are what is written and shown.
"""

from .benchmark import BBQ
from .spec import SPEC

__all__ = ["BBQ", "SPEC"]
