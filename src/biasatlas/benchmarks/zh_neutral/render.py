"""The ``zh-neutral`` table for the terminal: bias score, leaning counts, per keyword pair.

Laid out like the paper's numbers: the bias score (mean |b|) and, for the whole set,
how many sentences lean male, female or neither (its BERT-base line: 6,024 / 6,743 / 7,223).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _num(value: Any, digits: int = 4) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _ci(pair: Any, digits: int = 3) -> str:
    if not pair or pair[0] is None:
        return ""
    return f"[{pair[0]:.{digits}f}, {pair[1]:.{digits}f}]"


def _count(count: Any, n: Any) -> str:
    if count is None:
        return "–"
    return f"{count} ({100.0 * count / n:.0f}%)" if n else str(count)


def render(summary: Mapping[str, Any]) -> Any:
    from rich.table import Table

    base = summary.get("log_base", "e")
    table = Table(title=f"zh-neutral · {summary.get('dataset') or ''} · {summary.get('model', '')}"
                  f" · log base {base}, threshold {summary.get('threshold')}")
    for col in ("pair", "n", "bias score", "95% CI", "male", "female", "neutral"):
        table.add_column(col, justify="left" if col == "pair" else "right")
    leaning, n = summary.get("leaning", {}), summary.get("n")
    intervals = summary.get("intervals", {})
    table.add_row("all", str(n), _num(summary.get("bias_score")), _ci(intervals.get("bias_score")),
                  *(_count(leaning.get(k), n) for k in ("male", "female", "neutral")), end_section=True)
    for pair, row in summary.get("by_pair", {}).items():
        table.add_row(pair, str(row["n"]), _num(row["bias_score"]), _ci(row.get("bias_score_ci")),
                      *(_count(row["leaning"].get(k), row["n"]) for k in ("male", "female", "neutral")))
    shares = ", ".join(f"{k} {_ci(intervals.get(f'{k}_percent'), 1)}%" for k in ("male", "female", "neutral"))
    skipped = summary.get("n_skipped")
    table.caption = f"95% bootstrap intervals of the leaning shares: {shares}" + \
        (f" · {skipped} skipped: {summary.get('skip_reasons')}" if skipped else "")
    return table
