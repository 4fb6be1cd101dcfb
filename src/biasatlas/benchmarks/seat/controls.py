"""SEAT's and WEAT's headline with what stands for a control (May et al. 2019; Caliskan et al. 2017).

An association test has no task a model could fail at, so no competence control exists; the
card says so. What the run does give is each test's permutation null: how many tests differ from
it at Holm-adjusted p < 0.05, shown beside the mean |d| (a mean |d| of 0.4 over tests none of which
beats its null is noise), with the words out of vocabulary.

Detectable effect: each test's permutation test of its two target sets, at the two-sample t-test's
power at those set sizes (:func:`~biasatlas.power.mde_two_sample_d`, in d units); the headline's
is the largest over the tests, the effect every test would find four times in five.
"""

from __future__ import annotations

from ...display.controls import Headline, count_text, shown
from ...runs.view import RunView
from ...power import Detectable, mde_two_sample_d
from .summary import SeatRunSummary


def detectable(s: SeatRunSummary) -> Detectable:
    """The largest of the tests' MDEs (None when no test has both target set sizes)."""
    found = [mde_two_sample_d(t.sizes[0], t.sizes[1]) for t in s.rows if t.d is not None]
    known = [d for d in found if d is not None]
    return Detectable(max(known) if known else None, "d", "permutation test of each test's target sets",
                      s.n_scored, "statsmodels TTestIndPower at each test's target set sizes (the permutation "
                      "test's large-sample equivalent); the largest over tests")


def headlines(run: RunView) -> tuple[Headline, ...]:
    s = run.typed(SeatRunSummary)
    controls = (shown("tests beyond the permutation null", s.n_significant,
                      f"{count_text(s.n_significant)} of {count_text(s.n_scored)} tests differ from their "
                      "permutation null at Holm-adjusted p < 0.05", count=True),
                shown("words out of vocabulary", s.n_oov, f"{count_text(s.n_oov)} words out of vocabulary",
                      count=True))
    return (Headline("mean_abs_d", "mean |d|", s.mean_abs_d, None, s.n_scored, None, 0.0, "higher", controls,
                     detectable(s)),)
