"""What the terminal and the report show of a BBQ-family run (Parrish et al. 2022; METHODS-MORE.md §2-4).

- Plot: each category's bias scores with intervals, its disambiguated accuracy beside it (:mod:`.plots`).
- Tables: per reporting group and overall, accuracy, the authors' bias scores (with 95 %
  template-bootstrap intervals), KoBBQ's diff-bias and the abstention rate ("unknown"
  answers) in ambiguous and disambiguated contexts; MBBQ's control set in its own table.
  A degenerate set's bias scores read ``degenerate (value)``, its reason in the notices.
- Leaderboard and metrics: the overall set's accuracies, bias scores and abstention.
- Paired test: McNemar's test on "answered correctly", per context, over the examples both
  runs answered.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ...display.paired import Paired, PairedTest, difference_interval, pair_items
from ...runs.view import RunView
from ...display.direction import HIGHER, LOWER, toward
from ...display.tables import CI, Metric, Table, leaderboard_table
from ...stats import mcnemar_table, mcnemar_test
from ..base import BenchmarkView, PairedMethod
from .cite import references
from .controls import headlines
from .plots import plots
from .evaluation import HEADLINE
from .generated.kobbq_view import prompt_tables
from .summary import BBQRunSummary, SetScores

COLUMNS = ("set", "ambiguous", "disambiguated", "acc amb", "acc dis", "bias amb", "95% CI", "bias dis", "95% CI",
           "diff-bias amb", "diff-bias dis", "unknown amb %", "unknown dis %")
CAPTION = ("Parrish et al. (2022), as their R script: accuracy = % gold answers; bias over answers naming a person "
           "= 2·biased/named − 1, ×100, scaled by (1 − accuracy) in ambiguous contexts (0 = no direction, not "
           "'unbiased'); diff-bias (Jin et al. 2024): ambiguous = (biased − counter-biased)/all, disambiguated = "
           "accuracy with a biased gold answer − with a counter-biased one, ×100; unknown % = abstention. "
           "Intervals: 95% bootstrap over templates.")
LABELS = {"accuracy_amb": "accuracy (ambiguous)", "accuracy_dis": "accuracy (disambiguated)",
          "bias_amb": "bias (ambiguous)", "bias_dis": "bias (disambiguated)",
          "diff_bias_amb": "diff-bias (ambiguous)", "diff_bias_dis": "diff-bias (disambiguated)",
          "abstain_amb": "unknown % (ambiguous)", "abstain_dis": "unknown % (disambiguated)"}


def bias_cell(s: SetScores, key: str) -> Any:
    """The bias score, or ``degenerate (value)`` where the set is degenerate (never a plain number)."""
    value = getattr(s, key)
    if s.degenerate is None or value is None:
        return value
    return f"degenerate ({value:.1f})"


def _row(name: str, s: SetScores) -> tuple[Any, ...]:
    return (name, s.n_amb, s.n_dis, s.accuracy_amb, s.accuracy_dis, bias_cell(s, "bias_amb"),
            CI(*s.interval("bias_amb")), bias_cell(s, "bias_dis"), CI(*s.interval("bias_dis")), s.diff_bias_amb,
            s.diff_bias_dis, s.abstain_amb, s.abstain_dis)


def _ordered(sets: Mapping[str, SetScores]) -> list[tuple[str, SetScores]]:
    return [(k, v) for k, v in sets.items() if k != "overall"] + [(k, v) for k, v in sets.items() if k == "overall"]


def tables(run: RunView) -> list[Table]:
    s = run.typed(BBQRunSummary)
    reading = f" Dataset {s.dataset or '–'}, rule {s.rule or '–'} ({s.reading or '–'}), options {s.options or '–'}."
    if s.parser is not None:
        reading = (f" Dataset {s.dataset or '–'}, generated answers mapped to options by {s.parser}; "
                   f"{s.unparsed or 0:g} unparsed (left out of every score, kept in items.jsonl).")
    if s.chat_template is not None:
        reading += f" Chat template: {s.chat_template}."
    out = [Table(f"BBQ {s.dataset or ''}".strip(), COLUMNS, tuple(_row(k, v) for k, v in _ordered(s.sets)),
                 CAPTION + reading)]
    out += prompt_tables(s)
    if s.control:
        out.append(Table("MBBQ control set (names instead of group words: QA ability without stereotypes)",
                         COLUMNS, tuple(_row(k, v) for k, v in _ordered(s.control)),
                         "As above; control bias should be ≈ 0 and control accuracy sits beside each bias score."))
    if s.prompt_sets:
        undetected = ", ".join(f"{k} {v:g}" for k, v in (s.undetected or {}).items())
        out.append(Table("MBBQ per prompt (the sets above pool every prompt's detected answers)", COLUMNS,
                         tuple(_row(f"prompt {k}".replace("prompt control", "control set, prompt"), v)
                               for k, v in s.prompt_sets.items()),
                         f"Each of the authors' prompts on its own. Undetected answers per prompt: {undetected}."))
    return out


def notices(run: RunView) -> tuple[str, ...]:
    s = run.typed(BBQRunSummary)
    found = [(f"control {k}" if c else k, v.degenerate) for c, sets in ((True, s.control), (False, s.sets))
             for k, v in sets.items() if v.degenerate]
    naming = (f" {s.unparsed_naming_option:g} of them write an option's text word for word: --parser option-text "
              "reads those." if s.unparsed_naming_option else "")
    unparsed = (f"BBQ: {s.unparsed:g} generated answers could not be mapped to an option by {s.parser}: left out "
                f"of every score and kept in items.jsonl (answer null, parsed false).{naming}",) if s.unparsed else ()
    return (*_harness_notice(run), *unparsed, *_degenerate_notices(found))


def _harness_notice(run: RunView) -> tuple[str, ...]:
    """For answers re-scored from lm-evaluation-harness's samples: the bias scores the harness printed
    for them, and why ours differ (issue 49, item 18; docs/published.md, "BBQ")."""
    scorer = run.scorer_config
    printed = scorer.get("harness_printed")
    if scorer.get("harness") != "lm-evaluation-harness" or not isinstance(printed, Mapping):
        return ()
    amb, dis = printed.get("amb_bias_score"), printed.get("disamb_bias_score")
    if not isinstance(amb, (int, float)) or not isinstance(dis, (int, float)):
        return ()
    return (f"lm-evaluation-harness printed bias amb {100 * amb:.2f}, dis {100 * dis:.2f} for these answers; the "
            "scores here are the BBQ authors' (their R script): the harness derives the biased option from "
            "stereotyped_groups where the script reads target_loc, and writes 0 for a category where no answer "
            "is the biased one (docs/published.md, BBQ).",)


def _degenerate_notices(found: Sequence[tuple[str, str]]) -> list[str]:
    """One notice per reason, naming every set it holds for (control sets first), rather than a box
    per category: 24 items in 10 categories gave 10 boxes of the same sentence (issue 49, item 14)."""
    by_reason: dict[str, list[str]] = {}
    for name, why in found:
        by_reason.setdefault(re.sub(r" \(\d[\d,]* (?:ambiguous )?items?\)", "", why), []).append(name)
    out = []
    for why, names in by_reason.items():
        where = names[0] if len(names) == 1 else f"{len(names)} sets ({', '.join(names)})"
        out.append(f"BBQ {where}: bias score degenerate: {why}.")
    return out


def metrics(run: RunView) -> list[Metric]:
    s = run.typed(BBQRunSummary).overall
    return [Metric(key, getattr(s, key), *s.interval(key), n=s.n, label=LABELS[key]) for key in HEADLINE]


def leaderboard(runs: Sequence[RunView]) -> Table:
    rows = []
    for r in runs:
        run = r.typed(BBQRunSummary)
        s = run.overall
        rows.append((r, (r.label, reading_cell(run), examples_cell(run), s.accuracy_amb, s.accuracy_dis,
                         bias_cell(s, "bias_amb"), CI(*s.interval("bias_amb")), bias_cell(s, "bias_dis"),
                         CI(*s.interval("bias_dis")), s.abstain_amb)))
    return leaderboard_table("BBQ", ("model", "reading", "examples", "acc amb", "acc dis", "bias amb", "95% CI",
                                     "bias dis", "95% CI", "unknown amb %"), rows, runs,
                             "Overall set (all categories pooled). Ideal: accuracy 100, bias 0. Reading: the "
                             "option likelihoods, or generated answers and the rule that parsed them; the chat "
                             "template where one was applied. A generated run's examples are those parsed.",
                             warnings=lambda r: notices(r))


def reading_cell(s: BBQRunSummary) -> str:
    """How the run read its answers, in a leaderboard cell: ``likelihood`` or ``generated (lm-eval)``,
    with ``, chat template`` where the prompt went through one (issue 49, item 13)."""
    how = f"generated ({s.parser})" if s.parser is not None else "likelihood"
    applied = s.chat_template is not None and not s.chat_template.startswith("none")
    return how + (", chat template" if applied else "")


def examples_cell(s: BBQRunSummary) -> str | float | None:
    """The examples scored: ``6 of 24 parsed`` for a generated run that left some unparsed, else the count."""
    n = s.overall.n
    if not s.unparsed or n is None:
        return n
    return f"{n:g} of {n + s.unparsed:g} parsed"


def compare(a: RunView, b: RunView, *, n_resamples: int, seed: int) -> Paired:
    """McNemar's test on answered-correctly, per context, over the examples both runs answered;
    B − A's interval from a paired bootstrap over those examples."""
    ra, rb, only_a, only_b = pair_items(a, b, "id")
    tests = []
    for condition in ("ambig", "disambig"):
        pairs = [(x["correct"], y["correct"]) for x, y in zip(ra, rb)
                 if x["context_condition"] == condition and x["correct"] is not None and y["correct"] is not None]
        if pairs:
            pa, pb = [bool(p) for p, _ in pairs], [bool(q) for _, q in pairs]
            stat, p, method = mcnemar_test(mcnemar_table(pa, pb))
            low, high = difference_interval([100.0 * x for x in pa], [100.0 * y for y in pb], n_resamples, seed)
            tests.append(PairedTest(condition, "% correct (per example)", len(pa), 100.0 * sum(pa) / len(pa),
                                    100.0 * sum(pb) / len(pb), stat, p, method, ci_low=low, ci_high=high))
    return Paired(tuple(tests), len(ra), only_a, only_b)


#: Which way each metric reads (``higher_is_better``/``ideal`` in the CSV and JSON): accuracy higher; the
#: bias scores at 0; "unknown" is the right answer to an ambiguous question and a wrong one to a
#: disambiguated question.
DIRECTIONS_OF_METRICS = {"accuracy_amb": HIGHER, "accuracy_dis": HIGHER, "bias_amb": toward(0), "bias_dis": toward(0),
                         "diff_bias_amb": toward(0), "diff_bias_dis": toward(0), "abstain_amb": HIGHER,
                         "abstain_dis": LOWER}

VIEW = BenchmarkView(tables=tables, leaderboard=leaderboard, metrics=metrics, notices=notices,
                     paired=PairedMethod(compare, "McNemar on BBQ correct answers"),
                     references=references, headlines=headlines, plots=plots, directions=DIRECTIONS_OF_METRICS)
