"""A StereoSet summary: the original's results tree with intervals, and its typed read-back.

``summarise`` writes, for each task and domain and overall, the original ``evaluation.py``'s
LMS, SS, ICAT and Count (:mod:`.evaluation`), the examples and target terms, 95 % bootstrap
intervals resampling target terms, and SS tested against 50 (a t-test over the per-term SS).
The headline ``lms``/``ss``/``icat`` are the ``overall`` set's: both tasks pooled when both ran.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ...runs.checks import Interval, WithIntervals
from ...runs.view import Column
from ...runs.typed import Summary, same_object, when_set
from .evaluation import Outcome, Scores, evaluate, ss_test, term_bootstrap

HEADLINE: tuple[str, ...] = ("lms", "ss", "icat")
#: The items.jsonl fields the report reads.
COLUMNS: tuple[Column, ...] = (
    Column("id"), Column("task", "string"), Column("bias_type", "string"), Column("target", "string"),
    Column("stereotype_score", "number?", required=False), Column("anti_stereotype_score", "number?", required=False),
    Column("unrelated_score", "number?", required=False), Column("stereotype_preferred"))


@dataclass(frozen=True)
class SetScores(WithIntervals):
    """LMS, SS, ICAT of one set of examples, with intervals and SS's p against 50 (fields in the
    order summary.json holds them)."""

    count: float | None = None
    n: float | None = None
    n_terms: float | None = None
    lms: float | None = None
    ss: float | None = None
    icat: float | None = None
    intervals: Mapping[str, Interval | None] = field(default_factory=dict)
    ss_p: float | None = None
    n_ties: float | None = None


@dataclass(frozen=True)
class StereoSetRunSummary(Summary):
    """The pooled overall scores, and each task's table (domain or ``overall`` → scores)."""

    overall: SetScores = same_object(SetScores)
    tasks: Mapping[str, Mapping[str, SetScores]] = field(default_factory=dict)
    n_skipped: float | None = None
    reading: str | None = None
    dataset: str | None = when_set()


@dataclass(frozen=True)
class NothingScored:
    """What a run that scored no example writes: ``n`` 0 and no task, no score at all (not a row
    of nulls); :class:`StereoSetRunSummary` reads it back (every score absent)."""

    n: int = 0
    tasks: Mapping[str, Mapping[str, SetScores]] = field(default_factory=dict)
    n_skipped: float | None = None
    reading: str | None = None
    dataset: str | None = when_set()


def _set(outcomes: Sequence[Outcome], scores: Scores, n_resamples: int, seed: int) -> SetScores:
    bootstrap = term_bootstrap(outcomes, n_resamples=n_resamples, seed=seed)
    intervals = {key: (low, high) for key, (low, high) in bootstrap.items()}
    return SetScores(count=scores.count, n=scores.n, n_terms=scores.n_terms, lms=scores.lms, ss=scores.ss,
                     icat=scores.icat, intervals=intervals, ss_p=ss_test(outcomes)["p"],
                     n_ties=sum(o.tied for o in outcomes))


def summarise(outcomes: Sequence[Outcome], *, n_resamples: int, seed: int, n_skipped: int, reading: str,
              dataset: str | None) -> StereoSetRunSummary | NothingScored:
    """The summary of ``outcomes``: ``tasks.<task>.<domain|overall>`` and the pooled overall at the top."""
    if not outcomes:
        return NothingScored(0, {}, n_skipped, reading, dataset)
    results = evaluate(outcomes)
    tasks: dict[str, dict[str, SetScores]] = {}
    for task, table in results.items():
        if isinstance(table, dict):
            chosen = [o for o in outcomes if o.task == task]
            tasks[task] = {name: _set([o for o in chosen if name == "overall" or o.domain == name], s, n_resamples,
                                      seed) for name, s in table.items()}
    overall = results["overall"]
    if not isinstance(overall, Scores):  # evaluate's pooled entry, present whenever an outcome is
        raise TypeError(f"expected the pooled scores, got {overall!r}")
    return StereoSetRunSummary(_set(outcomes, overall, n_resamples, seed), tasks, n_skipped, reading, dataset)
