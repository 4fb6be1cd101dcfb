"""The CrowS-Pairs table for the terminal: metric, likelihood difference, stereo / anti-stereo,
ties, categories.

Laid out to fit an 80-column terminal without wrapping a cell (every column ``no_wrap``;
the longest row label, "likelihood difference", sets the first column), with the same
labels as the report (:data:`.summary.LABELS`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...display.tables import fragile_line, interval_text
from .summary import LABELS, likelihood_short


def _pct(value: Any, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _ci(pair: Any, digits: int = 1) -> str:
    if not pair or pair[0] is None:
        return ""
    return interval_text(pair[0], pair[1], digits)


def _p(value: Any) -> str:
    return "–" if value is None else f"{value:.3g}"


def render(summary: Mapping[str, Any]) -> Any:
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=escape(f"CrowS-Pairs · {summary.get('dataset') or ''} · {summary.get('model', '')}"
                               f" · {summary.get('variant', '')}"))
    for col in ("", "n", "score", "95% CI", "p vs 50"):
        table.add_column(col, justify="left" if not col else "right", no_wrap=True)
    intervals, tests = summary.get("intervals", {}), summary.get("tests", {})
    rows = [(key, n_key, tests.get(key, {}).get("binomial_p")) for key, n_key in
            (("metric_score", "n"), ("stereo_score", "n_stereo"), ("antistereo_score", "n_antistereo"))]
    for key, n_key, p in rows:
        table.add_row(LABELS[key], str(summary.get(n_key)), _pct(summary.get(key)), _ci(intervals.get(key)), _p(p))
        if key == "metric_score" and "likelihood_difference" in summary:  # older runs lack it
            table.add_row(LABELS["likelihood_difference"], str(summary.get("n_likelihood_difference")),
                          _pct(summary.get("likelihood_difference"), 3),
                          _ci(intervals.get("likelihood_difference"), 2), "")
    table.add_row(LABELS["neutral_percent"], str(summary.get("neutral")), _pct(summary.get("neutral_percent")),
                  "", "", end_section=True)
    for cat, row in summary.get("by_category", {}).items():
        table.add_row(escape(str(cat)), str(row["n"]), _pct(row["score"]), _ci(row["ci"]), _p(row["binomial_p"]))
    caption = "score: % of pairs preferring sent_more (50 = none), Wilson 95% CI, binomial p;"
    if "likelihood_difference" in summary:
        caption += " " + likelihood_short(summary.get("variant"))
    fragile = fragile_line(summary, summary.get("n"), "pairs")
    if fragile:
        caption += f" {fragile}: the outcome could flip within the dtype's error."
    table.caption = escape(caption)
    return table
