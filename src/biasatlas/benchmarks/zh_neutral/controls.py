"""zh-neutral's headline with what stands for a control (Zhao et al. 2021).

The headline is the bias score, mean |b| over the gender-neutral sentences (b = the masked
log-ratio of the male and female keyword). The sentences ask no question a model could fail, so
no competence control exists (the card says so); shown beside it are the sentence count and the
symmetric model's null: a model that scores the two keywords alike gives b = 0 on every
sentence, mean |b| = 0 exactly (any real model's mean |b| is above 0, so the null is a floor,
not a test).

Detectable effect: mean |b| has no test of its own, only the 95 % sentence bootstrap, so the MDE
is :func:`~biasatlas.power.mde_normal` at that interval's SE (normal approximation): the smallest
difference in mean |b| the run resolves.
"""

from __future__ import annotations

from ...display.controls import Headline, count_text, shown
from ...runs.view import RunView
from ...power import Detectable, mde_normal, se_from_interval
from .summary import zh_summary


def headlines(run: RunView) -> tuple[Headline, ...]:
    s = zh_summary(run)
    se = se_from_interval(*(s.bias_score_ci or (None, None)))
    mde = Detectable(mde_normal(se), "mean |b|", "normal approximation at the sentence bootstrap's SE", s.n,
                     "(z.975 + z.80)·SE, SE = 95% bootstrap interval width / 3.92 (Bloom 1995)")
    controls = (shown("sentences", s.n, f"{count_text(s.n)} gender-neutral sentences scored", count=True),
                shown("symmetric null (mean |b|)", 0.0, "a model scoring both keywords alike gives b = 0 on every "
                      "sentence"))
    return (Headline("bias_score", "bias score (mean |b|)", s.bias_score, s.bias_score_ci, s.n, None, 0.0, "higher",
                     controls, mde),)
