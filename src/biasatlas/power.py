"""The smallest effect a run could have detected: minimum detectable effects (MDE) at its n.

Every benchmark's headline test, at two-sided α = 0.05 and power 0.8 (Cohen 1988, the
conventions of his ch. 2), gives the smallest true effect it finds four times in five; a
"not significant" result then reads "could not have seen less than X" rather than "no bias".

- **One-sample proportion against 50 %** (CrowS-Pairs' binomial test, WinoBias' pro share):
  Cohen's (1988, ch. 6) arcsine effect size h = 2·asin √p − 2·asin √½; statsmodels'
  ``NormalIndPower`` with ``ratio=0`` (its one-sample form) solves h at n, and p is read back
  from h. The MDE is 100·(p − ½) percentage points.
- **Normal approximation with the run's own standard error** (bootstrapped scores: BBQ bias,
  zh-neutral mean |b|): MDE = (z₁₋α/₂ + z_power)·SE (Bloom 1995, "Minimum detectable effects",
  eq. 1; 2.80·SE at the defaults). A bootstrap's 95 % percentile interval gives the SE as its
  width over 2·z₀.₉₇₅, which is exact for a normal sampling distribution and an approximation
  otherwise: said so wherever it is used.
- **Pearson's r against 0** (Winogender, census): Fisher's z, atanh r ≈ N(atanh ρ, 1/(n − 3))
  (Cohen 1988, ch. 3), so r = tanh((z₁₋α/₂ + z_power)/√(n − 3)): closed form, no search.
- **Two-sample standardised difference** (the SEAT/WEAT permutation test of two target sets
  of sizes n₁, n₂): statsmodels' ``TTestIndPower`` solves Cohen's d; the permutation test is
  asymptotically the two-sample t-test (Lehmann & Romano 2005, §15.2), and Caliskan et al.'s d
  divides by the SD of both sets together rather than the pooled within-set SD, so the MDE is
  the t-test's, stated as such.
- **One-sample t-test** (StereoSet's per-term SS against 50): statsmodels' ``TTestPower``
  solves d at the number of terms; times the terms' SD (from the run's SE, SD = SE·√n) it is
  the MDE in the score's own unit.

scipy and statsmodels are imported inside the functions, as in :mod:`biasatlas.stats`.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

#: The conventions every MDE here uses (Cohen 1988, §2.4: α = .05 two-sided, power .80).
ALPHA = 0.05
POWER = 0.8
#: The summary.json key holding each headline's MDE (headline name → :meth:`Detectable.as_dict`).
DETECTABLE_KEY = "detectable_effect"


@dataclass(frozen=True)
class Detectable:
    """The smallest effect a run's own test detects with probability ``power`` at level ``alpha``.

    ``effect`` is a distance from the test's null in ``unit`` (None where the run has too few
    items for the test; 0 where the interval it is read from had no spread, so the run's error
    is not estimable); ``test`` names the test, ``method`` the formula and where it comes from.
    """

    effect: float | None
    unit: str
    test: str
    n: float | None
    method: str
    alpha: float = ALPHA
    power: float = POWER
    #: The farthest the measure can lie from its null (BBQ's bias: 100 from 0; SS: 50 from 50), where
    #: it has an end: an ``effect`` beyond it says the run could not detect any effect at all.
    scale_end: float | None = None

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def _z_sum(alpha: float, power: float) -> float:
    """z₁₋α/₂ + z_power: 1.960 + 0.842 = 2.802 at the defaults."""
    from scipy.stats import norm

    return float(norm.ppf(1 - alpha / 2) + norm.ppf(power))


def mde_proportion(n: float | None, alpha: float = ALPHA, power: float = POWER) -> float | None:
    """Percentage points above 50 % a one-sample test of a proportion against ½ detects at ``n``
    (Cohen's h, solved by statsmodels' ``NormalIndPower`` in its one-sample form, ``ratio=0``)."""
    if n is None or n < 1:
        return None
    from statsmodels.stats.power import NormalIndPower

    h = float(NormalIndPower().solve_power(effect_size=None, nobs1=n, alpha=alpha, power=power, ratio=0,
                                           alternative="two-sided"))
    # h = 2·asin √p − 2·asin √½, so √p = sin(h/2 + π/4); past p = 1 the n is too small for any effect
    angle = h / 2 + math.pi / 4
    if angle >= math.pi / 2:
        return 50.0
    return 100.0 * math.sin(angle) ** 2 - 50.0


def se_from_interval(low: float | None, high: float | None, confidence: float = 0.95) -> float | None:
    """The standard error a normal sampling distribution with this central interval has."""
    if low is None or high is None:
        return None
    from scipy.stats import norm

    return (high - low) / (2 * float(norm.ppf(0.5 + confidence / 2)))


def mde_normal(se: float | None, alpha: float = ALPHA, power: float = POWER) -> float | None:
    """(z₁₋α/₂ + z_power)·SE (Bloom 1995, eq. 1): the normal approximation at the run's own SE."""
    return None if se is None else _z_sum(alpha, power) * se


def mde_correlation(n: float | None, alpha: float = ALPHA, power: float = POWER) -> float | None:
    """The Pearson r a two-sided test against ρ = 0 detects at ``n`` pairs (Fisher's z; needs n ≥ 4)."""
    if n is None or n < 4:
        return None
    return math.tanh(_z_sum(alpha, power) / math.sqrt(n - 3))


def mde_two_sample_d(n1: float | None, n2: float | None, alpha: float = ALPHA,
                     power: float = POWER) -> float | None:
    """Cohen's d the two-sample t-test detects with sets of ``n1`` and ``n2`` (statsmodels'
    ``TTestIndPower``; the SEAT/WEAT permutation test's large-sample equivalent)."""
    if n1 is None or n2 is None or n1 < 2 or n2 < 2:
        return None
    from statsmodels.stats.power import TTestIndPower

    return float(TTestIndPower().solve_power(effect_size=None, nobs1=n1, ratio=n2 / n1, alpha=alpha, power=power,
                                             alternative="two-sided"))


def mde_one_sample_t(n: float | None, se: float | None, alpha: float = ALPHA,
                     power: float = POWER) -> float | None:
    """The mean difference a one-sample t-test of ``n`` values detects, in their unit: statsmodels'
    ``TTestPower`` solves d, and SD = SE·√n turns it back into the unit."""
    if n is None or se is None or n < 2:
        return None
    from statsmodels.stats.power import TTestPower

    d = float(TTestPower().solve_power(effect_size=None, nobs=n, alpha=alpha, power=power, alternative="two-sided"))
    return d * se * math.sqrt(n)
