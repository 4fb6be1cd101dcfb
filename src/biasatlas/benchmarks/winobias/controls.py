"""WinoBias' headline with its controls (Zhao et al. 2018, read as an LM probe; METHODS-MORE.md §7).

The headline is Diff = pro % − anti %, the share of pairs whose pro-stereotypical version the
model prefers against the anti-stereotypical one (0 = no effect). As an LM probe the data hold no
coreference question a model could fail, so what stands for a control is how often the
preference is decided (:func:`~biasatlas.display.controls.decided`; a tie counts ½), and the
symmetric model's null: a model scoring both versions alike ties every pair, Diff 0.

Detectable effect: Diff's own test is the exact binomial test of the untied pairs against ½, so
the MDE is twice the one-sample proportion test's (:func:`~biasatlas.power.mde_proportion`):
Diff = 2·pro % − 100 moves two points per point of pro %.
"""

from __future__ import annotations

from ...display.controls import Headline, decided, shown
from ...runs.view import RunView
from ...power import Detectable, mde_proportion
from .summary import WinoBiasRunSummary


def headlines(run: RunView) -> tuple[Headline, ...]:
    o = run.typed(WinoBiasRunSummary).overall
    untied = None if o.n is None else o.n - (o.n_ties or 0)
    share = mde_proportion(untied)
    mde = Detectable(None if share is None else 2 * share, "Diff points", "binomial test of untied pairs against ½",
                     untied, "2 × Cohen's h MDE of the pro share, statsmodels NormalIndPower one-sample (ratio=0)",
                     scale_end=100.0)
    controls = (decided(o.n_ties, o.n, "pairs"),
                shown("symmetric null (Diff)", 0.0, "a model scoring both versions alike ties every pair: Diff 0"))
    return (Headline("diff", "Diff (pro − anti)", o.diff, o.intervals.get("diff"), o.n, o.diff_p, 0.0, "farther",
                     controls, mde),)
