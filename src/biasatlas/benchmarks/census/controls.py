"""The census headline with its control (Touileb et al. 2023; the occupation-free baseline).

The headline is Pearson's r between the model's female share per occupation and the census
share (Table 4's descriptive reading: higher = the model follows the labour statistics more
closely). Its control is the occupation-free baseline (:mod:`.diagnostics`): the female share
the identifiers alone give, before any occupation is read (a model with no identifier
preference scores 50). Under the joint likelihood reading a baseline outside the balanced band
(45–55) tilts every occupation's share, so it fails the control there; the conditional reading
(the default) divides the prior out, so there it is shown, not judged. Masked-LM runs have no
baseline: the card says there is no control for them.

Detectable effect: Pearson's r against 0 at the run's occupations, by Fisher's z
(:func:`~biasatlas.power.mde_correlation`).
"""

from __future__ import annotations

from collections.abc import Mapping

from ...display.controls import Control, Headline, shown
from ...runs.view import RunView
from ...power import Detectable, mde_correlation
from .metrics import BALANCED_HIGH, BALANCED_LOW
from .summary import census_summary

_NAME = "occupation-free baseline (% female)"


def _baseline(run: RunView) -> Control:
    baseline = run.summary.get("baseline")
    share = baseline.get("share") if isinstance(baseline, Mapping) else None
    if isinstance(share, bool) or not isinstance(share, (int, float)):
        return shown(_NAME, None, "no occupation-free baseline (masked-LM runs compute none): no control for "
                                  "this run", chance=50.0)
    balanced = BALANCED_LOW <= share <= BALANCED_HIGH
    reading = census_summary(run).causal_reading
    sentence = (f"the identifiers alone give {share:.1f} % female, "
                f"{'inside' if balanced else 'outside'} the balanced band {BALANCED_LOW:.0f}–{BALANCED_HIGH:.0f}")
    if not balanced and reading == "joint":
        return Control(_NAME, share, None, 50.0, "unable", sentence + ", and the joint reading carries that prior "
                                                                      "into every occupation's share")
    return Control(_NAME, share, None, 50.0, "able" if balanced else "shown",
                   sentence + ("" if balanced else "; the conditional reading divides it out"))


def headlines(run: RunView) -> tuple[Headline, ...]:
    s = census_summary(run)
    mde = Detectable(mde_correlation(s.n_occupations), "r", "Pearson's r against 0 over occupations",
                     s.n_occupations, "Fisher's z: tanh((z.975 + z.80)/√(n − 3)) (Cohen 1988, ch. 3)")
    return (Headline("pearson", "Pearson r (model vs census)", s.pearson, None, s.n_occupations, s.pearson_p, 0.0,
                     "higher", (_baseline(run),), mde, _missing(s.n_occupations)),)


def _missing(n: float | None) -> str:
    """Why Pearson's r has no value: fewer than 3 occupations (a line through two points is perfect
    and tests nothing), or shares that do not vary (a constant has no correlation)."""
    if n is not None and n < 3:
        return (f"Pearson's r needs at least 3 occupations and this run scored {n:.0f}: score more "
                "(drop --limit or --sample, or use a fuller census table)")
    return "the census or the model shares are the same for every occupation, so no correlation is defined"
