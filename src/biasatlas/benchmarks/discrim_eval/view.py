"""What the terminal and the report show of a DiscrimEval run (Tamkin et al. 2023).

- Tables: each level's discrimination score (the mixed-effects coefficient against white / male, age per
  standard deviation) with its 95% interval and p, beside the mean logit difference over scenarios; the
  reading (prompts, scenarios, mean p(yes), the answer mass and the items below the threshold, the chat
  template, the random effects and whether the fit converged).
- Plot: the coefficients with their intervals, one panel per attribute (race, gender, age).
- Leaderboard and metrics: every level's coefficient; the items below the mass threshold.
- Paired test: a paired bootstrap on logit p(yes) over the prompts both runs scored.
- Headlines: each level's coefficient against 0, with the answer-mass control and its detectable effect.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...display.cite import Reference
from ...display.controls import Headline, shown
from ...display.direction import toward
from ...display.paired import Paired, bootstrap_test, pair_items
from ...display.style import INK, LABEL_WIDTH, fit, new_figure, short, title
from ...display.svg import Plot
from ...display.tables import CI, Metric, PValue, Table, leaderboard_table
from ...power import Detectable, mde_normal, se_from_interval
from ...runs.view import RunView
from ..base import BenchmarkView, PairedMethod
from .analysis import TERMS
from .summary import ATTRIBUTE, DiscrimEvalRunSummary, Level

_BASELINE = {"race": "white", "gender": "male", "age": "per SD of age"}


def _summary(run: RunView) -> DiscrimEvalRunSummary:
    return run.typed(DiscrimEvalRunSummary)


def _against(name: str, level: Level) -> str:
    return "age (per SD)" if name == "age" else f"{name} vs {_BASELINE[level.attribute or 'race']}"


def tables(run: RunView) -> list[Table]:
    s = _summary(run)
    rows = tuple((_against(k, v), v.estimate, CI(*v.interval("estimate"), digits=3), PValue(v.p), v.mean_difference,
                  CI(*v.interval("mean_difference"), digits=3), PValue(v.mean_difference_p))
                 for k, v in s.levels.items())
    fit_note = s.fit_error or ("converged" if s.converged else "not converged")
    reading = ((s.n, s.n_scenarios, s.mean_p_yes, s.median_mass, s.n_low_mass, s.chat_template, s.random_effects,
                fit_note, s.n_skipped),)
    return [Table("DiscrimEval: discrimination score per demographic level", (
                "level", "coefficient (logit)", "95% CI", "p", "mean logit difference", "95% CI", "p"), rows,
                "Coefficient: the level's fixed effect on logit p(yes) in the mixed-effects model of Tamkin et al. "
                "(2023) as lm-evaluation-harness fits it (random effects per scenario), against white, male; age "
                "per standard deviation (lm-eval reports its absolute value). Positive: more favourable decisions. "
                "0 = no effect. Intervals: Wald 95%. Mean logit difference: per scenario, the level's mean logit "
                "minus the baseline's, averaged over scenarios (t interval over scenarios)."),
            Table("DiscrimEval reading", ("prompts", "scenarios", "mean p(yes)", "median mass", "below mass threshold",
                                          "chat template", "random effects", "fit", "skipped"), reading,
                  f"p(yes) = P(yes) + P(Yes) normalised against P(no) + P(No); mass = the four forms' total "
                  f"probability, an item below {s.mass_threshold} is flagged (kept in the fit, as lm-eval keeps it). "
                  "A fit that did not converge still shows its coefficients: read them with care.")]


def metrics(run: RunView) -> list[Metric]:
    s = _summary(run)
    out = [Metric(f"coefficient:{k}", v.estimate, *v.interval("estimate"), n=s.n, label=_against(k, v))
           for k, v in s.levels.items()]
    return out + [Metric("n_low_mass", s.n_low_mass, n=s.n, label="below mass threshold")]


def leaderboard(runs: Sequence[RunView]) -> Table:
    rows = []
    for r in runs:
        s = _summary(r)
        rows.append((r, (r.label, s.chat_template, s.n, *(s.levels[k].estimate if k in s.levels else None
                                                            for k in TERMS), s.n_low_mass)))
    return leaderboard_table("DiscrimEval", ("model", "chat template", "prompts", *TERMS, "low mass"), rows, runs,
                             "Mixed-effects coefficients on logit p(yes) against white, male (age per SD); 0 = no "
                             "effect, positive = more favourable.")


def compare(a: RunView, b: RunView, *, n_resamples: int, seed: int) -> Paired:
    """A paired bootstrap on logit p(yes) over the prompts both runs scored."""
    ra, rb, only_a, only_b = pair_items(a, b, "id")
    va = np.array([r["logit_yes"] for r in ra], dtype=float)
    vb = np.array([r["logit_yes"] for r in rb], dtype=float)
    return Paired((bootstrap_test("all prompts", "logit p(yes)", va, vb, n_resamples, seed),), len(ra), only_a,
                  only_b)


def plots(run: RunView) -> list[Plot]:
    """The coefficients with their intervals, one panel per attribute."""
    s = _summary(run)
    panels = [(a, [(k, v) for k, v in s.levels.items() if v.attribute == a and v.estimate is not None])
              for a in ("race", "gender", "age")]
    panels = [(a, rows) for a, rows in panels if rows]
    if not panels:
        return []
    fig = new_figure(7.0, 2.6)
    tips: dict[str, Any] = {}
    for i, (attribute, rows) in enumerate(panels):
        ax = fig.add_subplot(1, len(panels), i + 1)
        ax.axvline(0, color=INK, lw=0.8, ls=":", gid=f"zero-{attribute}")
        for y, (_, v) in enumerate(rows):
            low, high = v.interval("estimate")
            if low is not None and high is not None:
                ax.plot([low, high], [y, y], color=INK, lw=1.2)
        ax.scatter([v.estimate for _, v in rows], range(len(rows)), s=20, color=INK, gid=f"points-{attribute}")
        tips[f"points-{attribute}"] = [f"{_against(k, v)}: {v.estimate:+.3f}" for k, v in rows]
        ax.set_yticks(range(len(rows)), [k for k, _ in rows], fontsize=7)
        ax.set(xlabel=f"coefficient vs {_BASELINE[attribute]}" if attribute != "age" else "per SD of age")
    title(fig.axes[0], f"DiscrimEval · {short(run.label, LABEL_WIDTH)}", f"DiscrimEval · {run.label}", tips)
    fit(fig)
    return [Plot(fig, f"DiscrimEval discrimination scores per level for {run.label}", tips)]


def headlines(run: RunView) -> tuple[Headline, ...]:
    """Each level's coefficient against 0; the answer mass shown as the control (how many items the
    model answered with the four forms holding less than the threshold)."""
    s = _summary(run)
    mass = shown("below mass threshold", None if s.n_low_mass is None else float(s.n_low_mass),
                 f"{s.n_low_mass} of {s.n} prompts put less than {s.mass_threshold} of the probability on "
                 "yes/Yes/no/No", count=True)
    out = []
    for k in TERMS:  # every level, also one a run could not score (its reading says why)
        v = s.levels.get(k, Level(ATTRIBUTE[k]))
        se = se_from_interval(*v.interval("estimate"))
        mde = Detectable(mde_normal(se), "logit", "Wald test of the coefficient", s.n,
                         "(z₁₋α/₂ + z_power)·SE at the run's own standard error (Bloom 1995)")
        out.append(Headline(f"coefficient:{k}", _against(k, v), v.estimate, v.intervals.get("estimate"), s.n, v.p,
                            0.0, "farther", (mass,), mde, "" if v.estimate is not None else
                            s.fit_error or "no coefficient: the level is not among the items"))
    return tuple(out)


#: The paper (arXiv), as its authors cite it.
TAMKIN_2023 = Reference("tamkin2023evaluating", "article", (
    ("title", "Evaluating and Mitigating Discrimination in Language Model Decisions"),
    ("author", "Tamkin, Alex and Askell, Amanda and Lovitt, Liane and Durmus, Esin and Joseph, Nicholas and "
               "Kravec, Shauna and Nguyen, Karina and Kaplan, Jared and Ganguli, Deep"),
    ("journal", "arXiv preprint arXiv:2312.03689"), ("year", "2023")))


def references(run: RunView) -> tuple[Reference, ...]:
    return (TAMKIN_2023,)


VIEW = BenchmarkView(tables=tables, leaderboard=leaderboard, metrics=metrics,
                     paired=PairedMethod(compare, "paired bootstrap on DiscrimEval logit p(yes)"), plots=plots,
                     references=references, headlines=headlines,
                     directions={"coefficient:": toward(0), "n_low_mass": toward(0)})
