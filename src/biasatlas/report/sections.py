"""What the report shows for one run: its tables, its plots, its notices and its provenance.

The run's benchmark view (looked up by the run's ``benchmark`` name) builds the tables
(shared by the Markdown and HTML outputs) and the plots (HTML only); a run of a benchmark
this install does not know gets its summary fields as one table. Every run gets its
skipped items by reason and its provenance.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..display.controls import Headline
from ..runs.view import SETTINGS, RunView
from ..display.svg import Plot
from ..display.tables import Table
from ..display.terminal import TerminalTables
from ..registry import find_spec


@dataclass(frozen=True)
class Provenance:
    """The facts a reader needs to cite or re-run: short pairs first, full JSON after."""

    facts: tuple[tuple[str, str], ...]
    raw_json: str


# -- the run's benchmark view ------------------------------------------------------------------------
def run_notices(run: RunView) -> tuple[str, ...]:
    """Sentences the reader must not miss (e.g. why a paper that reports this model is not beside it),
    first the run's language note (an English-only model on Dutch text) where it recorded one."""
    spec = find_spec(run.benchmark)
    note = run.summary.get("language_note")
    return ((note,) if isinstance(note, str) and note else ()) + (spec.view.notices(run) if spec is not None else ())


def run_headlines(run: RunView) -> tuple[Headline, ...]:
    """The run's headline numbers with their controls and detectable effects, as its benchmark declares them."""
    spec = find_spec(run.benchmark)
    return spec.view.headlines(run) if spec is not None else ()


def run_tables(run: RunView) -> list[Table]:
    spec = find_spec(run.benchmark)
    tables = list(spec.view.tables(run)) if spec is not None else [_generic(run)]
    reasons = run.skip_reasons()
    if reasons:
        tables.append(Table("Skipped items", ("reason", "items"), tuple(reasons.most_common())))
    linted = lint_table(run)
    return tables if linted is None else [*tables, linted]


def lint_table(run: RunView) -> Table | None:
    """The run's data lint (summary.json's ``lint``): items per rule, and whether the flagged
    ones were scored; None for a run without one (an older run, a benchmark with no lint)."""
    lint = run.summary.get("lint")
    if not isinstance(lint, Mapping) or not isinstance(lint.get("by_rule"), Mapping):
        return None
    n = lint.get("items") or 0
    rows = tuple((rule, count, f"{100 * count / n:.1f} %" if n else "–") for rule, count in lint["by_rule"].items()
                 if isinstance(count, int) and count)
    scored = "left out (the clean subset was scored)" if lint.get("excluded") else "scored with the rest"
    caption = (f"{lint.get('flagged', 0):,} of {n:,} items carry a finding of biasatlas lint (docs/lint.md); "
               f"they were {scored}. An item counts once per rule.")
    return Table("Data lint", ("rule", "items", "share"), rows, caption)


def run_terminal(run: RunView) -> TerminalTables:
    """What ``biasatlas run`` prints for a run: its report tables, then its notices (a rich
    renderable; each table fitted to the console that prints it)."""
    said = run.summary.get("language_note")  # printed before the scoring began: not again
    return TerminalTables(tuple(run_tables(run)), tuple(n for n in run_notices(run) if n != said))


def _generic(run: RunView) -> Table:
    rows = tuple((k, v) for k, v in run.summary.items() if isinstance(v, (int, float, str)) and k != "benchmark")
    return Table(f"{run.benchmark} summary", ("field", "value"), rows)


def run_plots(run: RunView) -> list[Plot]:
    """The run's figures; call inside :func:`biasatlas.display.style.style`."""
    spec = find_spec(run.benchmark)
    return spec.view.plots(run) if spec is not None else []


def provenance(run: RunView) -> Provenance:
    """Model, revision or file hashes, data sha256, versions, variant, settings."""
    prov, scorer = run.provenance, run.provenance.get("scorer") or {}
    facts: list[tuple[str, str]] = [("run folder", str(run.path)), ("benchmark",
                                     f"{run.benchmark} v{run.summary.get('benchmark_version', '?')}"),
                                    ("dataset", run.dataset), ("data sha256", str(run.data_sha256 or "–")),
                                    ("model", run.model), ("variant", str(run.variant or "–"))]
    facts.append(("items scored", run.subset))
    facts += [(label, _setting_text(key, value)) for (key, label), value in _present_settings(run)]
    facts += [(k if k == "scorer" else f"scorer {k}", _short(v)) for k, v in scorer.items()
              if k not in ("model", "variant")]  # its kind reads "scorer", not "scorer scorer"
    versions = ", ".join(f"{k} {prov[k]}" for k in ("biasatlas", "python", "torch", "transformers", "tokenizers")
                         if prov.get(k))
    facts.append(("versions", versions or "–"))
    if prov.get("biasatlas_commit"):
        facts.append(("biasatlas commit", str(prov["biasatlas_commit"]) + (" (with local changes)"
                                                                           if prov.get("biasatlas_modified") else "")))

    for key in ("n_probes", "seconds_scoring"):
        if prov.get(key) is not None:
            facts.append((key.replace("_", " "), str(prov[key])))
    raw = json.dumps({"config": run.config, "provenance": prov}, indent=2, ensure_ascii=False, default=str)
    return Provenance(tuple(facts), raw)


def _present_settings(run: RunView) -> list[tuple[tuple[str, str], Any]]:
    bench, chosen = run.benchmark_config, {k.key for k in run.subset_keys}
    return [((key, label), bench[key]) for key, label in SETTINGS if key in bench and key not in chosen]


def _setting_text(key: str, value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, list | tuple):
        return ", ".join(map(str, value))
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _short(value: Any) -> str:
    if isinstance(value, Mapping):
        return ", ".join(f"{k}={_short(v)}" for k, v in value.items()) or "–"
    if isinstance(value, (list, tuple)):
        return ", ".join(_short(v) for v in value) or "–"
    return str(value)
