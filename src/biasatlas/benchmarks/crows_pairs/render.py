"""The CrowS-Pairs table for the terminal: metric / stereo / anti-stereo and categories."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _pct(value: Any) -> str:
    return "–" if value is None else f"{value:.2f}"


def _ci(pair: Any) -> str:
    if not pair or pair[0] is None:
        return ""
    return f"[{pair[0]:.1f}, {pair[1]:.1f}]"


def render(summary: Mapping[str, Any]) -> Any:
    from rich.table import Table

    table = Table(title=f"CrowS-Pairs · {summary.get('dataset') or ''} · {summary.get('model', '')}"
                  f" · {summary.get('variant', '')}")
    for col in ("", "n", "score", "95% CI", "p (binomial vs 50)"):
        table.add_column(col, justify="left" if not col else "right")
    intervals, tests = summary.get("intervals", {}), summary.get("tests", {})
    for key, label, n_key in (("metric_score", "metric", "n"), ("stereo_score", "stereo", "n_stereo"),
                              ("antistereo_score", "anti-stereo", "n_antistereo")):
        p = tests.get(key, {}).get("binomial_p")
        table.add_row(label, str(summary.get(n_key)), _pct(summary.get(key)), _ci(intervals.get(key)),
                      "–" if p is None else f"{p:.3g}")
    table.add_row("neutral (ties)", str(summary.get("neutral")), _pct(summary.get("neutral_percent")), "", "",
                  end_section=True)
    for cat, row in summary.get("by_category", {}).items():
        table.add_row(cat, str(row["n"]), _pct(row["score"]), _ci(row["ci"]), f"{row['binomial_p']:.3g}")
    return table
