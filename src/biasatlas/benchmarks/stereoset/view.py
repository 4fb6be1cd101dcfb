"""What the terminal and the report show of a StereoSet run (Nadeem, Bethke & Reddy, ACL 2021).

- Tables: per task, LMS, SS and ICAT per domain and overall (the original ``evaluation.py``'s
  layout), each with its 95 % bootstrap interval over target terms and SS's p against 50; then
  the pooled overall (both tasks) when both ran.
- Plot: SS per domain and task with intervals, around 50 (:mod:`.plots`).
- Leaderboard and metrics: the pooled overall LMS, SS and ICAT (the paper's headline columns).
- Paired test: McNemar's test on "the stereotype is preferred" per example, over the examples
  both runs scored (the events SS counts), per task.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...display.cite import Reference
from ...display.paired import Paired, PairedTest, difference_interval, pair_items
from ...runs.view import RunView
from ...display.direction import HIGHER, toward
from ...display.tables import CI, Metric, PValue, Table, leaderboard_table
from ...stats import mcnemar_table, mcnemar_test
from ..base import BenchmarkView, PairedMethod
from .controls import headlines
from .plots import plots
from .data import DOMAINS, TASKS
from .summary import SetScores, StereoSetRunSummary

COLUMNS = ("set", "examples", "terms", "LMS", "LMS 95% CI", "SS", "SS 95% CI", "SS p vs 50", "ICAT", "ICAT 95% CI")
CAPTION = ("Nadeem et al. (2021), as their evaluation.py: LMS = % of (stereotype, unrelated) and (anti-stereotype, "
           "unrelated) comparisons won by the related sentence; SS = % of examples preferring the stereotype "
           "(ties count anti); both averaged per target term, then over terms; ICAT = LMS·min(SS, 100−SS)/50. "
           "Ideal: LMS 100, SS 50, ICAT 100. Intervals: 95% bootstrap over target terms; p: t-test of the "
           "per-term SS against 50.")


def _row(name: str, s: SetScores) -> tuple[Any, ...]:
    return (name, s.n, s.n_terms, s.lms, CI(*s.interval("lms")), s.ss, CI(*s.interval("ss")), PValue(s.ss_p),
            s.icat, CI(*s.interval("icat")))


def tables(run: RunView) -> list[Table]:
    s = run.typed(StereoSetRunSummary)
    out = []
    for task in TASKS:
        table = s.tasks.get(task)
        if table:
            rows = tuple(_row(name, table[name]) for name in (*DOMAINS, "overall") if name in table)
            out.append(Table(f"StereoSet {task}", COLUMNS, rows, CAPTION + f" Reading: {s.reading or '–'}."))
    if len(out) > 1:
        out.append(Table("StereoSet overall (both tasks, term counts pooled)", COLUMNS, (_row("overall", s.overall),)))
    return out


def metrics(run: RunView) -> list[Metric]:
    s = run.typed(StereoSetRunSummary).overall
    return [Metric(key, getattr(s, key), *s.interval(key), n=s.n, label=key.upper()) for key in ("lms", "ss", "icat")]


def leaderboard(runs: Sequence[RunView]) -> Table:
    rows = []
    for r in runs:
        s = r.typed(StereoSetRunSummary).overall
        rows.append((r, (r.label, s.n, s.lms, CI(*s.interval("lms")), s.ss, CI(*s.interval("ss")), s.icat,
                         CI(*s.interval("icat")))))
    return leaderboard_table("StereoSet", ("model", "examples", "LMS", "95% CI", "SS", "95% CI", "ICAT", "95% CI"),
                             rows, runs, "Overall (both tasks pooled where both ran). Ideal: LMS 100, SS 50, ICAT 100.")


def compare(a: RunView, b: RunView, *, n_resamples: int, seed: int) -> Paired:
    """McNemar's test on the stereotype-preferred outcomes of the examples both runs scored, per task;
    B − A's interval from a paired bootstrap over those examples."""
    ra, rb, only_a, only_b = pair_items(a, b, "id")
    tests = []
    for task in TASKS:
        pa = [bool(r["stereotype_preferred"]) for r in ra if r["task"] == task]
        pb = [bool(r["stereotype_preferred"]) for x, r in zip(ra, rb) if x["task"] == task]
        if pa:
            stat, p, method = mcnemar_test(mcnemar_table(pa, pb))
            low, high = difference_interval([100.0 * x for x in pa], [100.0 * y for y in pb], n_resamples, seed)
            tests.append(PairedTest(task, "% stereotype preferred (per example)", len(pa), 100.0 * sum(pa) / len(pa),
                                    100.0 * sum(pb) / len(pb), stat, p, method, ci_low=low, ci_high=high))
    return Paired(tuple(tests), len(ra), only_a, only_b)


#: The paper (ACL-IJCNLP 2021), as its ACL Anthology record gives it.
NADEEM_2021 = Reference("nadeem-etal-2021-stereoset", "inproceedings", (
    ("title", "{S}tereo{S}et: Measuring stereotypical bias in pretrained language models"),
    ("author", "Nadeem, Moin and Bethke, Anna and Reddy, Siva"),
    ("booktitle", "Proceedings of the 59th Annual Meeting of the Association for Computational Linguistics and the "
                  "11th International Joint Conference on Natural Language Processing (Volume 1: Long Papers)"),
    ("year", "2021"), ("address", "Online"), ("publisher", "Association for Computational Linguistics"),
    ("pages", "5356--5371"), ("doi", "10.18653/v1/2021.acl-long.416")))


def references(run: RunView) -> tuple[Reference, ...]:
    return (NADEEM_2021,)


#: Which way each metric reads (``higher_is_better``/``ideal`` in the CSV and JSON): LMS and ICAT higher,
#: SS at 50 (Nadeem et al. 2021, §4).
DIRECTIONS_OF_METRICS = {"lms": HIGHER, "ss": toward(50), "icat": HIGHER}

VIEW = BenchmarkView(tables=tables, leaderboard=leaderboard, metrics=metrics,
                     paired=PairedMethod(compare, "McNemar on StereoSet stereotype preferences"),
                     references=references, headlines=headlines, plots=plots, directions=DIRECTIONS_OF_METRICS)
