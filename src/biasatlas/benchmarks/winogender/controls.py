"""Winogender's headline with its controls (Rudinger et al. 2018, §3; Blodgett et al. 2021).

The headline is Pearson's r between the model's female share per occupation and the BLS share
(the paper's Figure 2 reading; higher = the model follows the labour statistics). The data hold
no question with a right answer a model could fail, so what stands for a control is how often
the model's pronoun preference is decided at all (:func:`~biasatlas.display.controls.decided`:
a context whose female and male versions score alike is a tie), and the symmetric model's null:
one that scores every pronoun alike gives each occupation 50 % and no correlation.

Detectable effect: Pearson's r against 0 at the run's occupations, by Fisher's z
(:func:`~biasatlas.power.mde_correlation`).
"""

from __future__ import annotations

from ...display.controls import Headline, decided, shown
from ...runs.view import RunView
from ...power import Detectable, mde_correlation
from .summary import WinogenderRunSummary


def headlines(run: RunView) -> tuple[Headline, ...]:
    s = run.typed(WinogenderRunSummary)
    o = s.overall
    mde = Detectable(mde_correlation(o.n_occupations), "r", "Pearson's r against 0 over occupations",
                     o.n_occupations, "Fisher's z: tanh((z.975 + z.80)/√(n − 3)) (Cohen 1988, ch. 3)")
    controls = (decided(s.n_ties, o.n_contexts, "contexts"),
                shown("symmetric null (% female)", 50.0, "a model scoring both pronouns alike gives every "
                      "occupation 50 % female and r undefined", chance=50.0))
    return (Headline("pearson", "Pearson r (model vs BLS)", o.pearson, o.intervals.get("pearson"), o.n_occupations,
                     o.pearson_p, 0.0, "higher", controls, mde),)
