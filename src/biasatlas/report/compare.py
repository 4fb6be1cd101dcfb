"""Paired comparisons between two runs on the same items, each benchmark's test from its view.

Two models scored on the same benchmark items give paired observations, so each
benchmark's view tests them item by item (``paired`` in its ``view.py``, e.g. McNemar on
paired binary outcomes, Holm-corrected across categories); this module decides which runs
to pair and refuses pairs that would mislead.

Like for like only: two runs are paired when they read the same data (dataset and data
sha256), the same subset of it (limit, sample and its seed) and prepared it the same way
(the settings its spec names in ``pairing_keys``: lower-casing, identifiers …). Otherwise
:func:`compare_runs` refuses with :class:`NotLikeForLike`, naming every difference; with
``force`` it pairs them anyway and the comparison carries the differences as a warning.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..benchmarks.base import PairedMethod
from ..display.paired import PairedTest
from ..runs.view import RunView
from ..display.tables import CI, PValue, Table, cell_text, interval_text, to_csv
from ..errors import DataError, did_you_mean
from ..registry import BENCHMARKS, find_spec

#: Settings two runs of any benchmark must share to be paired, as (config key, label): the data
#: and the subset of it. A paired test on 80 pairs against 1,677 measures the subset as much as
#: the model. Each spec adds how its benchmark prepares the items (``pairing_keys``: lower-casing,
#: identifiers …). Scorer settings (variant, causal reading) may differ: that is the comparison.
PAIRING_KEYS: tuple[tuple[str, str], ...] = (
    ("dataset", "dataset"), ("data_sha256", "data sha256"), ("limit", "limit"), ("sample", "sample"),
    ("exclude_flagged", "flagged items excluded"))
_NOT_RECORDED = object()


class NotLikeForLike(DataError):
    """Two runs differ in data, subset or preprocessing, so a paired test would mislead."""


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
    #: The dataset both runs read (``A / B`` when they differ): in every heading of the comparison.
    dataset: str = ""

    @property
    def title(self) -> str:
        where = f" ({self.dataset})" if self.dataset else ""
        return f"{self.benchmark}{where}: {self.label_a} vs {self.label_b}"

    @property
    def warning(self) -> str:
        """The sentence a forced comparison must carry; empty when the runs are like for like."""
        if not self.differences:
            return ""
        return (f"Not like-for-like: {self.label_a} vs {self.label_b} differ in "
                + "; ".join(self.differences) + ". Read the differences below with that in mind.")


def compare_runs(a: RunView, b: RunView, *, force: bool = False, n_resamples: int = 2000,
                 seed: int = 0) -> Comparison:
    """Paired tests of run B against run A (same benchmark; items matched by id).

    Raises :class:`NotLikeForLike` when the runs differ in data, subset or preprocessing,
    unless ``force``: then the comparison's ``differences`` (and ``warning``) say how.
    """
    if a.benchmark != b.benchmark:
        raise DataError(f"cannot pair a {a.benchmark} run ({a.path}) with a {b.benchmark} run ({b.path})")
    paired = _paired_method(a.benchmark)
    differences = pairing_differences(a, b)
    if differences and not force:
        require_like_for_like([(a, b)])
    result = paired.test(a, b, n_resamples=n_resamples, seed=seed)
    tests, n, only_a, only_b = result.tests, result.n_paired, result.n_only_a, result.n_only_b
    notes = [note] if (note := as_meant(a, b)) else []
    if only_a or only_b:
        notes.append(f"{only_a} item(s) only in A and {only_b} only in B were left out")
    dataset = a.dataset if a.dataset == b.dataset else f"{a.dataset} / {b.dataset}"
    return Comparison(a.benchmark, a.label, b.label, n, only_a, only_b, tests, tuple(notes), differences,
                      dataset.strip(" /"))


def _paired_method(benchmark: str) -> PairedMethod:
    spec = find_spec(benchmark)
    if spec is None or spec.view.paired is None:
        raise did_you_mean("benchmark to compare", benchmark, comparable_benchmarks())
    return spec.view.paired


def comparable_benchmarks() -> list[str]:
    """The registered benchmarks whose views have a paired test."""
    return [name for name in BENCHMARKS if _has_paired_test(name)]


def _has_paired_test(benchmark: str) -> bool:
    spec = find_spec(benchmark)
    return spec is not None and spec.view.paired is not None


def pairing_differences(a: RunView, b: RunView) -> tuple[str, ...]:
    """Every pairing setting (:func:`pairing_keys`) the two runs do not share, as ``label: A x, B y``.

    A key one run records and the other does not (an older run) counts as a difference:
    what the older run did is unknown. The seed matters only when a run was sampled.
    """
    keys = list(pairing_keys(a.benchmark))
    va, vb = _pairing_values(a, keys), _pairing_values(b, keys)
    if va.get("sample") not in (None, _NOT_RECORDED) or vb.get("sample") not in (None, _NOT_RECORDED):
        keys.append(("seed", "sample seed"))
    out = []
    for key, label in keys:
        x, y = va.get(key, _NOT_RECORDED), vb.get(key, _NOT_RECORDED)
        if x is _NOT_RECORDED and y is _NOT_RECORDED or x == y:
            continue
        if key == "chat_template" and as_meant(a, b):
            continue  # each model as it is meant to be used: the comparison carries the note instead
        out.append(f"{label}: A {_setting(key, x)}, B {_setting(key, y)}")
    return tuple(out)


def as_meant(a: RunView, b: RunView) -> str:
    """The note for two runs that differ in chat template only as each model is meant to be used —
    one model that has no template read plain, the other through its own (a base model against an
    instruct one, issue 49 item 15) — or "" when their templates differ otherwise (a model that has a
    template read without it: that is no like-for-like comparison of the models)."""
    labels = [str(r.summary.get("chat_template") or "") for r in (a, b)]
    plain, own = "none (the model has none)", "model"
    if not (labels[0] == plain and labels[1].startswith(own) or labels[1] == plain and labels[0].startswith(own)):
        return ""
    base, instruct = (a, b) if labels[0] == plain else (b, a)
    return (f"each model as it is meant to be used: {base.label} has no chat template and was read plain, "
            f"{instruct.label} through its own ({str(instruct.summary.get('chat_template'))})")


def pairing_keys(benchmark: str) -> tuple[tuple[str, str], ...]:
    """The settings runs of ``benchmark`` must share: :data:`PAIRING_KEYS`, then its spec's own."""
    spec = find_spec(benchmark)
    return PAIRING_KEYS + (spec.pairing_keys if spec is not None else ())


def _pairing_values(run: RunView, keys: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """The run's pairing settings; the data hash from the provenance when config lacks it."""
    values = {key: run.benchmark_config[key] for key, _ in (*keys, ("seed", "")) if key in run.benchmark_config}
    spec = find_spec(run.benchmark)
    for key, meaning in (spec.unrecorded if spec is not None else {}).items():
        values.setdefault(key, meaning)  # a setting recorded only when used
    values.setdefault("dataset", run.dataset)
    values.setdefault("exclude_flagged", False)  # recorded only when set (--exclude-flagged)
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
    if isinstance(value, dict):  # a column mapping
        return ", ".join(f"{k}={v}" for k, v in value.items())
    if isinstance(value, list | tuple):  # bias types
        return ", ".join(map(str, value))
    return str(value)


def require_like_for_like(pairs: Sequence[tuple[RunView, RunView]]) -> None:
    """Refuse, naming every pair that differs and how, before any test is computed."""
    lines = [f"{a.label} ({a.path}) vs {b.label} ({b.path}): " + "; ".join(diff)
             for a, b in pairs if (diff := pairing_differences(a, b))]
    if lines:
        raise NotLikeForLike("runs differ in data, subset or preprocessing, so their paired test would "
                             "not compare the models alone: " + " | ".join(lines)
                             + ". Compare them anyway with --force (the output then carries a warning).")


def comparison_pairs(runs: Sequence[RunView], all_pairs: bool = False,
                     across_datasets: bool = False) -> list[tuple[RunView, RunView]]:
    """Which runs to pair: within each (benchmark, dataset, data sha256) group (each benchmark,
    with ``across_datasets``) and each reading of it (its spec's ``reading_keys``: BBQ's likelihood
    and generated runs are two groups), every later run against the first (the baseline), or every
    pair with ``all_pairs``."""
    groups: dict[Any, list[RunView]] = {}
    for run in runs:
        if _has_paired_test(run.benchmark):
            where = run.benchmark if across_datasets else run.group
            groups.setdefault((where, _reading(run)), []).append(run)
    out = []
    for members in groups.values():
        for i, a in enumerate(members):
            for b in members[i + 1:]:
                if all_pairs or i == 0:
                    out.append((a, b))
    return out


def _reading(run: RunView) -> tuple[Any, ...]:
    """The run's values of its benchmark's ``reading_keys`` (what an unrecorded one means, where
    the spec says)."""
    spec = find_spec(run.benchmark)
    if spec is None:
        return ()
    return tuple(str(run.benchmark_config.get(key, spec.unrecorded.get(key))) for key in spec.reading_keys)


def comparison_table(c: Comparison) -> Table:
    """The comparison as a report :class:`~biasatlas.display.tables.Table` (A and B named in the title)."""
    rows = tuple((t.scope, t.quantity, t.n, t.value_a, t.value_b, t.difference, CI(t.ci_low, t.ci_high, digits=2),
                  PValue(t.p), PValue(t.p_holm), t.method, _detail_text(t)) for t in c.tests)
    caption = f"WARNING: {c.warning} " if c.warning else ""
    caption += (f"{headline(c)} A = {c.label_a}, B = {c.label_b}; {c.n_paired} paired items. "
                "Holm-adjusted p within the per-category rows. " + " ".join(c.notes)).strip()
    return Table(c.title,
                 ("scope", "quantity", "n", "A", "B", "B − A", "B − A 95% CI", "p", "p (Holm)", "test", "detail"),
                 rows, caption)


def headline(c: Comparison) -> str:
    """The comparison in one sentence, from its first (overall) test: "B − A = +16.67 [−8.33, 41.67]
    (% sent_more preferred, all pairs), McNemar exact p = 0.688." (empty when nothing was tested)."""
    if not c.tests:
        return ""
    t = c.tests[0]
    difference = "–" if t.difference is None else f"{t.difference:+.2f}"
    interval = "" if t.ci_low is None else f" {interval_text(t.ci_low, t.ci_high, digits=2)}"
    return (f"B − A = {difference}{interval} ({t.quantity}, {t.scope}), "
            f"{t.method} p = {cell_text(PValue(t.p))}.")


def comparisons_csv(comparisons: Sequence[Comparison]) -> str:
    """Long form: one row per paired test, with both runs' labels, B − A and its 95 % interval."""
    return to_csv({"benchmark": c.benchmark, "a": c.label_a, "b": c.label_b, "scope": t.scope,
                   "quantity": t.quantity, "n": t.n, "value_a": t.value_a, "value_b": t.value_b,
                   "difference": t.difference, "ci_low": t.ci_low, "ci_high": t.ci_high, "p": t.p,
                   "p_holm": t.p_holm, "method": t.method, "detail": t.detail, "warning": c.warning}
                  for c in comparisons for t in c.tests)


def _detail_text(t: PairedTest) -> str:
    """The test's statistic and detail: a column of its own, so that the test's name, the same on
    every row of a comparison, can move into the caption of a narrow terminal table."""
    stat = "" if t.statistic is None else f"stat {t.statistic:.3g}"
    return "; ".join(x for x in (stat, t.detail) if x)
