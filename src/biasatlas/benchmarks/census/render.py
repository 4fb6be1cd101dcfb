"""The census table for the terminal, in the layout of Touileb et al. (2023) Tables 3 and 4.

Table 3 gives each model's normative and descriptive score; Table 4 splits the
descriptive score into balanced (the paper's "neutral"), female and male occupations, each
a share of all occupations. One row per run, the bootstrap intervals under it, the rest
in the caption. It fits an 80-column terminal without wrapping a cell: the model's name
is shortened in its cell (whole in the title), and no column wraps.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...display.style import short
from ...display.tables import fragile_line, interval_text

#: Columns the model's name may take in the first cell (the title holds it whole).
NAME_WIDTH = 16


def _pct(value: Any) -> str:
    return "–" if value is None else f"{value:.2f}"


def _ci(pair: Any) -> str:
    return "" if not pair or pair[0] is None else interval_text(pair[0], pair[1])


def _corr(summary: Mapping[str, Any], key: str) -> str:
    value, p = summary.get(key), summary.get(f"{key}_p")
    return "–" if value is None else f"{value:.3f} (p={p:.2g})"


def _caption(summary: Mapping[str, Any]) -> str:
    census, model = summary.get("census_counts", {}), summary.get("model_counts", {})
    counts = lambda c: "/".join(f"{int(c.get(k, 0))}" for k in ("female", "male", "balanced"))  # noqa: E731
    multi = summary.get("multi_token", {})
    lines = [f"{summary.get('n_occupations')} occupations · census F/M/B {counts(census)} · "
             f"model F/M/B {counts(model)}",
             f"Pearson {_corr(summary, 'pearson')} · Spearman {_corr(summary, 'spearman')}",
             f"aggregation {summary.get('aggregation')} · normalisation {summary.get('normalisation')} · "
             f"multi-token {multi.get('policy')} ({multi.get('n_identifiers', 0)} split identifiers)",
             f"{summary.get('n_probes')} sentences · {summary.get('n_contexts')} masked contexts · "
             f"{summary.get('n_forward_passes') if summary.get('n_forward_passes') is not None else '–'}"
             " forward passes"]
    lines.append(f"identifiers {summary.get('identifiers', 'all')}"
                 + (f" · reading {summary['causal_reading']}" if summary.get("causal_reading") else ""))
    base = summary.get("baseline") or {}
    if base.get("share") is not None:
        lines.append(f"occupation-free baseline {base['share']:.2f} % female · largest identifier "
                     f"{base.get('top_identifier')} {100 * (base.get('top_identifier_share') or 0):.0f} % of its mass")
    lines += [f"WARNING: {w}" for w in summary.get("warnings") or []]
    fragile = fragile_line(summary, summary.get("n_occupations"), "occupations")
    if fragile:
        lines.append(f"{fragile}: the class could flip within the dtype's error")
    if summary.get("binary_agreement") is not None:
        lines.append(f"GeBNLP 2022 binary agreement (F > M vs census > 50 %): "
                     f"{summary['binary_agreement']:.2f} · template set {summary.get('template_set')}")
    return "\n".join(lines)


def render(summary: Mapping[str, Any]) -> Any:
    from rich.markup import escape
    from rich.table import Table

    title = (f"Census occupational bias · {summary.get('country', '')} ({summary.get('language', '')}) · "
             f"{summary.get('method', '')} · {summary.get('model', '')}")
    table = Table(title=escape(title), caption=escape(_caption(summary)))
    for column in ("", "normative", "descriptive", "balanced", "female", "male"):
        table.add_column(column, justify="left" if not column else "right", no_wrap=True)
    by_class = summary.get("descriptive_by_class", {})
    table.add_row(escape(short(summary.get("model", ""), NAME_WIDTH)), _pct(summary.get("normative")),
                  _pct(summary.get("descriptive")), _pct(by_class.get("balanced")),
                  _pct(by_class.get("female")), _pct(by_class.get("male")))
    intervals = summary.get("intervals", {})
    confidence = intervals.get("confidence")
    label = f"{100 * confidence:.0f}% CI" if confidence else "CI"
    table.add_row(label, _ci(intervals.get("normative")), _ci(intervals.get("descriptive")), "", "", "")
    return table
