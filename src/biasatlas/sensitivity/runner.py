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

Writing and reading sensitivity.json, its tables, and the ranking over several models
(:func:`~.results.ranking_stability`: Kendall's τ-b of the models' rankings, with a bootstrap
interval over the models) live in :mod:`.results`, below this module; the package re-exports both.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..benchmarks.sensitivity import UNPERTURBED, Perturbation, Perturbed, Sensitivity
from ..errors import UsageError
from ..outputs import check_output
from ..registry import benchmark_spec, find_spec, renamed_config, scorer_variants
from ..request import GivenModel, RunRequest
from ..runs.folder import check_run_folder
from ..runs.view import RunView
from .results import FORMAT, SENSITIVITY_FILE, TABLE_FILE, write

if TYPE_CHECKING:
    from ..evaluation import EvaluationRun
    from ..benchmarks.base import BenchmarkSpec
    from ..cache import ScoreCache


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
    def effective(request: RunRequest) -> tuple[Any, Any]:
        bench = request.scorer_options.bound(request.bench, scorer)
        variant = request.scorer_options.variant or next(iter(scorer_variants(scorer)), None)
        return json.dumps(bench.config(), sort_keys=True, default=str), variant

    return effective(a) == effective(b)


# -- running ----------------------------------------------------------------------------------------
def run(request: RunRequest, kind: str, *, out: Path | None = None, cache: bool | ScoreCache = True,
        refresh: bool = False, force: bool = False, progress: bool = True, log: Callable[[str], None] | None = None,
        label: str | None = None) -> dict[str, Any]:
    """Every run of :func:`plan` through :func:`biasatlas.api.execute` (into ``out/<name>`` when
    ``out`` is given) with one score cache, then the comparison (:func:`compare`), written to
    ``out`` as sensitivity.json and sensitivity.md. Returns sensitivity.json's content."""
    from ..api import _cache, execute

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
