"""A sensitivity run's results (:mod:`.runner` runs it): ``sensitivity.json`` written and
read back, its tables, and, over several models, the ranking stability (Kendall's τ-b between the
models' unperturbed ranking and their ranking under each perturbation, ``scipy.stats.kendalltau``,
with a percentile interval from a seeded bootstrap over the models; no interval below three
models, where τ can only be ±1).

It reads and writes folders only, never a model: :mod:`.runner` runs the requests and
hands the result here; ``biasatlas report`` and a suite's ``sensitivity.md`` read folders through
:func:`report` and :func:`read`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..atomic import atomic_write
from ..benchmarks.sensitivity import UNPERTURBED
from ..display.tables import CI, Table, to_markdown
from ..errors import DataError, UsageError
from ..report.html import render_tables_page

SENSITIVITY_FILE = "sensitivity.json"
TABLE_FILE = "sensitivity.md"
#: Version of sensitivity.json's layout (a reader refuses one it does not know).
FORMAT = 1


# -- writing and reading ------------------------------------------------------------------------
def write(result: Mapping[str, Any], out: Path) -> None:
    """sensitivity.json and sensitivity.md (the table as Markdown) in ``out``, each written atomically."""
    out.mkdir(parents=True, exist_ok=True)
    atomic_write(out / SENSITIVITY_FILE, json.dumps(result, indent=2, sort_keys=True, allow_nan=False) + "\n")
    atomic_write(out / TABLE_FILE, "\n\n".join(to_markdown(t) for t in tables(result)) + "\n")


def read(folder: Path) -> dict[str, Any]:
    """A sensitivity folder's sensitivity.json, checked enough to tabulate (DataError naming the
    file and the field otherwise)."""
    path = Path(folder) / SENSITIVITY_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise DataError(f"cannot read: {exc.strerror or exc}", path=path) from None
    except ValueError as exc:
        raise DataError(f"not JSON: {exc}", path=path) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise DataError(f"field 'format': expected {FORMAT}, the layout this version reads", path=path)
    for key, kind in (("benchmark", str), ("kind", str), ("label", str), ("runs", list)):
        if not isinstance(data.get(key), kind):
            raise DataError(f"field {key!r}: expected a {kind.__name__}", path=path)
    if not data["runs"] or data["runs"][0].get("name") != UNPERTURBED:
        raise DataError(f"field 'runs': the first run must be {UNPERTURBED!r}", path=path)
    return data


# -- tables -----------------------------------------------------------------------------------------
def tables(result: Mapping[str, Any]) -> list[Any]:
    """The run's table (each run's headlines with intervals, and its flip share) and the spread."""
    names = list(result["spread"])
    rows = []
    for e in result["runs"]:
        cells: list[Any] = [e["name"]]
        for n in names:
            h = e["headlines"].get(n) or {}
            value = h.get("value")
            cells.append("–" if value is None else f"{value:.2f} {CI(h.get('low'), h.get('high'), 1)}")
        f = e["flips"]
        cells.append("–" if f is None else f"{f['flipped']}/{f['n']} ({_percent(f['share'])})")
        rows.append(tuple(cells))
    labels = result.get("labels") or {}
    columns = ("run", *(labels.get(n, n) for n in names), "flips")
    title = f"Sensitivity ({result['kind']}): {result['benchmark']} · {result['label']}"
    about = "; ".join(f"{e['name']}: {e['about']}" for e in result["runs"] if e["perturbation"] is not None)
    caption = (f"Each headline with its 95% interval. Flips: items whose outcome ({result['outcome']}) differs "
               f"from the unperturbed run's, of the items both scored. Runs: {about}.")
    spread_rows = tuple((labels.get(n, n), _round(s["min"]), _round(s["max"]), _round(s["range"]), s["min_run"] or "–",
                         s["max_run"] or "–") for n, s in result["spread"].items())
    return [Table(title, columns, tuple(rows), caption),
            Table(f"Spread over {len(result['runs'])} runs", ("headline", "min", "max", "range", "at min", "at max"),
                  spread_rows)]


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def _percent(share: float | None) -> str:
    return "–" if share is None else f"{100 * share:.1f} %"


# -- over several models ------------------------------------------------------------------------------
def ranking_stability(results: Sequence[Mapping[str, Any]], *, n_resamples: int = 1000,
                      seed: int = 0) -> list[dict[str, Any]]:
    """Kendall's τ between the models' unperturbed ranking and their ranking under each perturbation,
    per benchmark, kind and headline, over the sensitivity results of several models (module
    docstring). One row each, with the models' values."""
    groups: dict[tuple[str, str, str], list[Mapping[str, Any]]] = {}
    for r in results:
        groups.setdefault((r["benchmark"], r["kind"], r.get("setting") or ""), []).append(r)
    rows = []
    for (benchmark, kind, _), members in groups.items():
        labels = [m["label"] for m in members]
        if len(set(labels)) != len(labels):
            raise UsageError(f"{benchmark} {kind}: two sensitivity folders of one model ({', '.join(labels)}); "
                             "give each model one")
        for name, headline in _perturbed_headlines(members):
            base = [_value(m, UNPERTURBED, headline) for m in members]
            moved = [_value(m, name, headline) for m in members]
            kept = [i for i, (a, b) in enumerate(zip(base, moved, strict=True)) if a is not None and b is not None]
            # kept: not None; rounded to 6 decimals, so that two models' values equal but for float noise
            # (BBQ's 27.27 reached by two roads) tie instead of ranking by the noise
            x, y = [round(float(base[i] or 0), 6) for i in kept], [round(float(moved[i] or 0), 6) for i in kept]
            tau, low, high = kendall_with_interval(x, y, n_resamples=n_resamples, seed=seed)
            rows.append({"benchmark": benchmark, "dataset": members[0].get("dataset"), "kind": kind,
                         "perturbation": name, "headline": headline,
                         "label": (members[0].get("labels") or {}).get(headline, headline),
                         "n_models": len(kept), "tau": tau, "low": low, "high": high,
                         "models": {members[i]["label"]: [base[i], moved[i]] for i in kept}})
    return rows


def _perturbed_headlines(members: Sequence[Mapping[str, Any]]) -> list[tuple[str, str]]:
    """(perturbation, headline) pairs present in every member, in the first member's order."""
    def pairs(m: Mapping[str, Any]) -> list[tuple[str, str]]:
        return [(e["name"], h) for e in m["runs"] if e["name"] != UNPERTURBED for h in e["headlines"]]

    common = set.intersection(*(set(pairs(m)) for m in members))
    return [p for p in pairs(members[0]) if p in common]


def _value(result: Mapping[str, Any], run_name: str, headline: str) -> float | None:
    for e in result["runs"]:
        if e["name"] == run_name:
            value = (e["headlines"].get(headline) or {}).get("value")
            return None if value is None else float(value)
    return None


def kendall_with_interval(x: Sequence[float], y: Sequence[float], *, n_resamples: int = 1000,
                          seed: int = 0) -> tuple[float | None, float | None, float | None]:
    """Kendall's τ-b of ``x`` and ``y`` and its 95% percentile interval over ``n_resamples``
    resamples of the pairs, drawn with replacement by ``numpy.random.default_rng(seed)``
    (resamples where τ is undefined, all values tied, are left out). τ is None below two pairs or
    when undefined; the interval is None below three pairs."""
    import numpy as np
    from scipy.stats import kendalltau

    if len(x) < 2:
        return None, None, None
    tau = _tau(kendalltau(x, y).statistic)
    if tau is None or len(x) < 3:
        return tau, None, None
    rng = np.random.default_rng(seed)
    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    draws = []
    for _ in range(n_resamples):
        pick = rng.integers(0, len(xs), size=len(xs))
        value = _tau(kendalltau(xs[pick], ys[pick]).statistic)
        if value is not None:
            draws.append(value)
    if not draws:
        return tau, None, None
    low, high = np.percentile(draws, [2.5, 97.5])
    return tau, float(low), float(high)


def _tau(value: Any) -> float | None:
    value = float(value)
    return None if math.isnan(value) else value


def stability_table(rows: Sequence[Mapping[str, Any]], *, n_resamples: int = 1000, seed: int = 0) -> Any:
    """The rows of :func:`ranking_stability` as one table."""
    cells = tuple((r["benchmark"], r.get("dataset") or "–", r["kind"], r["perturbation"], r.get("label", r["headline"]),
                   r["n_models"], _round(r["tau"]), CI(r["low"], r["high"], 2)) for r in rows)
    return Table("Ranking stability: Kendall's τ of each perturbation's model ranking against the unperturbed one",
                 ("benchmark", "dataset", "kind", "perturbation", "headline", "models", "τ", "95% CI"), cells,
                 f"Interval: a bootstrap over the models ({n_resamples:,} resamples, seed {seed}); none below "
                 "three models.")


def report(folders: Sequence[Path], fmt: str, *, n_resamples: int = 1000, seed: int = 0) -> str:
    """``biasatlas report`` over sensitivity folders: each folder's tables, then the ranking stability
    over the models (:func:`ranking_stability`), as Markdown, HTML or JSON."""
    results = [read(f) for f in folders]
    rows = ranking_stability(results, n_resamples=n_resamples, seed=seed)
    if fmt == "json":
        return json.dumps({"sensitivity": results, "ranking_stability": rows}, indent=2, allow_nan=False)
    shown = [t for r in results for t in tables(r)] + ([stability_table(rows, n_resamples=n_resamples, seed=seed)]
                                                      if rows else [])
    if fmt == "md":
        return "\n\n".join(to_markdown(t) for t in shown) + "\n"
    if fmt == "html":
        return str(render_tables_page(shown, "biasatlas sensitivity", []))
    raise UsageError(f"a report of sensitivity folders is md, html or json, not {fmt}")
