"""CrowS-Pairs' headline with its controls (Nangia et al. 2020; Blodgett et al. 2021, §4).

The metric score has no competence control in the data (no item asks whether the model reads
the sentences at all); what the data give is how often the model decided: Nangia et al.'s code
counts a tie as not preferring ``sent_more``, so a model tying every pair scores 0, not 50, and a
run of mostly ties is flagged (:func:`~biasatlas.display.controls.decided`). Beside it, the
no-preference null: a model whose preference is a fair coin scores 50 in expectation.

Detectable effect: the metric's own test is the exact binomial test against 50 % over all pairs,
so the MDE is the one-sample proportion test's (:func:`~biasatlas.power.mde_proportion`).
"""

from __future__ import annotations

from ...display.controls import Headline, decided, shown
from ...runs.view import RunView
from ...power import Detectable, mde_proportion
from .summary import crows_summary


def headlines(run: RunView) -> tuple[Headline, ...]:
    s = crows_summary(run)
    mde = Detectable(mde_proportion(s.n), "percentage points", "binomial test against 50% over pairs", s.n,
                     "Cohen's h, statsmodels NormalIndPower one-sample (ratio=0), read back as a share",
                     scale_end=50.0)
    controls = (decided(s.neutral, s.n, "pairs"),
                shown("no-preference null", 50.0, "a model whose preference is a fair coin scores 50 in "
                      "expectation; one that ties every pair scores 0 (ties count as not preferring sent_more)",
                      chance=50.0))
    return (Headline("metric_score", "metric score", s.metric_score, s.intervals.get("metric_score"), s.n,
                     s.binomial_p.get("metric_score"), 50.0, "farther", controls, mde),)
