"""Sensitivity runs: one run request scored under a set of named perturbations (issue 27).

``biasatlas run NAME --sensitivity KIND`` runs the request as it is (the ``unperturbed`` run)
and once per perturbation its spec declares for that kind
(:mod:`biasatlas.benchmarks.sensitivity`), each an ordinary run through
:func:`biasatlas.api.execute` into its own subfolder of ``--out``, all through one score cache:
whatever two runs ask alike (the unperturbed run of an earlier call, BBQ's options in another
order) is scored once. It then writes ``sensitivity.json`` and ``sensitivity.md`` beside them:

- each run's headline numbers with their intervals;
- the spread of each headline over the runs: min, max and range (max − min), the unperturbed
  run included;
- the flip share: of the items both runs scored, the share whose outcome (the spec's
  ``outcome``: which sentence is preferred, which answer is chosen …) differs from the
  unperturbed run's. An outcome that becomes a tie, or stops being one, counts as a flip.

Over several models (:func:`ranking_stability`): Kendall's τ-b (``scipy.stats.kendalltau``)
between the models' ranking under each perturbation and their unperturbed ranking, with a
percentile interval from a seeded bootstrap over the models (models drawn with replacement;
no interval below three models, where τ can only be ±1).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .benchmarks.sensitivity import UNPERTURBED, Perturbation, Perturbed, Sensitivity
from .errors import DataError, UsageError
from .outputs import check_output
from .request import GivenModel, RunRequest

if TYPE_CHECKING:
    from .runs.evaluation import EvaluationRun
    from .benchmarks.base import BenchmarkSpec
    from .cache import ScoreCache

SENSITIVITY_FILE = "sensitivity.json"
TABLE_FILE = "sensitivity.md"
#: Version of sensitivity.json's layout (a reader refuses one it does not know).
FORMAT = 1


def declaration(spec: BenchmarkSpec, kind: str) -> Sensitivity:
    """The spec's sensitivity declaration, refusing a kind it does not offer in one line that
    names the ones it does."""
    sens = spec.sensitivity
    if sens is None or not sens.kinds:
        raise UsageError(f"{spec.name} declares no sensitivity runs")
    if kind not in sens.kinds:
        raise UsageError(f"{spec.name} has no --sensitivity {kind}: it offers {', '.join(sens.kinds)}")
    return sens


@dataclass(frozen=True)
class Planned:
    """One run of a sensitivity run: its folder name, the request, and its perturbation (None: the
    unperturbed run)."""

    name: str
    request: RunRequest
    perturbation: Perturbation | None


def plan(request: RunRequest, kind: str) -> list[Planned]:
    """The unperturbed run, then one run per perturbation of ``kind`` that differs from it (a
    rule equal to the request's own, e.g. ``sentence-ll`` when it is the variant, is left out)."""
    from .registry import benchmark_spec

    spec = benchmark_spec(request.bench.name)
    sens = declaration(spec, kind)
    scorer = request.model.kind()
    runs = [Planned(UNPERTURBED, request, None)]
    for p in sens.kinds[kind](request.bench, scorer):
        sub = perturbed(request, p, kind)
        if p.wraps or not _same_run(request, sub, scorer):  # a wrapped run reads other items or probes
            runs.append(Planned(p.name, sub, p))
    if len(runs) == 1:
        why = {"preambles": "neutral preambles exist for en, fr, no and de text only",
               "rules": f"a {scorer} scorer has no other rule here",
               "paraphrases": "paraphrase sets exist for the paper's own templates only"}.get(kind, "none applies")
        raise UsageError(f"{spec.name} has no {kind} perturbations for this run: {why}")
    return runs


def perturbed(request: RunRequest, p: Perturbation, kind: str) -> RunRequest:
    """``request`` under ``p``: its options and model options replaced, the benchmark wrapped in
    :class:`Perturbed` where ``p`` rewrites items or probes."""
    if p.model and isinstance(request.model, GivenModel):
        raise UsageError(f"--sensitivity {kind} changes the scorer ({', '.join(p.model)}): it needs a model by "
                         "name or folder, not one already built")
    model = replace(request.model, **p.model) if p.model else request.model
    clean = request.exclude_flagged  # every run scores the same (clean) items
    if isinstance(request.benchmark, str):
        sub = RunRequest(request.benchmark, {**request.options, **p.options}, model, request.engine, clean)
    else:
        sub = RunRequest(_with_options(request.bench, p.options), {}, model, request.engine, clean)
    return RunRequest(Perturbed(sub.bench, p, kind), {}, model, request.engine, clean) if p.wraps else sub


def _with_options(bench: Any, options: Mapping[str, Any]) -> Any:
    """A built benchmark (a frozen dataclass, as every benchmark is) with ``options`` replaced."""
    return replace(bench, **options) if options else bench


def _same_run(a: RunRequest, b: RunRequest, scorer: str) -> bool:
    """Whether two requests would score alike: the benchmark set up for the scorer records the
    same config (census resolves ``auto`` readings there), under the same effective variant."""
    from .registry import VARIANTS

    def effective(request: RunRequest) -> tuple[Any, Any]:
        bench = request.scorer_options.bound(request.bench, scorer)
        variant = request.scorer_options.variant or next(iter(VARIANTS.get(scorer, ())), None)
        return json.dumps(bench.config(), sort_keys=True, default=str), variant

    return effective(a) == effective(b)


# -- running ----------------------------------------------------------------------------------------
def run(request: RunRequest, kind: str, *, out: Path | None = None, cache: bool | ScoreCache = True,
        refresh: bool = False, force: bool = False, progress: bool = True, log: Callable[[str], None] | None = None,
        label: str | None = None) -> dict[str, Any]:
    """Every run of :func:`plan` through :func:`biasatlas.api.execute` (into ``out/<name>`` when
    ``out`` is given) with one score cache, then the comparison (:func:`compare`), written to
    ``out`` as sensitivity.json and sensitivity.md. Returns sensitivity.json's content."""
    from .api import _cache, execute
    from .errors import UsageError
    from .registry import benchmark_spec

    if request.model.predictions is not None:  # the file answered its own prompts once, by id
        raise UsageError("--sensitivity perturbs what a model is asked; a predictions file holds answers to its "
                         "own prompts only, so every perturbation would read the same answers")
    planned = plan(request, kind)
    sens = declaration(benchmark_spec(request.bench.name), kind)
    if out is not None:  # a run folder, a user's sensitivity.md, another kind of output: never replaced
        _check_folders(Path(out), planned, force)
    store, opened = _cache(cache)
    scorers: dict[Any, Any] = {}  # each model loads once, whatever the number of perturbations
    try:
        runs: list[EvaluationRun] = []
        for p in planned:
            if log is not None:
                log(f"sensitivity {kind}: {p.name} ({len(runs) + 1} of {len(planned)})")
            runs.append(execute(p.request, out=None if out is None else Path(out) / p.name, force=force,
                                cache=store if store is not None else False, refresh=refresh, progress=progress,
                                log=log, label=label, scorers=scorers))
    finally:
        if opened and store is not None:
            store.close()
    result = compare(sens, kind, planned, runs)
    if out is not None:
        write(result, Path(out))
    return result


def _check_folders(out: Path, planned: Sequence[Planned], force: bool) -> None:
    """Refuse ``out`` and every planned run's folder in it before the first run starts (as a suite
    checks its cells): a refusal at the third run must not come after two have run."""
    from .registry import renamed_config
    from .runs.folder import check_run_folder

    check_output(out, "sensitivity", writes=(SENSITIVITY_FILE, TABLE_FILE))
    for p in planned:
        check_run_folder(out / p.name, p.request.recorded(), force=force, renamed=renamed_config(p.request.bench.name))


def compare(sens: Sensitivity, kind: str, planned: Sequence[Planned], runs: Sequence[EvaluationRun]) -> dict[str, Any]:
    """sensitivity.json's content from the runs of :func:`plan` (the unperturbed one first)."""
    base = {r["id"]: sens.outcome(r) for r in runs[0].records}
    entries = []
    for p, r in zip(planned, runs, strict=True):
        entries.append({"name": p.name, "about": p.perturbation.about if p.perturbation else "as requested",
                        "folder": p.name, "perturbation": p.perturbation.recorded(kind) if p.perturbation else None,
                        "headlines": {h.name: {"value": h.value, "low": h.low, "high": h.high}
                                      for h in sens.headlines(r.summary_dict)},
                        "flips": None if p.perturbation is None else flips(base, r.records, sens)})
    first = runs[0]
    return {"format": FORMAT, "benchmark": first.benchmark, "kind": kind, "model": first.model,
            "dataset": first.config.get("benchmark", {}).get("dataset"), "setting": setting(first.config),
            "label": first.summary_dict.get("label") or first.model, "outcome": sens.outcome_phrase,
            "runs": entries, "spread": spread(entries), "labels": _labels(first, [h.name for h in
                                                                                  sens.headlines(first.summary_dict)])}


def _labels(run: EvaluationRun, names: Sequence[str]) -> dict[str, str]:
    """Each headline's name as the benchmark's tables spell it (``metric_score`` → ``metric``), for
    the tables (a sensitivity.json written before this lacks them: the names are shown)."""
    from .registry import find_spec
    from .runs.view import RunView

    spec = find_spec(run.benchmark)
    if spec is None:
        return {}
    view = RunView(run.path or Path("."), run.config, run.summary_dict, run.records, tuple(run.skipped))
    return {m.name: m.label for m in spec.view.metrics(view) if m.name in names and m.label and m.label != m.name}


def setting(config: Mapping[str, Any]) -> str:
    """What makes two models' sensitivity runs comparable: the sha256 of the unperturbed run's
    benchmark config (data by its sha256, not its path), so census NO and US never share a ranking.
    A key its benchmark renamed since run folders of format 1 (``renamed_config``: census's
    ``method``, once ``variant``) is hashed under its old name: sensitivity.json files written
    before the rename keep ranking with today's."""
    import hashlib

    from .registry import renamed_config

    recorded = config.get("benchmark") or {}
    was = {new: old for old, new in renamed_config(str(recorded.get("benchmark")))}
    bench = {was.get(k, k): v for k, v in recorded.items() if k not in ("data", "data_files")}
    return hashlib.sha256(json.dumps(bench, sort_keys=True, default=str).encode()).hexdigest()


def flips(base: Mapping[str, Any], records: Sequence[Mapping[str, Any]], sens: Sensitivity) -> dict[str, Any]:
    """Of the items scored in both runs, how many have an outcome other than the unperturbed one's."""
    compared = [(base[r["id"]], sens.outcome(r)) for r in records if r["id"] in base]
    flipped = sum(a != b for a, b in compared)
    return {"n": len(compared), "flipped": flipped, "share": flipped / len(compared) if compared else None}


def spread(entries: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Per headline: min, max, range and the runs at the ends, over the runs where it has a value."""
    out: dict[str, Any] = {}
    for name in entries[0]["headlines"]:
        values = [(e["headlines"][name]["value"], e["name"]) for e in entries
                  if e["headlines"].get(name, {}).get("value") is not None]
        if not values:
            out[name] = {"min": None, "max": None, "range": None, "min_run": None, "max_run": None, "n_runs": 0}
            continue
        low, high = min(values), max(values)
        moved = high[0] != low[0]  # with no spread, no run is "at" an end
        out[name] = {"min": low[0], "max": high[0], "range": high[0] - low[0], "min_run": low[1] if moved else None,
                     "max_run": high[1] if moved else None, "n_runs": len(values)}
    return out


# -- writing and reading ------------------------------------------------------------------------
def write(result: Mapping[str, Any], out: Path) -> None:
    """sensitivity.json and sensitivity.md (the table as Markdown) in ``out``, each written atomically."""
    from .atomic import atomic_write
    from .display.tables import to_markdown

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
    from .display.tables import CI, Table

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
    from .display.tables import CI, Table

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
        from .display.tables import to_markdown

        return "\n\n".join(to_markdown(t) for t in shown) + "\n"
    if fmt == "html":
        from .report.html import render_tables_page

        return str(render_tables_page(shown, "biasatlas sensitivity", []))
    raise UsageError(f"a report of sensitivity folders is md, html or json, not {fmt}")
