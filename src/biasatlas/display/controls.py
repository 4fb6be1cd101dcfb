"""Headline numbers with their controls and detectable effects, as every benchmark declares them.

A benchmark's view declares, for one run, its :class:`Headline` numbers: each with the
"more biased" direction (for :mod:`biasatlas.report.agreement`), its own test's p where it
has one, its minimum detectable effect (:mod:`biasatlas.power`) and the :class:`Control`
numbers that say whether the model can do the task at all (StereoSet's LMS, BBQ's
disambiguated accuracy against chance, the share of items the model decided). The report
prints each headline with its controls beside it and turns a failed control into a notice,
so every format carries it (Blodgett et al. 2021 ask exactly this of CrowS-Pairs, StereoSet,
WinoBias and Winogender: is the score measured on a model that does the task?).

The rules that fail a control are here, named, so every benchmark applies the same ones:

- :func:`above_chance`: the model does the task when the lower end of the 95 % interval of
  its accuracy (or LMS) lies above chance; an interval that covers chance, or lies below it,
  says it cannot (a model below chance does not do the task either).
- :func:`decided`: the model's preference is decided on an item when its two readings
  differ; below :data:`MIN_DECIDED` % decided items the headline counts mostly ties.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..power import ALPHA, Detectable
from .tables import CI, PValue, Table

#: What a control says: the model does the task (``able``), does not (``unable``: the
#: headline is flagged), or the control is context the rule does not judge (``shown``).
Verdict = Literal["able", "unable", "shown"]
#: Below this share of decided items (%), most of a headline's items are ties: flagged.
MIN_DECIDED = 50.0
#: The confidence of the intervals the chance rule reads.
CONTROL_CONFIDENCE = 0.95

Interval = tuple[float | None, float | None]


@dataclass(frozen=True)
class Control:
    """A number that says whether the model can do the task a headline asks of it.

    ``chance`` is the value a model that cannot do the task scores (None where no such
    value exists); ``verdict`` is the rule's reading of ``value`` and ``interval`` against it,
    and ``sentence`` says in words what the control is and what it showed.
    """

    name: str
    value: float | None
    interval: Interval | None = None
    chance: float | None = None
    verdict: Verdict = "shown"
    sentence: str = ""
    #: The value counts things (words, tests, sentences): printed as a whole number.
    count: bool = False


@dataclass(frozen=True)
class Headline:
    """A run's headline number, with the controls read beside it and its detectable effect.

    ``neutral`` is the value of no bias; ``more_biased`` says which way is more biased:
    ``higher`` (a correlation with labour statistics, mean |d|) or ``farther`` from
    ``neutral`` either way (SS against 50, a bias score against 0). ``p`` is the run's own
    test of the headline against ``neutral`` (None where it has none).
    """

    name: str
    label: str
    value: float | None
    interval: Interval | None = None
    n: float | None = None
    p: float | None = None
    neutral: float = 0.0
    more_biased: Literal["higher", "farther"] = "farther"
    controls: tuple[Control, ...] = ()
    detectable: Detectable | None = None
    #: Why ``value`` is missing, in words, where it is (a correlation over two occupations): the
    #: reading says it instead of a bare "–".
    missing: str = ""

    @property
    def flagged(self) -> bool:
        """Whether a control says the model cannot do the task."""
        return any(c.verdict == "unable" for c in self.controls)

    @property
    def bias(self) -> float | None:
        """The headline on the one "more biased is larger" scale :mod:`~biasatlas.report.agreement` ranks by."""
        if self.value is None or not math.isfinite(self.value):
            return None
        return self.value - self.neutral if self.more_biased == "higher" else abs(self.value - self.neutral)


# -- the rules ---------------------------------------------------------------------------------------
def above_chance(name: str, value: float | None, interval: Interval | None, chance: float, what: str) -> Control:
    """``value`` (%) against ``chance``: able when its interval's lower end is above chance."""
    low, high = interval or (None, None)
    if value is None or low is None or high is None:
        return Control(name, value, interval, chance, "shown", f"{what}: no interval, so not judged against "
                                                                f"chance ({chance:.1f})")
    if low > chance:
        return Control(name, value, interval, chance, "able",
                       f"{what} {value:.1f} [{low:.1f}, {high:.1f}] lies above chance ({chance:.1f})")
    where = "covers" if high >= chance else "lies below"
    return Control(name, value, interval, chance, "unable",
                   f"{what} {value:.1f} [{low:.1f}, {high:.1f}] {where} chance ({chance:.1f}): the model cannot "
                   "be shown to do the task, so its bias score measures noise")


def decided(n_ties: float | None, n: float | None, what: str = "items") -> Control:
    """The share of ``n`` items whose two readings differ; unable below :data:`MIN_DECIDED` %."""
    if n_ties is None or not n:
        return Control("decided", None, sentence="ties not recorded: how often the model decided is unknown")
    share = 100.0 * (n - n_ties) / n
    verdict: Verdict = "able" if share >= MIN_DECIDED else "unable"
    sentence = f"the model decided {share:.1f} % of {n:.0f} {what} ({n_ties:.0f} ties)"
    if verdict == "unable":
        sentence += f": below {MIN_DECIDED:.0f} %, the headline counts mostly ties"
    return Control("decided", share, chance=None, verdict=verdict, sentence=sentence)


def shown(name: str, value: float | None, sentence: str, interval: Interval | None = None,
          chance: float | None = None, *, count: bool = False) -> Control:
    """A control shown for context, which no rule judges (a symmetric model's null, a count)."""
    return Control(name, value, interval, chance, "shown", sentence, count)


def count_text(value: float | None) -> str:
    """A count as a whole number ("122", never "122.0"); "–" when missing."""
    return "–" if value is None else f"{value:.0f}"


# -- readings ----------------------------------------------------------------------------------------
def effect_text(d: Detectable | None) -> str:
    """``±3.6 percentage points`` (the MDE); "not estimable" where the interval it is read from had no
    spread (a zero would claim the run sees any effect); beyond the scale's end, that end; "–" where
    the run could not give one."""
    if d is None or d.effect is None:
        return "–"
    if d.effect == 0:
        return "not estimable"
    if d.scale_end is not None and d.effect > d.scale_end:
        return f"beyond ±{d.scale_end:g} {d.unit} (the scale's end)"
    return f"±{d.effect:.3g} {d.unit}"


def _seen(d: Detectable | None) -> str:
    """What the run could not have seen, in words ("" where it gives no detectable effect)."""
    if d is None or d.effect is None:
        return ""
    if d.effect == 0:
        return "detectable effect not estimable (its interval has no spread)"
    if d.scale_end is not None and d.effect > d.scale_end:
        return (f"could not have seen even an effect at the scale's end, ±{d.scale_end:g} {d.unit} ({d.test}, "
                f"{d.power:.0%} power)")
    return f"could not have seen less than {effect_text(d)} ({d.test}, {d.power:.0%} power)"


def reading(h: Headline) -> str:
    """The headline's test in words: significant, or not with what the run could not have seen; for
    a headline with no value, why (its benchmark's words, else "not computed")."""
    if h.value is None:
        return f"not computed: {h.missing}" if h.missing else "not computed"
    seen = _seen(h.detectable)
    if h.p is None or not math.isfinite(h.p):
        return "; ".join(part for part in ("no test of its own", seen) if part)
    if h.p < ALPHA:
        return f"significant (p = {PValue(h.p)})"
    return f"not significant (p = {PValue(h.p)})" + (f": {seen}" if seen else "")


def flag_notices(headlines: Sequence[Headline]) -> tuple[str, ...]:
    """One warning per flagged headline, naming the control that failed (the report's notices)."""
    return tuple(f"Warning: {h.label} is flagged by its control: {c.sentence}."
                 for h in headlines for c in h.controls if c.verdict == "unable")


CAPTION = ("Each headline with the controls that say whether the model can do the task at all. Rules: a "
           "control's 95% interval must lie above chance (LMS, accuracy), and at least "
           f"{MIN_DECIDED:.0f}% of items must be decided (not tied); 'unable' flags the headline. Detectable "
           "effect: the smallest effect the run's own test finds with 80% power at two-sided α = 0.05 and this "
           "n (biasatlas.power gives each formula).")
COLUMNS = ("headline", "value", "95% CI", "n", "detectable effect", "reading", "control", "control value",
           "control 95% CI", "chance", "verdict")


def headline_table(headlines: Sequence[Headline]) -> Table:
    """One row per (headline, control); a headline with no control says so in its row."""
    rows: list[tuple[Any, ...]] = []
    for h in headlines:
        first = (h.label, h.value, CI(*(h.interval or (None, None)), digits=2), h.n, effect_text(h.detectable),
                 reading(h))
        for c in h.controls or (Control("none declared", None),):
            rows.append((*first, c.name, c.value, CI(*(c.interval or (None, None))), c.chance, c.verdict))
    return Table("Headline numbers and their controls", COLUMNS, tuple(rows), CAPTION)


def terminal_lines(headlines: Sequence[Headline]) -> list[str]:
    """One line per headline for ``biasatlas run``: the number, its reading and each control's verdict."""
    lines = []
    for h in headlines:
        value = "–" if h.value is None else f"{h.value:.2f}"
        controls = "; ".join(f"{c.name} {_value(c)} ({c.verdict})" for c in h.controls) or "no control declared"
        mark = " [FLAGGED]" if h.flagged else ""
        lines.append(f"{h.label} {value}{mark} · {reading(h)} · controls: {controls}")
    return lines


def _value(c: Control) -> str:
    """A control's value on the terminal line: a count as a count ("122 words", not "122.0")."""
    if c.count:
        return count_text(c.value)
    return "–" if c.value is None else f"{c.value:.1f}"


def headline_dict(h: Headline) -> dict[str, Any]:
    """The headline as JSON (the report's ``--format json``)."""
    return {"name": h.name, "label": h.label, "value": h.value, "interval": list(h.interval or (None, None)),
            "n": h.n, "p": h.p, "neutral": h.neutral, "more_biased": h.more_biased, "flagged": h.flagged,
            "reading": reading(h), "detectable_effect": h.detectable.as_dict() if h.detectable else None,
            "controls": [{"name": c.name, "value": c.value, "interval": list(c.interval or (None, None)),
                          "chance": c.chance, "verdict": c.verdict, "sentence": c.sentence} for c in h.controls]}
