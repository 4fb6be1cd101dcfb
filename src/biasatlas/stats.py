"""Statistics shared by the benchmarks: intervals and tests for proportions.

Wilson score intervals (Wilson 1927) via statsmodels; the exact two-sided binomial test
against p = 0.5 via scipy; and the one-sample t-test of per-pair outcomes against 0.5
that Névéol et al. (2022) report for French CrowS-Pairs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class ProportionTest:
    """A percentage with its Wilson 95% interval and tests against 50 %."""

    successes: int
    n: int
    percent: float
    ci_low: float
    ci_high: float
    binomial_p: float
    t_stat: float
    t_p: float

    def as_dict(self) -> dict[str, float | int]:
        return {k: _finite(v) for k, v in self.__dict__.items()}


def _finite(value: float | int) -> float | int | None:
    """JSON has no NaN: undefined statistics (n = 0, zero variance) become null."""
    return None if isinstance(value, float) and not math.isfinite(value) else value


def wilson(successes: int, n: int, alpha: float = 0.05) -> tuple[float, float]:
    """Wilson score interval for successes/n, in percent."""
    from statsmodels.stats.proportion import proportion_confint

    if n == 0:
        return math.nan, math.nan
    low, high = proportion_confint(successes, n, alpha=alpha, method="wilson")
    return 100.0 * low, 100.0 * high


def proportion_test(outcomes: Sequence[int]) -> ProportionTest:
    """Summarise 0/1 outcomes: percent of ones, Wilson CI, binomial and t-tests vs 0.5."""
    from scipy import stats

    n, k = len(outcomes), int(sum(outcomes))
    if n == 0:
        return ProportionTest(0, 0, math.nan, math.nan, math.nan, math.nan, math.nan, math.nan)
    low, high = wilson(k, n)
    binomial_p = float(stats.binomtest(k, n, 0.5, alternative="two-sided").pvalue)
    if 0 < k < n:
        t = stats.ttest_1samp(list(outcomes), 0.5)
        t_stat, t_p = float(t.statistic), float(t.pvalue)
    else:  # zero variance: the t statistic is undefined
        t_stat, t_p = math.nan, math.nan
    return ProportionTest(k, n, 100.0 * k / n, low, high, binomial_p, t_stat, t_p)
