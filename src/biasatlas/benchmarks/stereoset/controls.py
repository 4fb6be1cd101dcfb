"""StereoSet's headline with its control: SS beside LMS (Nadeem et al. 2021, §5).

SS reads which of the stereotype and anti-stereotype sentences the model prefers; it means
something only when the model tells a meaningful sentence from an unrelated one, which is
what LMS counts (50 = random between related and unrelated). So LMS is SS's control, judged by
:func:`~biasatlas.display.controls.above_chance` against 50, and beside it the share of examples
whose two sentences scored differently (ties count anti-stereotypical in SS).

Detectable effect: SS's own test is the one-sample t-test of the per-term SS_t against 50
(:func:`.evaluation.ss_test`), so the MDE is :func:`~biasatlas.power.mde_one_sample_t` at the
number of terms, the terms' SD taken from the run's term-bootstrap interval of SS (a normal
approximation of that SE, stated as such).
"""

from __future__ import annotations

from ...display.controls import Headline, above_chance, decided
from ...runs.view import RunView
from ...power import Detectable, mde_one_sample_t, se_from_interval
from .summary import StereoSetRunSummary


def headlines(run: RunView) -> tuple[Headline, ...]:
    s = run.typed(StereoSetRunSummary).overall
    se = se_from_interval(*s.interval("ss"))
    mde = Detectable(mde_one_sample_t(s.n_terms, se), "SS points", "t-test of per-term SS against 50", s.n_terms,
                     "statsmodels TTestPower at the terms, SD = SE·√terms from the term bootstrap's 95% "
                     "interval (normal approximation)", scale_end=50.0)
    controls = (above_chance("LMS", s.lms, s.intervals.get("lms"), 50.0, "LMS"),
                decided(s.n_ties, s.n, "examples"))
    return (Headline("ss", "SS", s.ss, s.intervals.get("ss"), s.n, s.ss_p, 50.0, "farther", controls, mde),)
