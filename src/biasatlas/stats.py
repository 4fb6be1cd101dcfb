"""Statistics shared by the benchmarks: intervals and tests for proportions, and paired tests.

Wilson score intervals (Wilson 1927) via statsmodels; the exact two-sided binomial test
against p = 0.5 via scipy; and the one-sample t-test of per-pair outcomes against 0.5
that Névéol et al. (2022) report for French CrowS-Pairs.

Paired tests between two models scored on the same items (each benchmark's view picks
one): McNemar's test (McNemar 1947) on paired binary outcomes, exact (binomial) when the
discordant pairs number fewer than 25, else the χ² statistic with continuity correction;
the Wilcoxon signed-rank test on paired values; a paired bootstrap of the mean
per-item difference (and the percentile bootstrap of one run's mean, :func:`mean_interval`);
and Holm's (1979) step-down adjustment across a family of tests.
numpy, scipy and statsmodels are imported inside the functions: the benchmarks import
this module, and ``biasatlas --help`` should not pay for them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

from .errors import UsageError

EXACT_BELOW = 25  # discordant pairs; below this McNemar's χ² approximation is poor
#: The most bootstrap resamples one interval or test draws. Each resample is a row of item
#: indices (8 bytes an item), all in memory at once: at this bound 0.8 GB for 1,000 items,
#: where 1e8 resamples needed 15.7 GB. The defaults are 1,000 and 2,000; 100,000 puts a
#: p-value's resolution at 1e-5, finer than any report prints.
MAX_RESAMPLES = 100_000


def check_seed(seed: object, name: str = "seed") -> int:
    """``seed`` if it is a whole number 0 or more, else a :class:`UsageError`.

    Every seeded draw (a ``--sample``, a bootstrap) is ``numpy.random.default_rng(seed)``,
    which refuses negative seeds; the benchmarks check on construction, before any
    scoring, so a run does not fail after its last item."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise UsageError(f"{name} must be a whole number 0 or more (numpy's generators take no "
                         f"negative seed), not {seed!r}")
    return seed


def check_resamples(n_resamples: object, name: str = "n_resamples") -> int:
    """``n_resamples`` if it is a whole number from 1 to :data:`MAX_RESAMPLES`, else a :class:`UsageError`."""
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or not 1 <= n_resamples <= MAX_RESAMPLES:
        raise UsageError(f"{name} must be a whole number from 1 to {MAX_RESAMPLES:,}, not {n_resamples!r}")
    return n_resamples


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

    def as_dict(self) -> dict[str, float | int | None]:
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
    # The Wilson interval always contains successes/n; at 0 % and 100 % floating point puts the
    # bound a hair inside it (99.99999999999999 for 12/12), which then reads as an interval that
    # excludes its own estimate (the report's error bars refuse it). Pin the bound to the estimate.
    share = successes / n
    return 100.0 * min(low, share), 100.0 * max(high, share)


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


# -- paired tests between two runs -------------------------------------------------------------
def mcnemar_table(a: Sequence[bool], b: Sequence[bool]) -> np.ndarray:
    """[[both, A only], [B only, neither]] for paired binary outcomes."""
    import numpy as np

    x, y = np.asarray(a, dtype=bool), np.asarray(b, dtype=bool)
    return np.array([[np.sum(x & y), np.sum(x & ~y)], [np.sum(~x & y), np.sum(~x & ~y)]])


def mcnemar_test(table: np.ndarray) -> tuple[float, float, str]:
    """(statistic, p, method): exact binomial below 25 discordant pairs, else χ² corrected."""
    from statsmodels.stats.contingency_tables import mcnemar

    discordant = int(table[0, 1] + table[1, 0])
    exact = discordant < EXACT_BELOW
    result = mcnemar(table, exact=exact, correction=True)
    return float(result.statistic), float(result.pvalue), "McNemar exact" if exact else "McNemar χ² (cc)"


def holm(pvalues: Sequence[float | None]) -> list[float | None]:
    """Holm step-down adjusted p-values; missing p-values stay missing and are not counted."""
    from statsmodels.stats.multitest import multipletests

    idx = [i for i, p in enumerate(pvalues) if p is not None and math.isfinite(p)]
    out: list[float | None] = [None] * len(pvalues)
    if idx:
        adjusted = multipletests([pvalues[i] for i in idx], method="holm")[1]
        for i, p in zip(idx, adjusted):
            out[i] = float(p)
    return out


def wilcoxon_test(a: np.ndarray, b: np.ndarray) -> tuple[float | None, float | None, str]:
    """Two-sided Wilcoxon signed-rank test of a − b; all-zero differences give p = 1."""
    import numpy as np
    from scipy.stats import wilcoxon

    if len(a) == 0:
        return None, None, "no paired items"
    if np.all(a == b):
        return 0.0, 1.0, "all differences zero"
    result = wilcoxon(a, b)
    return float(result.statistic), float(result.pvalue), ""


def paired_bootstrap(diff: np.ndarray, n_resamples: int = 2000, seed: int = 0,
                     confidence: float = 0.95) -> tuple[float, float, float]:
    """(p, ci_low, ci_high) for the mean of per-item differences, resampling items.

    The same indices serve both runs because ``diff`` is already A − B per item. p is the
    share of resampled means at least as far from the observed one as the observed one is
    from 0 (the bootstrap distribution shifted to the null), with the usual +1 correction.
    """
    import numpy as np

    rng = np.random.default_rng(check_seed(seed))
    check_resamples(n_resamples)
    if len(diff) == 0:
        return math.nan, math.nan, math.nan
    means = diff[rng.integers(0, len(diff), size=(n_resamples, len(diff)))].mean(axis=1)
    observed = float(diff.mean())
    p = (1 + np.sum(np.abs(means - observed) >= abs(observed))) / (n_resamples + 1)
    tail = (1 - confidence) / 2
    low, high = np.quantile(means, [tail, 1 - tail])
    return float(p), float(low), float(high)


def mean_interval(values: Sequence[float], *, n_resamples: int, seed: int,
                  confidence: float = 0.95) -> list[float] | None:
    """Percentile bootstrap interval of the mean of ``values`` (items resampled with replacement)."""
    import numpy as np

    if not values:
        return None
    rng = np.random.default_rng(check_seed(seed))
    v = np.asarray(values, dtype=float)
    means = v[rng.integers(0, len(v), size=(check_resamples(n_resamples), len(v)))].mean(axis=1)  # (R,)
    tail = 100.0 * (1.0 - confidence) / 2.0
    return [float(q) for q in np.percentile(means, [tail, 100.0 - tail])]
