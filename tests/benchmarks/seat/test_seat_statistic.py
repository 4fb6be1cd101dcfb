"""SEAT/WEAT statistic: parity with a straightforward reference written here, and planted truths.

The reference follows Caliskan et al.'s definitions word by word (plain Python loops, the
``statistics`` module's sample stdev, every partition listed with itertools), independent of
the vectorised code under test.
"""

from __future__ import annotations

import itertools
import math
import statistics

import numpy as np
import pytest

from biasatlas.benchmarks.seat import statistic


def _cos(u, v):
    return sum(a * b for a, b in zip(u, v)) / math.sqrt(sum(a * a for a in u) * sum(b * b for b in v))


def _s(w, A, B):
    return statistics.fmean(_cos(w, a) for a in A) - statistics.fmean(_cos(w, b) for b in B)


def _reference(X, Y, A, B):
    """(d, exact one-sided p) by the definitions: ties count as exceeding, every partition listed."""
    sx, sy = [_s(x, A, B) for x in X], [_s(y, A, B) for y in Y]
    d = (statistics.fmean(sx) - statistics.fmean(sy)) / statistics.stdev(sx + sy)
    pooled = sx + sy
    observed = sum(sx) - sum(sy)
    total = sum(pooled)
    count = hits = 0
    for chosen in itertools.combinations(range(len(pooled)), len(X)):
        in_x = sum(pooled[i] for i in chosen)
        hits += (in_x - (total - in_x)) >= observed - 1e-12
        count += 1
    return d, hits / count


def _random_sets(seed, n=6, m=5, dim=7):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=(k, dim)) for k in (n, n, m, m + 1)]


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_effect_size_and_exact_p_equal_the_reference(seed):
    X, Y, A, B = _random_sets(seed)
    d_ref, p_ref = _reference(X.tolist(), Y.tolist(), A.tolist(), B.tolist())
    s_x, s_y = statistic.associations(X, A, B), statistic.associations(Y, A, B)
    assert statistic.effect_size(s_x, s_y) == pytest.approx(d_ref, abs=1e-12)
    got = statistic.p_value(s_x, s_y)
    assert got.method == "exact" and got.partitions == math.comb(12, 6) == 924
    assert got.p == pytest.approx(p_ref, abs=1e-15) and got.mc_error == 0.0


def test_the_sample_std_not_numpys_default():
    """numpy's default std (ddof 0) would make d larger by sqrt(2n / (2n − 1))."""
    s_x, s_y = np.array([0.3, 0.1, 0.2]), np.array([-0.1, 0.0, 0.05])
    d = statistic.effect_size(s_x, s_y)
    # means 0.2 and −0.05 1/6 ≈ −0.016667; pooled sample std of the six values by statistics.stdev
    expected = (0.2 - (-0.05 / 3)) / statistics.stdev([0.3, 0.1, 0.2, -0.1, 0.0, 0.05])
    assert d == pytest.approx(expected, abs=1e-12)
    ddof0 = (0.2 - (-0.05 / 3)) / float(np.std(np.concatenate([s_x, s_y])))
    assert ddof0 / d == pytest.approx(math.sqrt(6 / 5), abs=1e-12)


def test_sampled_p_is_seeded_bounded_and_close_to_the_exact_one():
    X, Y, A, B = _random_sets(5, n=8)
    s_x, s_y = statistic.associations(X, A, B), statistic.associations(Y, A, B)
    exact = statistic.p_value(s_x, s_y)  # C(16, 8) = 12,870 ≤ 100,000: exact
    assert exact.method == "exact" and exact.partitions == 12870
    sampled = statistic.p_value(s_x, s_y, n_samples=5000, seed=3)  # 12,870 > 5,000: sampled
    assert sampled.method == "sampled" and sampled.n_samples == 5000
    assert sampled == statistic.p_value(s_x, s_y, n_samples=5000, seed=3)
    assert sampled.mc_error == pytest.approx(math.sqrt(sampled.p * (1 - sampled.p) / 5000))
    assert abs(sampled.p - exact.p) < 4 * sampled.mc_error + 2 / 5000  # the hallucinated success adds ≤ 1/5000


def test_a_sampled_p_is_never_below_one_over_n_samples():
    # X far on A's side, Y on B's: no random partition reaches the observed one
    s_x, s_y = np.linspace(1.0, 1.1, 20), np.linspace(-1.1, -1.0, 20)
    got = statistic.p_value(s_x, s_y, n_samples=1000, seed=0)
    assert got.method == "sampled" and got.p == 1 / 1000


def test_the_exact_threshold_is_the_references():
    # n = 9: C(18, 9) = 48,620 ≤ 100,000, exact; n = 10: C(20, 10) = 184,756 > 100,000, sampled
    for n, method in ((9, "exact"), (10, "sampled")):
        s = np.arange(2 * n, dtype=float)
        assert statistic.p_value(s[:n], s[n:], n_samples=100_000 if n == 9 else 2000).method == method


def _planted(angles_x, angles_y, dim=4):
    """A along e1, B along e2 (orthogonal): a target at angle t in the e1–e2 plane has
    cos(w, a) = cos t and cos(w, b) = sin t, so s(w) = cos t − sin t exactly."""
    def at(t):
        v = np.zeros(dim)
        v[0], v[1] = math.cos(t), math.sin(t)
        return v

    rng = np.random.default_rng(0)
    A = np.array([[1.0, 0, 0, 0]] * 3) * rng.uniform(0.5, 2.0, size=(3, 1))  # lengths do not matter to a cosine
    B = np.array([[0, 1.0, 0, 0]] * 4) * rng.uniform(0.5, 2.0, size=(4, 1))
    return np.array([at(t) for t in angles_x]), np.array([at(t) for t in angles_y]), A, B


def test_a_planted_angle_gives_the_planted_effect_size():
    # X all at 10° from A, Y all at 10° from B: s(x) = cos10° − sin10° = a, s(y) = −a.
    # With n = 8 of each at ±a, the sample std of the 16 values is a·sqrt(16/15), so
    # d = 2a / (a·sqrt(16/15)) = 2·sqrt(15/16) = 1.93649…, whatever the angle.
    X, Y, A, B = _planted([math.radians(10)] * 8, [math.radians(80)] * 8)
    s_x, s_y = statistic.associations(X, A, B), statistic.associations(Y, A, B)
    a = math.cos(math.radians(10)) - math.sin(math.radians(10))
    assert s_x == pytest.approx([a] * 8, abs=1e-12)
    assert statistic.effect_size(s_x, s_y) == pytest.approx(2 * math.sqrt(15 / 16), abs=1e-12)
    # only the observed partition reaches S: p = 1 / C(16, 8)
    assert statistic.p_value(s_x, s_y).p == pytest.approx(1 / 12870, abs=1e-15)


def test_planted_spread_angles_recover_d_from_the_formula():
    angles_x = [math.radians(t) for t in (5, 15, 20, 30, 35, 40)]
    angles_y = [math.radians(t) for t in (25, 45, 55, 60, 70, 85)]
    X, Y, A, B = _planted(angles_x, angles_y)
    sx = [math.cos(t) - math.sin(t) for t in angles_x]
    sy = [math.cos(t) - math.sin(t) for t in angles_y]
    planted = (statistics.fmean(sx) - statistics.fmean(sy)) / statistics.stdev(sx + sy)
    d = statistic.effect_size(statistic.associations(X, A, B), statistic.associations(Y, A, B))
    assert d == pytest.approx(planted, abs=1e-12) and d > 1


def test_a_symmetric_embedding_has_no_effect():
    # X and Y at the same angles: the same s values, d exactly 0, and p ≥ 1/2 (half the
    # partitions or more reach the observed, middle sum)
    angles = [math.radians(t) for t in (10, 30, 45, 60, 80)]
    X, Y, A, B = _planted(angles, angles)
    s_x, s_y = statistic.associations(X, A, B), statistic.associations(Y, A, B)
    assert statistic.effect_size(s_x, s_y) == 0.0
    assert statistic.p_value(s_x, s_y).p >= 0.5


def test_no_spread_gives_no_effect_size():
    assert statistic.effect_size(np.array([0.2, 0.2]), np.array([0.2, 0.2])) is None


def test_bootstrap_interval_holds_d_and_is_seeded():
    X, Y, A, B = _random_sets(7, n=8)
    targets = np.concatenate([X, Y])
    cos_a, cos_b = statistic.cosines(targets, A), statistic.cosines(targets, B)
    s = cos_a.mean(axis=1) - cos_b.mean(axis=1)
    d = statistic.effect_size(s[:8], s[8:])
    low, high = statistic.bootstrap_interval(cos_a, cos_b, 8, n_resamples=400, seed=1)
    assert low < d < high
    assert (low, high) == statistic.bootstrap_interval(cos_a, cos_b, 8, n_resamples=400, seed=1)
