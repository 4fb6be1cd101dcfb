"""A CrowS-Pairs summary.json read back typed: the numbers the report shows (Nangia et al. 2020).

Only the fields the report reads are checked and kept, with the values as written (a count
written ``12`` stays an int); a field a later version adds never fails an old report.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...display.checks import (FieldCheck, Interval, WithIntervals, check_fields, check_interval_holds, each, interval,
                               interval_of, intervals, mapping_of, number, obj, string)
from ...display.runview import Column, RunView

#: The three headline scores, each with its interval and binomial test in the summary.
SCORES: tuple[str, ...] = ("metric_score", "stereo_score", "antistereo_score")
#: lm-evaluation-harness's mean |Δ score| per pair, with its t interval; runs before it have neither.
LIKELIHOOD_DIFFERENCE = "likelihood_difference"
_CHECKS: dict[str, FieldCheck] = {
    **dict.fromkeys(("n", *SCORES, "n_stereo", "n_antistereo", "neutral", "neutral_percent", "n_skipped",
                     LIKELIHOOD_DIFFERENCE, "n_likelihood_difference"), number),
    "by_category": each(obj({"n": number, "score": number, "ci": interval, "binomial_p": number}, nullable=False)),
    "intervals": intervals(*SCORES, LIKELIHOOD_DIFFERENCE),
    "tests": each(obj({"binomial_p": number})),
    "n_fragile": number, "fragile_bound": obj({"dtype": string, "token_error": number}),
}
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


def likelihood_short(variant: str | None) -> str:
    """The terminal's short form of :func:`likelihood_note`."""
    score = PAIR_SCORES.get(variant or "", "scorer's own score").split(" of ")[0]
    return f"likelihood difference: mean |Δ {score}| per pair, nats (variant {variant or '–'}), t interval."


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
class CrowsRunSummary(WithIntervals):
    """Metric, stereo and anti-stereo scores (% of pairs preferring ``sent_more``), ties, categories,
    the mean |Δ score| per pair, and the pairs whose outcome could flip within the scorer's numerical
    error with the dtype and per-token bound used (each ``None`` in runs written before it was recorded)."""

    n: float | None = None
    metric_score: float | None = None
    stereo_score: float | None = None
    antistereo_score: float | None = None
    n_stereo: float | None = None
    n_antistereo: float | None = None
    neutral: float | None = None
    neutral_percent: float | None = None
    n_skipped: float | None = None
    likelihood_difference: float | None = None
    n_likelihood_difference: float | None = None
    n_fragile: float | None = None
    fragile_dtype: str | None = None
    fragile_token_error: float | None = None
    by_category: Mapping[str, CategoryScore] = field(default_factory=dict)
    intervals: Mapping[str, Interval | None] = field(default_factory=dict)
    binomial_p: Mapping[str, float | None] = field(default_factory=dict)

    @classmethod
    def read(cls, data: Mapping[str, Any], path: Path) -> CrowsRunSummary:
        """Check ``data`` (a :class:`~biasatlas.errors.DataError` names ``path`` and the field), then type it."""
        check_fields(data, _CHECKS, path)
        cats = {str(c): CategoryScore(v.get("n"), v.get("score"), interval_of(v.get("ci")), v.get("binomial_p"))
                for c, v in mapping_of(data.get("by_category")).items()}
        ints, tests = mapping_of(data.get("intervals")), mapping_of(data.get("tests"))
        for key in (*SCORES, LIKELIHOOD_DIFFERENCE):  # the plots draw each interval around its score
            check_interval_holds(data.get(key), ints.get(key), path, f"intervals.{key}")
        for name, cat in cats.items():
            check_interval_holds(cat.score, cat.ci, path, f"by_category.{name}.ci")
        return cls(n=data.get("n"), metric_score=data.get("metric_score"), stereo_score=data.get("stereo_score"),
                   antistereo_score=data.get("antistereo_score"), n_stereo=data.get("n_stereo"),
                   n_antistereo=data.get("n_antistereo"), neutral=data.get("neutral"),
                   neutral_percent=data.get("neutral_percent"), n_skipped=data.get("n_skipped"),
                   likelihood_difference=data.get(LIKELIHOOD_DIFFERENCE),
                   n_likelihood_difference=data.get("n_likelihood_difference"), n_fragile=data.get("n_fragile"),
                   fragile_dtype=mapping_of(data.get("fragile_bound")).get("dtype"),
                   fragile_token_error=mapping_of(data.get("fragile_bound")).get("token_error"),
                   by_category=cats, intervals={k: interval_of(ints.get(k)) for k in (*SCORES, LIKELIHOOD_DIFFERENCE)},
                   binomial_p={k: mapping_of(tests.get(k)).get("binomial_p") for k in SCORES})


def crows_summary(run: RunView) -> CrowsRunSummary:
    """The run's typed summary: read on load, or read now for a view built by hand."""
    return run.typed(CrowsRunSummary)
