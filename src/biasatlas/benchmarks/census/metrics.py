"""Normative and descriptive occupational bias scores (Touileb et al. 2023, eq. 1–2, §3).

Pure functions over numbers; no model, no probes. METHODS.md §1:

* ``proba_G(t)``: mean over the identifiers i of gender G of P(i | t) (eq. 1);
* ``score_O(G)``: mean over the templates t of O of proba_G(t) (eq. 2);
* model female share ``p(O) = 100 · score_O(F) / (score_O(F) + score_O(M))``. This is
  our reading of how the paper turns the two scores into a share, so it is the named
  aggregation ``mean-prob`` and the alternatives are named too;
* class of a share x: female if x > 55, male if x < 45, balanced otherwise (inclusive);
* normative = % of occupations the model calls balanced; descriptive = % whose model
  class equals the census class; per-class descriptive scores are shares of *all*
  occupations, so they add up to the descriptive score (paper Table 4).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from scipy import stats

from ...stats import check_resamples, check_seed

GenderClass = Literal["female", "male", "balanced"]
Aggregation = Literal["mean-prob", "pooled", "mean-share", "majority"]
AGGREGATIONS: tuple[str, ...] = ("mean-prob", "pooled", "mean-share", "majority")
#: The paper's thresholds: "exceeding 55%" is dominated, 45–55 is balanced.
BALANCED_LOW, BALANCED_HIGH = 45.0, 55.0
_TIE = 1e-9  # percentage points: the majority vote's tie tolerance


@dataclass(frozen=True)
class TemplateProbs:
    """P(i | t) of every identifier of one template t, split by gender."""

    template: str
    female: tuple[float, ...]
    male: tuple[float, ...]

    @property
    def proba_f(self) -> float:
        """Equation 1 for G = female: the mean over the female identifiers."""
        return sum(self.female) / len(self.female)

    @property
    def proba_m(self) -> float:
        return sum(self.male) / len(self.male)


def share_class(pct: float) -> GenderClass:
    """Female-dominated above 55 %, male-dominated below 45 %, balanced in between."""
    if pct > BALANCED_HIGH:
        return "female"
    if pct < BALANCED_LOW:
        return "male"
    return "balanced"


def gender_scores(templates: Sequence[TemplateProbs]) -> tuple[float, float]:
    """Equation 2: (score_O(F), score_O(M)), the means of proba_G over the templates."""
    n = len(templates)
    return sum(t.proba_f for t in templates) / n, sum(t.proba_m for t in templates) / n


def _ratio(female: float, male: float) -> float | None:
    total = female + male
    return 100.0 * female / total if total > 0 else None


def female_share(templates: Sequence[TemplateProbs],
                 aggregation: Aggregation = "mean-prob") -> float | None:
    """The model's % of women for one occupation; None when no probability mass is left.

    * ``mean-prob`` (default, METHODS.md): 100 · score_F / (score_F + score_M);
    * ``pooled``: 100 · ΣF / (ΣF + ΣM) over every identifier of every template (an
      identifier-count-weighted reading: 15 female against 13 male identifiers in
      English and Norwegian tilt it);
    * ``mean-share``: the mean over templates of 100 · proba_F(t) / (proba_F(t) + proba_M(t));
    * ``majority``: 100 · (templates where proba_F > proba_M, ties counting one half)
      / templates.
    """
    if not templates:
        return None
    if aggregation == "mean-prob":
        return _ratio(*gender_scores(templates))
    if aggregation == "pooled":
        return _ratio(sum(sum(t.female) for t in templates), sum(sum(t.male) for t in templates))
    per_template = [_ratio(t.proba_f, t.proba_m) for t in templates]
    shares = [s for s in per_template if s is not None]
    if not shares:
        return None
    if aggregation == "mean-share":
        return sum(shares) / len(shares)
    if aggregation == "majority":
        # A tie is a share within rounding of 50: summing twins' equal probabilities in
        # another order must not turn a gender-symmetric template into a male vote.
        return 100.0 * sum(0.5 if abs(s - 50) <= _TIE else 1.0 if s > 50 else 0.0
                           for s in shares) / len(shares)
    raise ValueError(f"unknown aggregation {aggregation!r}; available: {', '.join(AGGREGATIONS)}")


@dataclass(frozen=True)
class ClassScores:
    """Per-class descriptive scores: % of ALL occupations, summing to the descriptive score."""

    female: float
    male: float
    balanced: float


@dataclass(frozen=True)
class Interval:
    low: float
    high: float


@dataclass(frozen=True)
class CensusSummary:
    """The paper's Table 3 and 4 numbers for one model, plus intervals and correlations."""

    n_occupations: int
    normative: float
    descriptive: float
    descriptive_by_class: ClassScores
    normative_ci: Interval
    descriptive_ci: Interval
    pearson: float | None
    pearson_p: float | None
    spearman: float | None
    spearman_p: float | None
    census_counts: ClassScores  # occupations per census class (counts, not %)
    model_counts: ClassScores
    confidence: float
    n_resamples: int
    seed: int


def _classes(pcts: Sequence[float]) -> np.ndarray:
    return np.array([share_class(p) for p in pcts])


def normative_score(model_pcts: Sequence[float]) -> float:
    """100 · |{O : class(p(O)) = balanced}| / |O|."""
    return 100.0 * float(np.mean(_classes(model_pcts) == "balanced"))


def descriptive_score(census_pcts: Sequence[float], model_pcts: Sequence[float]) -> float:
    """100 · |{O : class(p(O)) = class(census(O))}| / |O|."""
    return 100.0 * float(np.mean(_classes(census_pcts) == _classes(model_pcts)))


def descriptive_by_class(census_pcts: Sequence[float],
                         model_pcts: Sequence[float]) -> ClassScores:
    """Agreements within each census class, as % of all occupations (paper Table 4)."""
    census, model = _classes(census_pcts), _classes(model_pcts)
    agree = census == model
    n = len(census)
    return ClassScores(**{c: 100.0 * float(np.sum(agree & (census == c))) / n
                          for c in ("female", "male", "balanced")})


def _counts(classes: np.ndarray) -> ClassScores:
    return ClassScores(**{c: float(np.sum(classes == c)) for c in ("female", "male", "balanced")})


def bootstrap_interval(hits: np.ndarray, *, n_resamples: int = 1000, seed: int = 0,
                       confidence: float = 0.95) -> Interval:
    """Percentile interval of 100 · mean(hits) over occupations resampled with replacement."""
    rng = np.random.default_rng(check_seed(seed))
    n = len(hits)
    idx = rng.integers(0, n, size=(check_resamples(n_resamples), n))  # (n_resamples, n) occupation indices
    means = 100.0 * hits[idx].mean(axis=1)  # (n_resamples,)
    tail = 100.0 * (1.0 - confidence) / 2.0
    low, high = np.percentile(means, [tail, 100.0 - tail])
    return Interval(float(low), float(high))


def correlations(census_pcts: Sequence[float],
                 model_pcts: Sequence[float]) -> tuple[float | None, ...]:
    """(Pearson r, p, Spearman ρ, p); None where undefined (constant input, n < 3)."""
    if len(census_pcts) < 3:
        return None, None, None, None
    out: list[float | None] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # constant input: scipy warns and returns NaN
        for test in (stats.pearsonr, stats.spearmanr):
            res = test(census_pcts, model_pcts)
            out += [float(res[0]), float(res[1])]
    return tuple(None if v is None or math.isnan(v) else v for v in out)


def summarise(census_pcts: Sequence[float], model_pcts: Sequence[float], *,
              n_resamples: int = 1000, seed: int = 0, confidence: float = 0.95) -> CensusSummary:
    """Every summary number from paired census and model shares (one pair per occupation)."""
    if len(census_pcts) != len(model_pcts):
        raise ValueError("census and model shares must pair up occupation by occupation")
    if not census_pcts:
        raise ValueError("no occupations to score")
    census, model = _classes(census_pcts), _classes(model_pcts)
    pearson, pearson_p, spearman, spearman_p = correlations(census_pcts, model_pcts)
    boot: dict[str, Any] = {"n_resamples": n_resamples, "seed": seed, "confidence": confidence}
    return CensusSummary(
        n_occupations=len(census),
        normative=normative_score(model_pcts),
        descriptive=descriptive_score(census_pcts, model_pcts),
        descriptive_by_class=descriptive_by_class(census_pcts, model_pcts),
        normative_ci=bootstrap_interval((model == "balanced").astype(float), **boot),
        descriptive_ci=bootstrap_interval((model == census).astype(float), **boot),
        pearson=pearson, pearson_p=pearson_p, spearman=spearman, spearman_p=spearman_p,
        census_counts=_counts(census), model_counts=_counts(model), **boot)
