"""zh-neutral numbers for the report, read from a run's items (Zhao et al. 2021, SlguSet).

``b(s) = log(P(m | s) / P(f | s))`` per sentence; the model score is the mean of ``|b|``;
a sentence leans male if ``b > threshold``, female if ``b < −threshold``, neutral otherwise
(METHODS.md §3; :func:`.benchmark.leaning`). The counts and the per-pair breakdown are
counted from the items' recorded leaning, which every run has; the headline score and the
threshold are the summary's when present, else what the benchmark itself computes
(:data:`.benchmark.DEFAULT_THRESHOLD`, the mean of ``|b|``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...runs.view import RunView
from .benchmark import DEFAULT_THRESHOLD
from .benchmark import mean_or_none as mean  # the benchmark's own mean, so a fallback score is the one it writes
from .summary import zh_summary

#: The leanings in the order the report shows them: neutral between the two sides.
LEANINGS: tuple[str, ...] = ("male", "neutral", "female")


@dataclass(frozen=True)
class ZhPair:
    """One keyword pair (e.g. 他/她): how its sentences lean."""

    pair: str
    n: int
    mean_b: float
    mean_abs_b: float
    counts: Mapping[str, int]
    ci: tuple[float | None, float | None] = (None, None)


@dataclass(frozen=True)
class ZhOverview:
    n: int
    bias_score: float | None
    leaning: Mapping[str, int]
    pairs: tuple[ZhPair, ...]
    topics: Mapping[str, tuple[tuple[str, float | None], ...]]
    b: np.ndarray
    threshold: float = DEFAULT_THRESHOLD
    log_base: str = "e"


def zh_overview(run: RunView) -> ZhOverview:
    s = zh_summary(run)
    records = [r for r in run.records if r.get("b") is not None]
    b = np.asarray([float(r["b"]) for r in records], dtype=float)
    leaning = {k: sum(r["leaning"] == k for r in records) for k in LEANINGS}
    score = s.bias_score
    if score is None and len(b):
        score = mean([abs(float(x)) for x in b])
    threshold = DEFAULT_THRESHOLD if s.threshold is None else float(s.threshold)
    return ZhOverview(len(records), score, leaning, _pairs(records, s.pair_intervals), topics_of(run.summary), b,
                      threshold, str(run.summary.get("log_base") or "e"))


def _pairs(records: list[Mapping[str, Any]], intervals: Mapping[str, Any]) -> tuple[ZhPair, ...]:
    """Per keyword pair, from the items; the interval of mean |b| from the summary when it has one."""
    by: dict[str, list[Mapping[str, Any]]] = {}
    for r in records:
        by.setdefault(str(r["pair"]), []).append(r)
    out = []
    for pair, rs in by.items():
        b = np.asarray([float(r["b"]) for r in rs])
        counts = {k: sum(r["leaning"] == k for r in rs) for k in LEANINGS}
        ci = intervals.get(pair) or (None, None)
        out.append(ZhPair(pair, len(rs), float(b.mean()), float(np.abs(b).mean()), counts, (ci[0], ci[1])))
    return tuple(sorted(out, key=lambda p: -p.n))


def topics_of(summary: Mapping[str, Any]) -> dict[str, tuple[tuple[str, float | None], ...]]:
    """Topic words per leaning (and per method, e.g. ``male · tfidf``), whatever the list
    shape: words, [word, weight] pairs, ``{word: weight}`` maps, ``{"word", "score"}``
    records, or ``{leaning: {method: list}}`` as the zh-neutral benchmark writes."""
    topics = summary.get("topics") or {}
    if not isinstance(topics, Mapping):
        return {}
    out: dict[str, tuple[tuple[str, float | None], ...]] = {}
    for leaning, value in topics.items():
        if isinstance(value, Mapping) and value and all(isinstance(v, (list, tuple, Mapping))
                                                        for v in value.values()):
            out.update({f"{leaning} · {method}": _words(words) for method, words in value.items()})
        else:
            out[str(leaning)] = _words(value)
    return out


def _words(value: Any) -> tuple[tuple[str, float | None], ...]:
    if isinstance(value, Mapping):
        return tuple((str(w), _num(s)) for w, s in value.items())
    out: list[tuple[str, float | None]] = []
    for item in value or ():
        if isinstance(item, str):
            out.append((item, None))
        elif isinstance(item, Mapping):
            out.append((str(item.get("word", "")), _num(item.get("score", item.get("weight")))))
        elif isinstance(item, (list, tuple)) and item:
            out.append((str(item[0]), _num(item[1]) if len(item) > 1 else None))
    return tuple(out)


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
