"""A report over run folders, and its plain-text forms: Markdown, CSV and JSON.

:func:`build_report` gathers everything but the plots (those are HTML only and drawn in
:mod:`.html`): the leaderboard across runs, paired comparisons within each group of runs
that scored the same items, and each run's tables and provenance.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from ..version import __version__
from ..display.controls import Headline, flag_notices, headline_dict, headline_table
from ..runs.view import RunView
from ..display.tables import Table, md_text, to_csv, to_markdown
from ..errors import DataError
from ..registry import find_spec
from .agreement import (MIN_MODELS, Agreement, agreement_dict, agreement_table, agreements, measures, model_of,
                        unmatched)
from .compare import Comparison, compare_runs, comparison_pairs, comparison_table
from .sections import Provenance, provenance, run_headlines, run_notices, run_tables
from .tables import agreement_rows, control_rows, leaderboard, metric_rows, notice_row

#: The report's output formats: the page, Markdown, the long-form numbers (CSV, JSON), booktabs
#: tables for a paper (LaTeX) and the papers and models to cite (BibTeX).
FORMATS: tuple[str, ...] = ("html", "md", "csv", "json", "latex", "bibtex")


@dataclass(frozen=True)
class RunReport:
    run: RunView
    tables: tuple[Table, ...]
    provenance: Provenance
    index: int = 0
    notices: tuple[str, ...] = ()
    #: The run's headlines with their controls (its benchmark's declaration; the first of ``tables``).
    headlines: tuple[Headline, ...] = ()

    @property
    def anchor(self) -> str:
        return f"run-{self.index + 1}"


@dataclass(frozen=True)
class Report:
    runs: tuple[RunReport, ...]
    leaderboard: tuple[Table, ...]
    comparisons: tuple[Comparison, ...]
    notes: tuple[str, ...] = ()
    version: str = __version__
    #: Rank agreement of models between the runs' headline measures (two models or more).
    agreement: tuple[Agreement, ...] = ()
    #: The pairs of measures with no common model: no row of ``agreement``, one sentence of its caption.
    agreement_left_out: tuple[tuple[str, str], ...] = ()

    @property
    def agreement_tables(self) -> tuple[Table, ...]:
        return (agreement_table(self.agreement, self.agreement_left_out),) if self.agreement else ()

    @property
    def comparison_tables(self) -> tuple[Table, ...]:
        return tuple(comparison_table(c) for c in self.comparisons)

    @property
    def comparison_warnings(self) -> tuple[str, ...]:
        """One sentence per pair the report compared although the runs are not like for like."""
        return tuple(c.warning for c in self.comparisons if c.warning)


def build_report(runs: Sequence[RunView], *, compare: bool = True, n_resamples: int = 2000,
                 seed: int = 0, pairs: Sequence[tuple[str, str]] = ()) -> Report:
    """Tables, leaderboard and (with ``compare``) paired tests of later runs vs the first per group
    of like runs (:func:`~.compare.comparison_pairs`), or of exactly ``pairs`` (run folders A, B).

    Runs of one data file that differ in subset or preprocessing are still compared, with a
    warning: a report shows everything it was given, and says what to distrust.
    """
    per_run = tuple(_run_report(r, i) for i, r in enumerate(runs))
    comparisons, notes = [], []
    chosen = chosen_pairs(runs, pairs) if pairs else comparison_pairs(runs)
    for a, b in chosen if compare else []:
        try:
            comparisons.append(compare_runs(a, b, force=True, n_resamples=n_resamples, seed=seed))
        except DataError as exc:  # e.g. no shared items: the rest of the report still stands
            notes.append(f"{a.label} vs {b.label} not compared: {exc}")
    lead = tuple(leaderboard(runs)) if len(runs) > 1 else ()
    rows, left_out = _agreement(per_run, n_resamples=n_resamples, seed=seed)
    return Report(per_run, lead, tuple(comparisons), tuple(notes), agreement=rows, agreement_left_out=left_out)


def chosen_pairs(runs: Sequence[RunView], pairs: Sequence[tuple[str, str]]) -> list[tuple[RunView, RunView]]:
    """The runs ``pairs`` names (each a run folder, as typed or by another path), in its order; a
    folder that is none of ``runs`` is a usage error naming it."""
    from pathlib import Path

    from ..errors import UsageError

    by_folder = {r.path.resolve(): r for r in runs}

    def run_of(folder: str) -> RunView:
        found = by_folder.get(Path(folder).resolve())
        if found is None:
            raise UsageError(f"--pair names {folder}: not one of the report's run folders")
        return found

    return [(run_of(a), run_of(b)) for a, b in pairs]


def _run_report(run: RunView, index: int) -> RunReport:
    """One run's section: its headlines and controls first, and first among its notices a headline
    a control flags (what decides whether the number may be read at all), then the rest."""
    heads = run_headlines(run)
    tables = ((headline_table(heads),) if heads else ()) + tuple(run_tables(run))
    return RunReport(run, tables, provenance(run), index, flag_notices(heads) + run_notices(run), heads)


def _agreement(per_run: Sequence[RunReport], *, n_resamples: int,
               seed: int) -> tuple[tuple[Agreement, ...], tuple[tuple[str, str], ...]]:
    """Every two headline measures' rank agreement, when the runs hold enough models to rank
    (:data:`~.agreement.MIN_MODELS`: with fewer, every row could only say "too few to rank"), and
    the pairs left out for want of a common model."""
    if len({model_of(rr.run) for rr in per_run}) < MIN_MODELS:
        return (), ()
    found = measures([rr.run for rr in per_run], {i: rr.headlines for i, rr in enumerate(per_run)})
    if len(found) < 2:
        return (), ()
    return tuple(agreements(found, n_resamples=n_resamples, seed=seed)), unmatched(found)


def title_of(run: RunView) -> str:
    return f"{run.benchmark} · {run.label} · {run.dataset}"


def to_markdown_doc(report: Report) -> str:
    """Markdown; every run-provided text (names, sentences, paths) goes through
    :func:`~biasatlas.display.tables.md_text`, so ``<script>`` in a dataset or a model name is
    shown as text by any Markdown renderer."""
    parts = [f"# biasatlas report\n\n{len(report.runs)} run(s); biasatlas {md_text(report.version)}.\n"]
    if report.leaderboard:
        parts.append("## Leaderboard\n")
        parts += [to_markdown(t) for t in report.leaderboard]
    if report.comparisons or report.notes:
        parts.append("## Paired comparisons\n")
        parts += [f"> **Warning:** {md_text(w)}\n" for w in report.comparison_warnings]
        parts += [to_markdown(t) for t in report.comparison_tables]
        parts += [f"- {md_text(note)}" for note in report.notes]
    if report.agreement:
        parts.append("## Agreement between measures\n")
        parts += [to_markdown(t) for t in report.agreement_tables]
    for rr in report.runs:
        parts.append(f"## {md_text(title_of(rr.run))}\n")
        parts += [f"> **{md_text(n)}**\n" for n in rr.notices]
        parts += [to_markdown(t) for t in rr.tables]
        facts = "\n".join(f"- {md_text(k)}: {md_text(v)}" for k, v in rr.provenance.facts)
        parts.append(f"**Provenance**\n\n{facts}\n")
    return "\n".join(parts)


def to_csv_doc(report: Report) -> str:
    """Long form: one row per (run, metric) with its interval, n and direction, then its headlines'
    controls and detectable effects, then one row per notice of the run (``metric`` ``notice``, the
    sentence in ``notices``: a warning is written once, not on each of the run's rows; filter on
    ``run`` to keep it with them); last, the agreement between measures (run ``agreement``, one
    row per correlation, ``n`` the common models, the note in ``notices``)."""
    rows = []
    for rr in report.runs:
        numbers = (*metric_rows(rr.run), *control_rows(rr.run, rr.headlines))
        rows += [{**row.as_dict(), "notices": ""} for row in numbers]
        rows += [{**notice_row(rr.run).as_dict(), "notices": text} for text in rr.notices]
    rows += [{**row.as_dict(), "notices": note} for row, note in agreement_rows(report.agreement)]
    return to_csv(rows)


def to_json_doc(report: Report) -> str:
    doc = {
        "biasatlas": report.version,
        "runs": [{"path": str(rr.run.path), "label": rr.run.label, "benchmark": rr.run.benchmark,
                  "dataset": rr.run.dataset, "model": rr.run.model, "variant": rr.run.variant,
                  "metrics": [m.as_dict() for m in metric_rows(rr.run)],
                  "paper": paper_json(rr.run), "notices": list(rr.notices),
                  "headlines": [headline_dict(h) for h in rr.headlines],
                  "provenance": dict(rr.provenance.facts)} for rr in report.runs],
        "comparisons": [{"benchmark": c.benchmark, "a": c.label_a, "b": c.label_b, "n_paired": c.n_paired,
                         "notes": list(c.notes), "differences": list(c.differences), "warning": c.warning,
                         "tests": [{**t.__dict__, "difference": t.difference} for t in c.tests]}
                        for c in report.comparisons],
        "agreement": [agreement_dict(a) for a in report.agreement],
        "agreement_left_out": [list(pair) for pair in report.agreement_left_out],
    }
    return json.dumps(json_safe(doc), indent=2, ensure_ascii=False, allow_nan=False)


def paper_json(run: RunView) -> dict[str, object] | None:
    """The paper's numbers for the run, as its benchmark's view gives them (``None`` where it keeps none)."""
    spec = find_spec(run.benchmark)
    return spec.view.published(run) if spec is not None else None


def json_safe(value: object) -> object:
    """JSON has no NaN or infinity: write null; numpy scalars become Python numbers."""
    import math

    if hasattr(value, "item") and not isinstance(value, (list, tuple, dict)):
        value = value.item()  # type: ignore[attr-defined]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value
