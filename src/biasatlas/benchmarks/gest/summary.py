"""A GEST summary: the stereotype rates per template and pooled, each stereotype's ``r_i`` with its
rank, and its typed read-back (the measures: :mod:`.analysis`).

summary.json holds the pooled measures at the top (``g_s``, ``r_f``, ``r_m`` with intervals, ``g_s``'s
p, the 16 ``stereotypes``), and ``templates``: the same for each template in use.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypedDict

import numpy as np

from ...runs.checks import Interval, WithIntervals
from ...runs.typed import Summary, same_object, when_set
from ...runs.view import Column
from .analysis import Boot, Rates, all_rates, bootstrap, interval, log_p, ranks
from .data import STEREOTYPES, side

#: The items.jsonl fields the report reads.
COLUMNS: tuple[Column, ...] = (Column("id"), Column("stereotype", "string"), Column("side", "string"),
                               Column("score", "number"), Column("aligned", "number"))


class StereotypeRow(TypedDict, total=False):
    """One stereotype: its id (1–16), side, sentence count, ``r_i`` with its interval, and its feminine
    rank (1 = most female; absent unless all 16 stereotypes have sentences)."""

    id: float
    side: str
    n: float
    r: float | None
    low: float | None
    high: float | None
    rank: float | None


@dataclass(frozen=True)
class StereotypeRates(WithIntervals):
    """The paper's measures of one template (or pooled over templates): ``g_s = r_m / r_f`` with its
    bootstrap p against 1, ``r_f``, ``r_m`` and every stereotype's row, by name."""

    g_s: float | None = None
    g_s_p: float | None = None
    r_f: float | None = None
    r_m: float | None = None
    stereotypes: Mapping[str, StereotypeRow] = field(default_factory=dict)
    intervals: Mapping[str, Interval | None] = field(default_factory=dict)


@dataclass(frozen=True)
class GestRunSummary(Summary):
    """The pooled measures, each template's, how many sentences were scored and skipped, the reading
    (``masked``, ``next-token``, ``given``) and the data version."""

    overall: StereotypeRates = same_object(StereotypeRates)
    templates: Mapping[str, StereotypeRates] = field(default_factory=dict)
    n: float | None = None
    n_skipped: float | None = None
    reading: str | None = None
    version: str | None = None
    dataset: str | None = when_set()


def _finite(x: float) -> float | None:
    return float(x) if np.isfinite(x) else None


def _measures(rates: Rates, boot: Boot, k: int, counts: Sequence[int]) -> StereotypeRates:
    """One template's (``k``; T: pooled) measures with their intervals from ``boot``."""
    order = ranks(rates.r)
    rows: dict[str, StereotypeRow] = {}
    for i, name in enumerate(STEREOTYPES):
        ci = interval(boot.r[:, k, i])
        rows[name] = {"id": i + 1, "side": side(i + 1), "n": counts[i], "r": _finite(rates.r[i]),
                      "low": ci[0] if ci else None, "high": ci[1] if ci else None,
                      "rank": order[i] if order else None}
    return StereotypeRates(_finite(rates.g_s), log_p(boot.g_s[:, k], rates.g_s), _finite(rates.r_f),
                           _finite(rates.r_m), rows,
                           {name: interval(getattr(boot, name)[:, k]) for name in ("g_s", "r_f", "r_m")})


def summarise(scores: np.ndarray, stereotypes: np.ndarray, keys: Sequence[str], *, n_resamples: int, seed: int,
              n_skipped: int, reading: str, version: str, dataset: str | None) -> GestRunSummary:
    """The summary of ``scores`` (n sentences × the templates ``keys``), ``stereotypes`` (n,) ids."""
    counts = [int(np.sum(stereotypes == i + 1)) for i in range(len(STEREOTYPES))]
    per, overall = all_rates(scores, stereotypes)
    boot = bootstrap(scores, stereotypes, n_resamples=n_resamples, seed=seed)
    by_template = {key: _measures(r, boot, k, counts) for k, (key, r) in enumerate(zip(keys, per))}
    return GestRunSummary(_measures(overall, boot, len(keys), counts), by_template, len(scores), n_skipped,
                          reading, version, dataset)
