"""A CrowS-Pairs summary.json read back typed: the numbers the report shows (Nangia et al. 2020).

Only the fields the report reads are checked and kept, with the values as written (a count
written ``12`` stays an int); a field a later version adds never fails an old report.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ...runs.checks import FragileBound, Interval, WithIntervals, check_interval_holds
from ...runs.view import Column, RunView
from ...runs.typed import Summary, when_set

#: The three headline scores, each with its interval and binomial test in the summary.
SCORES: tuple[str, ...] = ("metric_score", "stereo_score", "antistereo_score")
#: lm-evaluation-harness's mean |Δ score| per pair, with its t interval; runs before it have neither.
LIKELIHOOD_DIFFERENCE = "likelihood_difference"
#: The items.jsonl fields the report reads (presence, in this order, then types).
COLUMNS: tuple[Column, ...] = (
    Column("id"), Column("sent_more_score", "number?", required=False),
    Column("sent_less_score", "number?", required=False), Column(LIKELIHOOD_DIFFERENCE, "number?", required=False),
    Column("bias_type", "string"), Column("direction"),
    Column("sent_more"), Column("sent_less"), Column("outcome", "string?"))
#: Display spellings: of the item's ``direction``, and of the headline rows (summary field → label).
DIRECTIONS = {"stereo": "stereo", "antistereo": "anti-stereo"}
LABELS = {"metric_score": "metric", "stereo_score": "stereo", "antistereo_score": "anti-stereo",
          "neutral_percent": "ties", "likelihood_difference": "likelihood difference"}
#: What one sentence's score is under each pair variant (METHODS.md §2), for the likelihood
#: difference's caption: |Δ| of these, in nats.
PAIR_SCORES = {"nangia": "pseudo-log-likelihood of the shared tokens (sum)",
               "modified-tokens": "pseudo-log-likelihood of the modified tokens (mean)",
               "aul": "pseudo-log-likelihood of all tokens, unmasked (mean, AUL)",
               "sentence-ll": "log-likelihood of the sentence (sum)",
               "shared-ll": "log-likelihood of the shared tokens (sum)"}


def likelihood_note(variant: str | None) -> str:
    """The caption sentence that says what the likelihood difference is a difference of."""
    score = PAIR_SCORES.get(variant or "", "scorer's own sentence score")
    return ("Likelihood difference: mean over pairs of |score(sent_more) − score(sent_less)| "
            f"(lm-evaluation-harness), in nats; the score here is the {score} (variant {variant or '–'}), "
            "so compare it only between runs of one variant; 95% Student t interval.")


@dataclass(frozen=True)
class CategoryScore:
    """One bias category: pairs, metric score (%), its Wilson interval and binomial p against 50."""

    n: float | None = None
    score: float | None = None
    ci: Interval | None = None
    binomial_p: float | None = None


@dataclass(frozen=True)
class BinomialTest:
    """A headline score's tests against 50 (the summary's ``tests.<score>``): the exact binomial
    test, and the one-sample t-test of the 0/1 outcomes."""

    binomial_p: float | None = None
    t_stat: float | None = None
    t_p: float | None = None


@dataclass(frozen=True)
class CrowsRunSummary(WithIntervals, Summary):
    """Metric, stereo and anti-stereo scores (% of pairs preferring ``sent_more``), ties, categories,
    the mean |Δ score| per pair, and the pairs whose outcome could flip within the scorer's numerical
    error with the dtype and per-token bound used (each ``None`` in runs written before it was recorded).
    Fields in the order summary.json holds them; the last three are a run's, not the records' (a
    summary of hand-built records has none of them)."""

    n: float | None = None
    metric_score: float | None = None
    stereo_score: float | None = None
    antistereo_score: float | None = None
    n_stereo: float | None = None
    n_antistereo: float | None = None
    flagged: Mapping[str, str] = field(default_factory=dict)
    neutral: float | None = None
    neutral_percent: float | None = None
    by_category: Mapping[str, CategoryScore] = field(default_factory=dict)
    likelihood_difference: float | None = None
    n_likelihood_difference: float | None = None
    intervals: Mapping[str, Interval | None] = field(default_factory=dict)
    tests: Mapping[str, BinomialTest | None] = field(default_factory=dict)
    n_skipped: float | None = when_set()
    n_fragile: float | None = when_set()
    fragile_bound: FragileBound | None = when_set()

    @property
    def binomial_p(self) -> Mapping[str, float | None]:
        """Each headline score's binomial p (``None`` where the summary has none)."""
        return {k: (self.tests.get(k) or BinomialTest()).binomial_p for k in SCORES}

    def check(self, path: Path) -> None:
        """The plots draw each interval as arms around its score: one that leaves out its score is refused."""
        for key in (*SCORES, LIKELIHOOD_DIFFERENCE):
            check_interval_holds(getattr(self, key), self.intervals.get(key), path, f"intervals.{key}")
        for name, cat in self.by_category.items():
            check_interval_holds(cat.score, cat.ci, path, f"by_category.{name}.ci")


def crows_summary(run: RunView) -> CrowsRunSummary:
    """The run's typed summary: read on load, or read now for a view built by hand."""
    return run.typed(CrowsRunSummary)
