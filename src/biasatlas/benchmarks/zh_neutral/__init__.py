"""Chinese gender-neutral sentences and the masked log-ratio bias score (Zhao et al. 2021)."""

from .benchmark import (DEFAULT_THRESHOLD, ZhNeutral, bias_value, bootstrap_interval, leaning, score_items,
                        summarise)

__all__ = ["DEFAULT_THRESHOLD", "ZhNeutral", "bias_value", "bootstrap_interval", "leaning", "score_items",
           "summarise"]
