"""Chinese gender-neutral sentences and the masked log-ratio bias score (Zhao et al. 2021).

``SPEC`` (:mod:`.spec`) is the benchmark as the registry and the report see it: the
benchmark itself (:mod:`.benchmark`), its typed summary (:mod:`.summary`), and what the
terminal and the report show of it (:mod:`.view`, counting from the items in :mod:`.overview`).
"""

from .benchmark import (DEFAULT_THRESHOLD, ZhNeutral, bias_value, bootstrap_interval, leaning, score_items,
                        summarise)
from .spec import SPEC

__all__ = ["DEFAULT_THRESHOLD", "SPEC", "ZhNeutral", "bias_value", "bootstrap_interval", "leaning", "score_items",
           "summarise"]
