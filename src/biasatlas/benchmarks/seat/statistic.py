"""The association test of Caliskan, Bryson & Narayanan (2017), as sent-bias and bias-bench compute it.

METHODS-MORE.md §5. With c the cosine, for a word (or sentence) vector w and attribute sets A, B:

    s(w, A, B) = mean_{a∈A} c(w, a) − mean_{b∈B} c(w, b)                       (Caliskan et al., eq. 2)
    d = (mean_{x∈X} s(x) − mean_{y∈Y} s(y)) / std_{w∈X∪Y} s(w)                 (their effect size)

with the **sample** standard deviation (ddof = 1), as both reference ``weat.py`` compute it.
The one-sided p-value is P[S(X_i, Y_i) ≥ S(X, Y)] over the equal-size partitions (X_i, Y_i) of
X∪Y, with S = Σ_X s − Σ_Y s; since Σ_{X∪Y} s is fixed, Σ_{X_i} s ranks partitions alike. It is
exact (every partition, the observed one included) when C(2n, n) ≤ ``n_samples``; otherwise one
"hallucinated" success plus ``n_samples`` − 1 seeded random partitions, p = (1 + #{≥})/n_samples,
so p ≥ 1/n_samples. Ties count as exceeding (the references' conservative test). Where the
references compare floats with ``>`` and ``==``, a sum of the same words in another order can
differ by rounding, so "equal" here is within 1e-12 of the statistic's scale: the references'
intent (the observed partition ties itself) whatever the summation order. Holm's adjustment
across a run's tests is :func:`biasatlas.stats.holm`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations
from typing import Literal

import numpy as np

N_SAMPLES = 100_000  # sent-bias's and bias-bench's default
_TIE = 1e-12


@dataclass(frozen=True)
class PValue:
    """A one-sided permutation p-value, how it was had, and its Monte-Carlo standard error
    (sqrt(p(1−p)/n_samples), the binomial error of a sampled p; 0 when exact)."""

    p: float
    method: Literal["exact", "sampled"]
    partitions: int
    n_samples: int
    mc_error: float


def cosines(targets: np.ndarray, attributes: np.ndarray) -> np.ndarray:
    """cos(t, a) for every target row and attribute row: (T, H), (A, H) → (T, A)."""
    t = targets / np.linalg.norm(targets, axis=1, keepdims=True)
    a = attributes / np.linalg.norm(attributes, axis=1, keepdims=True)
    return t @ a.T


def associations(targets: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """s(w, A, B) for every target row: (T, H) → (T,)."""
    return cosines(targets, a).mean(axis=1) - cosines(targets, b).mean(axis=1)


def effect_size(s_x: np.ndarray, s_y: np.ndarray) -> float | None:
    """Caliskan et al.'s d with the sample std over X∪Y; None when every s(w) is equal (no spread)."""
    spread = float(np.std(np.concatenate([s_x, s_y]), ddof=1))
    if spread == 0.0 or not math.isfinite(spread):
        return None
    return float((s_x.mean() - s_y.mean()) / spread)


def p_value(s_x: np.ndarray, s_y: np.ndarray, *, n_samples: int = N_SAMPLES, seed: int = 0) -> PValue:
    """The one-sided permutation p-value of the module docstring.

    With |X| = |Y| (every file) it is the references' test. When out-of-vocabulary words leave
    |X| ≠ |Y|, the partitions are those of X∪Y into sets of |X| and |Y| words: S = 2 Σ_{X_i} s − Σ_{X∪Y} s
    still ranks them by Σ_{X_i} s, so the same count applies."""
    n = len(s_x)
    pooled = np.concatenate([s_x, s_y])
    observed = float(s_x.sum())
    tie = _TIE * max(1.0, float(np.abs(pooled).sum()))
    partitions = math.comb(len(pooled), n)
    if partitions <= n_samples:
        sums = np.array([pooled[list(c)].sum() for c in combinations(range(len(pooled)), n)])
        p = float(np.count_nonzero(sums >= observed - tie)) / partitions
        return PValue(p, "exact", partitions, partitions, 0.0)
    rng = np.random.default_rng(seed)
    hits, drawn = 1, 1  # the references' hallucinated success: p is never below 1/n_samples
    while drawn < n_samples:
        k = min(10_000, n_samples - drawn)
        order = rng.permuted(np.tile(np.arange(len(pooled)), (k, 1)), axis=1)[:, :n]  # (k, |X|) random X_i
        hits += int(np.count_nonzero(pooled[order].sum(axis=1) >= observed - tie))
        drawn += k
    p = hits / n_samples
    return PValue(p, "sampled", partitions, n_samples, math.sqrt(p * (1 - p) / n_samples))


def bootstrap_interval(cos_a: np.ndarray, cos_b: np.ndarray, n: int, *, n_resamples: int, seed: int,
                       level: float = 0.95) -> tuple[float, float] | None:
    """Percentile interval of d resampling, with replacement and within each set, the targets X
    (the first ``n`` rows) and Y (the rest) and the attributes A and B (the columns of
    ``cos_a`` (T, |A|) and ``cos_b`` (T, |B|)): the words are a sample of each concept, so all
    four sets vary. Resamples whose s(w) all coincide (no d) are left out; None if all are."""
    rng = np.random.default_rng(seed)
    total = cos_a.shape[0]
    values = []
    for _ in range(n_resamples):
        cols_a = rng.integers(0, cos_a.shape[1], cos_a.shape[1])
        cols_b = rng.integers(0, cos_b.shape[1], cos_b.shape[1])
        s = cos_a[:, cols_a].mean(axis=1) - cos_b[:, cols_b].mean(axis=1)  # (T,)
        d = effect_size(s[rng.integers(0, n, n)], s[rng.integers(n, total, total - n)])
        if d is not None:
            values.append(d)
    if not values:
        return None
    tail = 100 * (1 - level) / 2
    return float(np.percentile(values, tail)), float(np.percentile(values, 100 - tail))
