"""Minimum detectable effects (biasatlas.power) against worked values and seeded simulations.

Each MDE is checked two ways: against the textbook formula written out here with the standard
library's NormalDist (no statsmodels), and by simulating the test itself at the MDE with a fixed
seed, which must reject about 80 % of the time (power 0.8 at two-sided α = 0.05).
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pytest

from biasatlas.power import (mde_correlation, mde_normal, mde_one_sample_t, mde_proportion,
                             mde_two_sample_d, se_from_interval)

Z = NormalDist().inv_cdf(0.975) + NormalDist().inv_cdf(0.8)  # 1.95996 + 0.84162 = 2.80158
SIMULATIONS = 4000


def _power(rejections: np.ndarray) -> float:
    return float(np.mean(rejections))


def test_the_z_sum_is_the_textbook_2_80() -> None:
    assert abs(Z - 2.8016) < 1e-4
    assert mde_normal(1.0) == pytest.approx(Z)


@pytest.mark.parametrize("n", [30, 100, 1508])
def test_proportion_mde_inverts_cohens_n_formula(n: int) -> None:
    # Cohen (1988) ch. 6: n = ((z.975 + z.80)/h)², so h = Z/√n, and √p = sin(h/2 + π/4)
    # (h = 2·asin √p − 2·asin √½, 2·asin √½ = π/2). n = 100: h = 0.28016, p = 0.6383 → 13.83 points.
    h = Z / math.sqrt(n)
    expected = 100 * math.sin(h / 2 + math.pi / 4) ** 2 - 50
    # statsmodels also counts the (negligible) power in the far tail, so its h is a hair smaller
    assert mde_proportion(n) == pytest.approx(expected, rel=1e-3)
    assert mde_proportion(n) <= expected
    if n == 100:
        assert expected == pytest.approx(13.83, abs=0.01)


def test_a_proportion_test_at_its_mde_has_power_080() -> None:
    n = 400
    p = 0.5 + mde_proportion(n) / 100
    k = np.random.default_rng(7).binomial(n, p, size=SIMULATIONS)
    z = (k / n - 0.5) / math.sqrt(0.25 / n)  # the test against ½ under the null's variance
    assert _power(np.abs(z) > NormalDist().inv_cdf(0.975)) == pytest.approx(0.80, abs=0.025)


def test_too_few_items_give_no_mde_or_the_whole_range() -> None:
    assert mde_proportion(0) is None and mde_proportion(None) is None
    assert mde_proportion(2) == 50.0  # h for n = 2 is past p = 1: no share is detectable
    assert mde_correlation(3) is None and mde_two_sample_d(1, 5) is None and mde_one_sample_t(1, 1.0) is None
    assert mde_normal(None) is None and se_from_interval(None, 2.0) is None


def test_se_from_a_normal_interval() -> None:
    # a 95 % normal interval is estimate ± 1.95996·SE: [10 − 1.96·2, 10 + 1.96·2] gives SE 2
    half = NormalDist().inv_cdf(0.975) * 2.0
    assert se_from_interval(10 - half, 10 + half) == pytest.approx(2.0)


def test_normal_mde_at_a_bootstrap_se_has_power_080() -> None:
    se = 1.5
    estimates = np.random.default_rng(3).normal(mde_normal(se), se, size=SIMULATIONS)
    assert _power(np.abs(estimates / se) > NormalDist().inv_cdf(0.975)) == pytest.approx(0.80, abs=0.025)


def test_correlation_mde_is_fishers_z_and_has_power_080() -> None:
    # n = 28: tanh(2.80158/√25) = tanh(0.56032) = 0.5082
    assert mde_correlation(28) == pytest.approx(math.tanh(Z / 5), rel=1e-9)
    assert mde_correlation(28) == pytest.approx(0.5082, abs=1e-4)
    n, rho = 40, mde_correlation(40)
    rng = np.random.default_rng(11)
    x = rng.standard_normal((SIMULATIONS, n))
    y = rho * x + math.sqrt(1 - rho ** 2) * rng.standard_normal((SIMULATIONS, n))
    xc, yc = x - x.mean(1, keepdims=True), y - y.mean(1, keepdims=True)
    r = (xc * yc).sum(1) / np.sqrt((xc ** 2).sum(1) * (yc ** 2).sum(1))
    t = r * np.sqrt((n - 2) / (1 - r ** 2))  # Pearson's exact test: t with n − 2 degrees of freedom
    from scipy.stats import t as student

    assert _power(np.abs(t) > student.ppf(0.975, n - 2)) == pytest.approx(0.80, abs=0.03)


def test_two_sample_d_is_near_the_normal_formula_and_a_permutation_test_reaches_080() -> None:
    # normal approximation: d = Z·√(1/n₁ + 1/n₂); the t-test's d is a little larger at small n
    assert mde_two_sample_d(200, 200) == pytest.approx(Z * math.sqrt(2 / 200), rel=0.01)
    assert mde_two_sample_d(8, 8) > Z * math.sqrt(2 / 8)
    # the SEAT/WEAT test: a permutation test of the difference of means of two sets of 12
    n, d = 12, mde_two_sample_d(12, 12)
    rng = np.random.default_rng(5)
    sims, perms = 600, 1000
    x = rng.standard_normal((sims, n)) + d
    y = rng.standard_normal((sims, n))
    both = np.concatenate([x, y], axis=1)
    observed = np.abs(x.mean(1) - y.mean(1))
    order = np.argsort(rng.random((perms, 2 * n)), axis=1)
    shuffled = both[:, order]  # (sims, perms, 2n)
    null = np.abs(shuffled[:, :, :n].mean(2) - shuffled[:, :, n:].mean(2))
    p = (1 + (null >= observed[:, None]).sum(1)) / (perms + 1)
    assert _power(p < 0.05) == pytest.approx(0.80, abs=0.05)


def test_one_sample_t_mde_in_the_unit_has_power_080() -> None:
    n, sd = 30, 12.0
    se = sd / math.sqrt(n)
    effect = mde_one_sample_t(n, se)
    values = np.random.default_rng(13).normal(effect, sd, size=(SIMULATIONS, n))
    from scipy.stats import ttest_1samp

    assert _power(ttest_1samp(values, 0.0, axis=1).pvalue < 0.05) == pytest.approx(0.80, abs=0.025)
