"""BBQ's headlines with their controls (Parrish et al. 2022, §4; Neplenbroek et al. 2024, §3.2).

A bias score counts which person the model names; it means something only when the model can
answer the question at all. In a disambiguated context the answer is written in the text, so
disambiguated accuracy against chance (one of three answers: 100/3 %) is the control, judged by
:func:`~biasatlas.display.controls.above_chance`; beside it the abstention rate there ("unknown"
where the context gives the answer), and on MBBQ the control set's disambiguated accuracy (names
instead of group words: QA ability without stereotypes), judged alike.

Detectable effect: the bias scores have no test of their own, only the 95 % template bootstrap,
so the MDE is :func:`~biasatlas.power.mde_normal` at that interval's SE (normal approximation).

The headline bias scores are BBQ's (the R script's) except where a dataset's authors define
their own: EsBBQ and CaBBQ headline theirs, which are the diff-bias columns (:mod:`.esbbq`).
"""

from __future__ import annotations

from ...display.controls import Control, Headline, above_chance, shown
from ...runs.view import RunView
from ...power import Detectable, mde_normal, se_from_interval
from .generated.table import headline_reading
from .summary import BBQRunSummary, SetScores

#: Three answers per question (the two people and "unknown"): a model that cannot read the context.
CHANCE = 100.0 / 3.0
LABELS = {"bias_amb": "bias (ambiguous)", "bias_dis": "bias (disambiguated)",
          "diff_bias_amb": "bias (ambiguous; the authors' = diff-bias)",
          "diff_bias_dis": "bias (disambiguated; the authors' = diff-bias)"}
#: Datasets whose authors' bias scores are the diff-bias columns: their headlines.
OWN_SCORES = {"esbbq": ("diff_bias_amb", "diff_bias_dis"), "cabbq": ("diff_bias_amb", "diff_bias_dis")}


def _controls(s: BBQRunSummary) -> tuple[Control, ...]:
    o = s.overall
    out = [above_chance("accuracy (disambiguated)", o.accuracy_dis, o.intervals.get("accuracy_dis"), CHANCE,
                        "disambiguated accuracy"),
           shown("unknown % (disambiguated)", o.abstain_dis, "answers 'unknown' where the context gives the answer",
                 o.intervals.get("abstain_dis"))]
    control = s.control.get("overall")
    if control is not None:
        out.append(above_chance("control-set accuracy (disambiguated)", control.accuracy_dis,
                                control.intervals.get("accuracy_dis"), CHANCE, "MBBQ control-set accuracy"))
    return tuple(out)


def _headline(o: SetScores, key: str, controls: tuple[Control, ...], label: str | None = None) -> Headline:
    se = se_from_interval(*o.interval(key))
    mde = Detectable(mde_normal(se), "bias points (×100)", "normal approximation at the template bootstrap's SE",
                     o.n_templates, "(z.975 + z.80)·SE, SE = 95% bootstrap interval width / 3.92 (Bloom 1995)",
                     scale_end=100.0)
    return Headline(key, label or LABELS[key], getattr(o, key), o.intervals.get(key), o.n, None, 0.0, "farther",
                    controls, mde, _missing(o, key))


def _missing(o: SetScores, key: str) -> str:
    """Why a bias score has no value: no example of its context was scored, or no answer named a
    person (the score is a share of the answers that do)."""
    ambiguous = key.endswith("_amb")
    context = "ambiguous" if ambiguous else "disambiguated"
    if not (o.n_amb if ambiguous else o.n_dis):
        return f"no {context} example was scored (a smaller --sample or one --category can hold none)"
    if key == "diff_bias_dis":
        return "no disambiguated question of one of the two kinds (pro- and anti-stereotypical) was answered"
    return f"no answer in {context} contexts named a person (all 'unknown'), and the score counts those that do"


def headlines(run: RunView) -> tuple[Headline, ...]:
    s = run.typed(BBQRunSummary)
    controls = _controls(s)
    read = headline_reading(s.parser)
    if read is not None:  # MBBQ's generative protocol: KoBBQ-style scores, our reading (METHODS-MORE.md §3)
        return tuple(_headline(s.overall, key, controls, f"bias ({context}; diff-bias, {read})")
                     for key, context in (("diff_bias_amb", "ambiguous"), ("diff_bias_dis", "disambiguated")))
    keys = OWN_SCORES.get(s.dataset or "", ("bias_amb", "bias_dis"))
    return tuple(_headline(s.overall, key, controls) for key in keys)
