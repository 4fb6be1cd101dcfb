"""Inter-annotator agreement on the binary "either gender fits" label.

Fleiss' kappa (Fleiss 1971) through ``statsmodels.stats.inter_rater`` and Krippendorff's
alpha, nominal level (Krippendorff 2011) through ``krippendorff``. Both are undefined
when every label is the same (no expected disagreement); they are reported as None then.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np


@dataclass(frozen=True, slots=True)
class Agreement:
    items: int
    raters: int
    observed: float  # share of items on which all raters agree
    fleiss_kappa: float | None
    krippendorff_alpha: float | None

    def to_dict(self) -> dict:
        return asdict(self)


def agreement(matrix: np.ndarray) -> Agreement:
    """Agreement of an items × raters 0/1 matrix."""
    from krippendorff import alpha
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    matrix = np.asarray(matrix, dtype=int)
    if matrix.ndim != 2 or matrix.shape[1] < 2:
        raise ValueError(f"need an items × raters matrix with two or more raters, got {matrix.shape}")
    items, raters = matrix.shape
    observed = float(np.mean(np.all(matrix == matrix[:, :1], axis=1))) if items else float("nan")
    if items == 0 or len(np.unique(matrix)) < 2:
        return Agreement(items, raters, observed, None, None)
    # aggregate_raters needs the categories as columns: counts[i, c] = raters giving c.
    counts, _ = aggregate_raters(matrix, n_cat=2)
    kappa = float(fleiss_kappa(counts, method="fleiss"))
    k_alpha = float(alpha(reliability_data=matrix.T, level_of_measurement="nominal"))
    return Agreement(items, raters, observed, kappa, k_alpha)


def agreement_report(labels: Sequence[dict[str, bool]], pair_of: dict[str, str]) -> dict:
    """Agreement overall, per keyword pair, and per pair of annotators."""
    ids = sorted(pair_of)
    matrix = np.array([[int(rater[i]) for rater in labels] for i in ids]).reshape(len(ids), len(labels))
    by_pair = {}
    for pair in sorted(set(pair_of.values())):
        rows = [n for n, i in enumerate(ids) if pair_of[i] == pair]
        by_pair[pair] = agreement(matrix[rows]).to_dict()
    by_annotators = {
        f"{a + 1}-{b + 1}": agreement(matrix[:, [a, b]]).to_dict()
        for a, b in itertools.combinations(range(len(labels)), 2)
    }
    return {"overall": agreement(matrix).to_dict(), "by_keyword_pair": by_pair,
            "by_annotator_pair": by_annotators}


def unanimous_neutral(labels: Sequence[dict[str, bool]]) -> set[str]:
    """Ids every annotator labelled neutral: the paper's 100 % agreement rule."""
    ids = set(labels[0])
    return {i for i in ids if all(rater[i] for rater in labels)}
