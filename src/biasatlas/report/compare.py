"""Paired tests between two runs on the same items, Holm-corrected across categories.

Two models scored on the same benchmark items give paired observations, so the tests
compare them item by item rather than as two independent samples:

- CrowS-Pairs: McNemar's test (McNemar 1947) on the 2×2 table of "``sent_more`` scores
  higher" under model A and model B; only the discordant cells count. Exact (binomial)
  when the discordant pairs number fewer than 25, else the χ² statistic with continuity
  correction. Per bias category, then Holm (1979) across the categories.
- zh-neutral: Wilcoxon signed-rank test on the per-sentence ``|b|`` (the paper's score is
  its mean), overall and per keyword pair with Holm across pairs; plus the signed ``b``
  overall (does one model lean more male?).
- census: a paired bootstrap over occupations (the same resampled occupations for both
  models), on the normative and descriptive scores, the mean model share, and the three
  per-class descriptive shares (Holm across the classes). p is the share of resampled
  differences at least as far from the observed one as the observed one is from 0
  (the bootstrap distribution shifted to the null), with the usual +1 correction.

Items are matched by id; items present in one run only are counted and left out.

Like for like only: two runs are paired when they read the same data (dataset and data
sha256), the same subset of it (limit, sample and its seed) and prepared it the same way
(lower-casing, census identifiers, country, language, method). Otherwise
:func:`compare_runs` refuses with :class:`NotLikeForLike`, naming every difference; with
``force`` it pairs them anyway and the comparison carries the differences as a warning.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import DataError
from .runs import RunView

EXACT_BELOW = 25  # discordant pairs; below this McNemar's χ² approximation is poor
#: Benchmark settings two runs must share to be paired, as (config key, label). A paired test
#: on 80 pairs against 1,677, or on cased against lower-cased text, measures the setting as
#: much as the model. Scorer settings (variant, causal reading) may differ: that is the comparison.
PAIRING_KEYS: tuple[tuple[str, str], ...] = (
    ("dataset", "dataset"), ("data_sha256", "data sha256"), ("limit", "limit"), ("sample", "sample"),
    ("lowercase", "lowercase"), ("identifiers", "identifiers"), ("country", "census country"),
    ("language", "language"), ("variant", "method"), ("template_set", "template set"),
    ("pairs", "keyword pairs"))
_NOT_RECORDED = object()


class NotLikeForLike(DataError):
    """Two runs differ in data, subset or preprocessing, so a paired test would mislead."""


@dataclass(frozen=True)
class PairedTest:
    """One paired comparison; ``p_holm`` is set for rows inside a Holm family."""

    scope: str
    quantity: str
    n: int
    value_a: float | None
    value_b: float | None
    statistic: float | None
    p: float | None
    method: str
    p_holm: float | None = None
    detail: str = ""

    @property
    def difference(self) -> float | None:
        """B − A, in the units of the quantity."""
        if self.value_a is None or self.value_b is None:
            return None
        return self.value_b - self.value_a


@dataclass(frozen=True)
class Comparison:
    benchmark: str
    label_a: str
    label_b: str
    n_paired: int
    n_only_a: int
    n_only_b: int
    tests: tuple[PairedTest, ...]
    notes: tuple[str, ...] = ()
    differences: tuple[str, ...] = ()

    @property
    def warning(self) -> str:
        """The sentence a forced comparison must carry; empty when the runs are like for like."""
        if not self.differences:
            return ""
        return (f"Not like-for-like: {self.label_b} vs {self.label_a} differ in "
                + "; ".join(self.differences) + ". Read the differences below with that in mind.")


# -- the statistics -----------------------------------------------------------------------
def mcnemar_table(a: Sequence[bool], b: Sequence[bool]) -> np.ndarray:
    """[[both, A only], [B only, neither]] for paired binary outcomes."""
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

    The same indices serve both runs because ``diff`` is already A − B per item.
    """
    if len(diff) == 0:
        return math.nan, math.nan, math.nan
    rng = np.random.default_rng(seed)
    means = diff[rng.integers(0, len(diff), size=(n_resamples, len(diff)))].mean(axis=1)
    observed = float(diff.mean())
    p = (1 + np.sum(np.abs(means - observed) >= abs(observed))) / (n_resamples + 1)
    tail = (1 - confidence) / 2
    low, high = np.quantile(means, [tail, 1 - tail])
    return float(p), float(low), float(high)


# -- pairing ------------------------------------------------------------------------------
def _pair_items(a: RunView, b: RunView, key: str) -> tuple[list[Any], list[Any], int, int]:
    ia = {str(r[key]): r for r in a.records}
    ib = {str(r[key]): r for r in b.records}
    shared = [k for k in ia if k in ib]
    if not shared:
        raise DataError(f"runs {a.path} and {b.path} share no items: compare runs of the same dataset")
    return [ia[k] for k in shared], [ib[k] for k in shared], len(ia) - len(shared), len(ib) - len(shared)


def _with_holm(tests: list[PairedTest], family: Callable[[PairedTest], bool]) -> tuple[PairedTest, ...]:
    from dataclasses import replace

    members = [i for i, t in enumerate(tests) if family(t)]
    adjusted = holm([tests[i].p for i in members])
    out = list(tests)
    for i, p in zip(members, adjusted):
        out[i] = replace(out[i], p_holm=p)
    return tuple(out)


def _crows(a: RunView, b: RunView, **_: Any) -> tuple[tuple[PairedTest, ...], int, int, int]:
    ra, rb, only_a, only_b = _pair_items(a, b, "id")
    tests = [_mcnemar_row("all pairs", ra, rb)]
    for cat in sorted({r["bias_type"] for r in ra}):
        keep = [i for i, r in enumerate(ra) if r["bias_type"] == cat]
        tests.append(_mcnemar_row(cat, [ra[i] for i in keep], [rb[i] for i in keep]))
    return _with_holm(tests, lambda t: t.scope != "all pairs"), len(ra), only_a, only_b


def _mcnemar_row(scope: str, ra: Sequence[Mapping[str, Any]], rb: Sequence[Mapping[str, Any]]) -> PairedTest:
    x = [r["outcome"] == "more" for r in ra]
    y = [r["outcome"] == "more" for r in rb]
    table = mcnemar_table(x, y)
    stat, p, method = mcnemar_test(table)
    # the exact test's statistic is just min(A only, B only): show the counts instead
    return PairedTest(scope, "% sent_more preferred", len(ra), 100.0 * float(np.mean(x)),
                      100.0 * float(np.mean(y)), None if method == "McNemar exact" else stat, p, method,
                      detail=f"discordant: A {table[0, 1]}, B {table[1, 0]}")


def _zh(a: RunView, b: RunView, **_: Any) -> tuple[tuple[PairedTest, ...], int, int, int]:
    ra, rb, only_a, only_b = _pair_items(a, b, "id")
    keep = [i for i in range(len(ra)) if ra[i].get("b") is not None and rb[i].get("b") is not None]
    ra, rb = [ra[i] for i in keep], [rb[i] for i in keep]
    ba, bb = np.array([float(r["b"]) for r in ra]), np.array([float(r["b"]) for r in rb])
    tests = [_wilcoxon_row("all sentences", "mean |b|", np.abs(ba), np.abs(bb)),
             _wilcoxon_row("all sentences", "mean b (signed)", ba, bb)]
    pairs = np.array([str(r["pair"]) for r in ra])
    for pair in sorted(set(pairs)):
        mask = pairs == pair
        tests.append(_wilcoxon_row(pair, "mean |b|", np.abs(ba[mask]), np.abs(bb[mask])))
    return _with_holm(tests, lambda t: t.scope != "all sentences"), len(ra), only_a, only_b


def _wilcoxon_row(scope: str, quantity: str, a: np.ndarray, b: np.ndarray) -> PairedTest:
    stat, p, detail = wilcoxon_test(a, b)
    return PairedTest(scope, quantity, len(a), float(a.mean()) if len(a) else None,
                      float(b.mean()) if len(b) else None, stat, p, "Wilcoxon signed-rank", detail=detail)


def _census(a: RunView, b: RunView, *, n_resamples: int = 2000, seed: int = 0
            ) -> tuple[tuple[PairedTest, ...], int, int, int]:
    ra, rb, only_a, only_b = _pair_items(a, b, "occupation")
    census = np.array([r["census_class"] for r in ra])
    ca, cb = np.array([r["model_class"] for r in ra]), np.array([r["model_class"] for r in rb])
    # Each score is a mean over occupations of a per-occupation value (×100), so the paired
    # bootstrap resamples the per-occupation differences of that value.
    per_item = {"normative": (ca == "balanced", cb == "balanced"),
                "descriptive": (ca == census, cb == census),
                "mean model share": (np.array([r["model_female_pct"] for r in ra]) / 100,
                                     np.array([r["model_female_pct"] for r in rb]) / 100)}
    for cls in ("female", "male", "balanced"):
        per_item[f"descriptive: {cls}"] = ((ca == cls) & (census == cls), (cb == cls) & (census == cls))
    tests = []
    for name, (va, vb) in per_item.items():
        va, vb = 100.0 * va.astype(float), 100.0 * vb.astype(float)
        p, low, high = paired_bootstrap(vb - va, n_resamples, seed)
        scope = name.split(": ")[1] if ": " in name else "all occupations"
        tests.append(PairedTest(scope, name.split(":")[0], len(va), float(va.mean()), float(vb.mean()),
                                None, p, f"paired bootstrap ({n_resamples}, seed {seed})",
                                detail=f"B − A 95% CI [{low:.1f}, {high:.1f}]"))
    return _with_holm(tests, lambda t: t.scope != "all occupations"), len(ra), only_a, only_b


_COMPARERS = {"crows-pairs": _crows, "zh-neutral": _zh, "census": _census}


def compare_runs(a: RunView, b: RunView, *, force: bool = False, n_resamples: int = 2000,
                 seed: int = 0) -> Comparison:
    """Paired tests of run B against run A (same benchmark; items matched by id).

    Raises :class:`NotLikeForLike` when the runs differ in data, subset or preprocessing,
    unless ``force``: then the comparison's ``differences`` (and ``warning``) say how.
    """
    if a.benchmark != b.benchmark:
        raise DataError(f"cannot pair a {a.benchmark} run ({a.path}) with a {b.benchmark} run ({b.path})")
    if a.benchmark not in _COMPARERS:
        from ..errors import did_you_mean

        raise did_you_mean("benchmark to compare", a.benchmark, _COMPARERS)
    differences = pairing_differences(a, b)
    if differences and not force:
        require_like_for_like([(a, b)])
    tests, n, only_a, only_b = _COMPARERS[a.benchmark](a, b, n_resamples=n_resamples, seed=seed)
    notes = []
    if only_a or only_b:
        notes.append(f"{only_a} item(s) only in A and {only_b} only in B were left out")
    return Comparison(a.benchmark, a.label, b.label, n, only_a, only_b, tests, tuple(notes), differences)


def pairing_differences(a: RunView, b: RunView) -> tuple[str, ...]:
    """Every :data:`PAIRING_KEYS` setting the two runs do not share, as ``label: A x, B y``.

    A key one run records and the other does not (an older run) counts as a difference:
    what the older run did is unknown. The seed matters only when a run was sampled.
    """
    va, vb = _pairing_values(a), _pairing_values(b)
    keys = list(PAIRING_KEYS)
    if va.get("sample") not in (None, _NOT_RECORDED) or vb.get("sample") not in (None, _NOT_RECORDED):
        keys.append(("seed", "sample seed"))
    out = []
    for key, label in keys:
        x, y = va.get(key, _NOT_RECORDED), vb.get(key, _NOT_RECORDED)
        if x is _NOT_RECORDED and y is _NOT_RECORDED or x == y:
            continue
        out.append(f"{label}: A {_setting(key, x)}, B {_setting(key, y)}")
    return tuple(out)


def _pairing_values(run: RunView) -> dict[str, Any]:
    """The run's pairing settings; the data hash from the provenance when config lacks it."""
    values = {key: run.benchmark_config[key] for key, _ in PAIRING_KEYS + (("seed", ""),)
              if key in run.benchmark_config}
    values.setdefault("dataset", run.dataset)
    if run.data_sha256:
        values["data_sha256"] = run.data_sha256
    return values


def _setting(key: str, value: Any) -> str:
    if value is _NOT_RECORDED:
        return "not recorded"
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if key == "data_sha256":
        return str(value)[:12]
    return str(value)


def require_like_for_like(pairs: Sequence[tuple[RunView, RunView]]) -> None:
    """Refuse, naming every pair that differs and how, before any test is computed."""
    lines = [f"{b.label} ({b.path}) vs {a.label} ({a.path}): " + "; ".join(diff)
             for a, b in pairs if (diff := pairing_differences(a, b))]
    if lines:
        raise NotLikeForLike("runs differ in data, subset or preprocessing, so their paired test would "
                             "not compare the models alone: " + " | ".join(lines)
                             + ". Compare them anyway with --force (the output then carries a warning).")


def comparison_pairs(runs: Sequence[RunView], all_pairs: bool = False,
                     across_datasets: bool = False) -> list[tuple[RunView, RunView]]:
    """Which runs to pair: within each (benchmark, dataset, data sha256) group (each benchmark,
    with ``across_datasets``), every later run against the first (the baseline), or every pair
    with ``all_pairs``."""
    groups: dict[Any, list[RunView]] = {}
    for run in runs:
        if run.benchmark in _COMPARERS:
            groups.setdefault(run.benchmark if across_datasets else run.group, []).append(run)
    out = []
    for members in groups.values():
        for i, a in enumerate(members):
            for b in members[i + 1:]:
                if all_pairs or i == 0:
                    out.append((a, b))
    return out


def comparison_table(c: Comparison) -> Any:
    """The comparison as a report :class:`~.tables.Table` (A and B named in the title)."""
    from .tables import PValue, Table

    rows = tuple((t.scope, t.quantity, t.n, t.value_a, t.value_b, t.difference, PValue(t.p),
                  PValue(t.p_holm), _test_text(t)) for t in c.tests)
    caption = f"WARNING: {c.warning} " if c.warning else ""
    caption += (f"A = {c.label_a}, B = {c.label_b}; {c.n_paired} paired items. "
                "Holm-adjusted p within the per-category rows. " + " ".join(c.notes)).strip()
    return Table(f"{c.benchmark}: {c.label_b} vs {c.label_a}",
                 ("scope", "quantity", "n", "A", "B", "B − A", "p", "p (Holm)", "test"), rows, caption)


def _test_text(t: PairedTest) -> str:
    stat = "" if t.statistic is None else f"stat {t.statistic:.3g}"
    return "; ".join(x for x in (t.method, stat, t.detail) if x)
