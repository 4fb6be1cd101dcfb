"""The ``zh-neutral`` table for the terminal: bias score, leaning counts, per keyword pair.

Laid out like the paper's numbers: the bias score (mean |b|) and, for the whole set,
how many sentences lean male, female or neither (its BERT-base line: 6,024 / 6,743 / 7,223).
It fits an 80-column terminal without wrapping a cell: counts in the columns, the
leaning shares with their intervals in the caption, a long keyword pair shortened (whole
in the report). Labels as in the report: "mean |b|", "neutral" (a leaning, not a tie).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...display.style import short
from ...display.tables import fragile_line, interval_text

#: Columns a keyword pair's name may take (男朋友/女朋友 takes 13).
PAIR_WIDTH = 13


def _num(value: Any, digits: int = 4) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _ci(pair: Any, digits: int = 2) -> str:
    if not pair or pair[0] is None:
        return ""
    return interval_text(pair[0], pair[1], digits)


def _count(count: Any) -> str:
    return "–" if count is None else str(count)


def _shares(summary: Mapping[str, Any]) -> str:
    """``male 30.1% [29.5, 30.8]`` for each leaning: the share of all sentences and its interval."""
    leaning, n, intervals = summary.get("leaning", {}), summary.get("n"), summary.get("intervals", {})
    parts = []
    for k in ("male", "female", "neutral"):
        count = leaning.get(k)
        share = f"{100.0 * count / n:.1f}%" if count is not None and n else "–"
        ci = _ci(intervals.get(f"{k}_percent"), 1)
        parts.append(f"{k} {share}" + (f" {ci}" if ci else ""))
    return ", ".join(parts)


def render(summary: Mapping[str, Any]) -> Any:
    from rich.markup import escape
    from rich.table import Table

    base = summary.get("log_base", "e")
    table = Table(title=escape(f"zh-neutral · {summary.get('dataset') or ''} · {summary.get('model', '')}"
                               f" · log base {base}, threshold {summary.get('threshold')}"))
    for col in ("pair", "n", "mean |b|", "95% CI", "male", "female", "neutral"):
        table.add_column(col, justify="left" if col == "pair" else "right", no_wrap=True)
    leaning, n = summary.get("leaning", {}), summary.get("n")
    intervals = summary.get("intervals", {})
    table.add_row("all", str(n), _num(summary.get("bias_score")), _ci(intervals.get("bias_score")),
                  *(_count(leaning.get(k)) for k in ("male", "female", "neutral")), end_section=True)
    for pair, row in summary.get("by_pair", {}).items():
        table.add_row(escape(short(pair, PAIR_WIDTH)), str(row["n"]), _num(row["bias_score"]),
                      _ci(row.get("bias_score_ci")), *(_count(row["leaning"].get(k)) for k in ("male", "female",
                                                                                              "neutral")))
    skipped = summary.get("n_skipped")
    caption = f"Leaning shares of all sentences, 95% bootstrap intervals: {_shares(summary)}" + \
        (f" · {skipped} skipped: {summary.get('skip_reasons')}" if skipped else "")
    fragile = fragile_line(summary, summary.get("n"), "sentences")
    if fragile:
        caption += f" · {fragile}: the leaning could flip within the dtype's error"
    table.caption = escape(caption)
    return table
