"""KoBBQ's generative protocol in the terminal and report (:mod:`.kobbq`): each prompt's scores as
the authors' ``5_evaluation.py`` lists them (out-of-choice ratio, accuracy and diff-bias in both contexts),
beside the mean over prompts that the main table shows."""

from __future__ import annotations

from ....display.tables import CI, Table
from ..summary import BBQRunSummary, SetScores

COLUMNS = ("prompt", "rows", "ooc", "ooc %", "acc amb", "acc dis", "diff-bias amb", "95% CI", "diff-bias dis",
           "95% CI")
CAPTION = ("Jin et al. (2024), 5_evaluation.py: each sample asked in 3 orders of its options; ooc = answers their "
           "rule maps to no option (share of all rows, then left out); accuracy and diff-bias over the rest, ×100 "
           "(theirs are fractions). The main table's sets are the mean over these prompts. Intervals: 95% "
           "bootstrap over templates.")


def prompt_tables(s: BBQRunSummary) -> list[Table]:
    """One table, a row per prompt asked and one for their mean; none for any other run."""
    if not s.prompts:
        return []
    rows = [_row(p, scores.rows, scores.unparsed, scores.ooc_ratio.get("overall"), scores.sets.get("overall"))
            for p, scores in s.prompts.items()]
    ratios = [v.ooc_ratio["overall"] for v in s.prompts.values() if "overall" in v.ooc_ratio]
    mean_ratio = sum(ratios) / len(ratios) if ratios else None
    rows.append(_row("mean", sum(v.rows or 0 for v in s.prompts.values()), s.unparsed, mean_ratio, s.overall))
    return [Table("KoBBQ per prompt (generated answers, parser kobbq)", COLUMNS, tuple(rows), CAPTION)]


def _row(name: str, rows: float | None, ooc: float | None, ratio: float | None, o: SetScores | None
         ) -> tuple[object, ...]:
    o = o or SetScores()
    return (name, rows, ooc, None if ratio is None else 100.0 * ratio, o.accuracy_amb, o.accuracy_dis,
            o.diff_bias_amb, CI(*o.interval("diff_bias_amb")), o.diff_bias_dis, CI(*o.interval("diff_bias_dis")))
