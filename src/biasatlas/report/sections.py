"""What the report shows for one run: its tables, its plots and its provenance.

One function per benchmark builds the tables (shared by the Markdown and HTML outputs)
and one builds the plots (HTML only). Item-level tables show only the few most extreme
items, so a run of 20,000 items renders as fast as one of 200.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .paper import comparable_paper, paper_check
from .runs import SETTINGS, RunView
from .svg import Plot
from .tables import CI, PValue, Table

N_EXAMPLES = 8


@dataclass(frozen=True)
class Provenance:
    """The facts a reader needs to cite or re-run: short pairs first, full JSON after."""

    facts: tuple[tuple[str, str], ...]
    raw_json: str


# -- CrowS-Pairs ----------------------------------------------------------------------------
def crows_tables(run: RunView) -> list[Table]:
    s, paper = run.summary, comparable_paper(run)
    tests, ints = s.get("tests") or {}, s.get("intervals") or {}
    published = {"metric_score": paper.metric if paper else None,
                 "stereo_score": paper.stereo if paper else None,
                 "antistereo_score": paper.antistereo if paper else None}
    overview = [(name, s.get(n), s.get(key), CI(*(ints.get(key) or (None, None))),
                 PValue((tests.get(key) or {}).get("binomial_p")), published[key])
                for name, key, n in (("metric", "metric_score", "n"), ("stereo", "stereo_score", "n_stereo"),
                                     ("anti-stereo", "antistereo_score", "n_antistereo"))]
    overview.append(("ties (neutral)", s.get("neutral"), s.get("neutral_percent"), CI(None, None),
                     PValue(None), None))
    cats = [(c, v.get("n"), v.get("score"), CI(*(v.get("ci") or (None, None))), PValue(v.get("binomial_p")),
             paper.by_category.get(c) if paper else None)
            for c, v in sorted((s.get("by_category") or {}).items())]
    columns = ("n", "score", "95% CI", "p (binomial vs 50)")
    if paper is None:  # no published setting matches like for like: no column (notices say why)
        overview, cats = [r[:-1] for r in overview], [r[:-1] for r in cats]
    else:
        columns += (f"paper ({paper.source}, {paper.model})",)
    note = f" Paper note: {paper.note}." if paper and paper.note else ""
    return [Table("CrowS-Pairs scores", ("", *columns), tuple(overview),
                  "Wilson intervals; 50 = no preference; ties count in n for the metric score and in "
                  "neither stereo nor anti-stereo." + note),
            Table("By bias category", ("category", *columns), tuple(cats)),
            _crows_examples(run)]


def _crows_examples(run: RunView) -> Table:
    scored = [r for r in run.records
              if r.get("sent_more_score") is not None and r.get("sent_less_score") is not None]
    scored.sort(key=lambda r: -abs(r["sent_more_score"] - r["sent_less_score"]))
    rows = tuple((r["id"], r["bias_type"], r["direction"], r["sent_more"], r["sent_less"],
                  r["sent_more_score"] - r["sent_less_score"], r["outcome"]) for r in scored[:N_EXAMPLES])
    return Table("Pairs with the largest score gap",
                 ("id", "category", "direction", "sent_more", "sent_less", "Δ score", "preferred"), rows,
                 "Δ = score(sent_more) − score(sent_less), log-probability units.")


# -- Census ---------------------------------------------------------------------------------
def census_tables(run: RunView) -> list[Table]:
    s = run.summary
    by, ints = s.get("descriptive_by_class") or {}, s.get("intervals") or {}
    conf = ints.get("confidence")
    table34 = (
        (run.label, s.get("normative"), s.get("descriptive"), by.get("balanced"), by.get("female"),
         by.get("male")),
        (f"{100 * conf:.0f}% CI" if conf else "CI", CI(*(ints.get("normative") or (None, None))),
         CI(*(ints.get("descriptive") or (None, None))), None, None, None),
    )
    corr = (f"Pearson {_num(s.get('pearson'), 3)}, Spearman {_num(s.get('spearman'), 3)}; "
            f"{s.get('n_occupations')} occupations; aggregation {s.get('aggregation')}, "
            f"normalisation {s.get('normalisation')}")
    classes = ("female", "balanced", "male")
    confusion = tuple((f"census {c}",) + tuple(sum(r["census_class"] == c and r["model_class"] == m
                                                    for r in run.records) for m in classes) for c in classes)
    scored = [r for r in run.records if r["model_female_pct"] is not None]
    worst = sorted(scored, key=lambda r: -abs(r["model_female_pct"] - r["census_female_pct"]))
    rows = tuple((r["occupation"], r["census_female_pct"], r["census_class"], r["model_female_pct"],
                  r["model_class"]) for r in worst[:N_EXAMPLES])
    return [Table("Normative and descriptive scores (Touileb et al. 2023, Tables 3 and 4)",
                  ("model", "normative", "descriptive", "neutral", "female", "male"), table34,
                  "Neutral, female and male split the descriptive score; each is a share of all "
                  "occupations. " + corr),
            Table("Census class × model class (occupations)", ("", *(f"model {m}" for m in classes)),
                  confusion, "Classes: female > 55 %, male < 45 %, balanced otherwise."),
            Table("Occupations farthest from the census", ("occupation", "census % women", "census class",
                                                          "model % female", "model class"), rows)]


def _num(value: Any, digits: int) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


# -- zh-neutral -------------------------------------------------------------------------------
def zh_tables(run: RunView) -> list[Table]:
    from .zh import zh_overview

    z = zh_overview(run)
    pct = {k: 100.0 * v / z.n if z.n else None for k, v in z.leaning.items()}
    overview = ((z.n, z.bias_score, CI(*((run.summary.get("intervals") or {}).get("bias_score") or (None, None))),
                 z.leaning["male"], pct["male"], z.leaning["neutral"], pct["neutral"], z.leaning["female"],
                 pct["female"]),)
    pairs = tuple((p.pair, p.n, p.mean_b, p.mean_abs_b, CI(*p.ci), p.counts["male"], p.counts["neutral"],
                   p.counts["female"]) for p in z.pairs)
    topics = tuple((k, ", ".join(w if s is None else f"{w} ({s:.3g})" for w, s in words[:15]))
                   for k, words in z.topics.items())
    tables = [Table("zh-neutral score (Zhao et al. 2021)", ("n", "mean |b|", "95% CI", "male", "male %",
                                                           "neutral", "neutral %", "female", "female %"),
                    overview, f"b = log P(m|s)/P(f|s), log base {z.log_base}; leaning male if "
                    f"b > {z.threshold:g}, female if b < −{z.threshold:g}."),
              Table("By keyword pair", ("pair", "n", "mean b", "mean |b|", "95% CI", "male", "neutral", "female"),
                    pairs)]
    if topics:
        tables.append(Table("Topic words of the leaning subsets", ("leaning", "words"), topics))
    ordered = sorted((r for r in run.records if r.get("b") is not None), key=lambda r: r["b"])
    extreme = (ordered[::-1] if len(ordered) <= N_EXAMPLES
               else ordered[-N_EXAMPLES // 2:][::-1] + ordered[: N_EXAMPLES // 2])
    tables.append(Table("Sentences leaning most", ("id", "sentence", "keyword", "pair", "b", "leaning"),
                        tuple((r["id"], r["sentence"], r.get("keyword"), r["pair"], r["b"], r["leaning"])
                              for r in extreme)))
    return tables


# -- dispatch -----------------------------------------------------------------------------------
def run_notices(run: RunView) -> tuple[str, ...]:
    """Sentences the reader must not miss: why a paper that reports this model is not beside it.

    Silent when no paper reports the run's dataset and model, or when the run is comparable.
    """
    check = paper_check(run)
    return (check.sentence(),) if check is not None and not check.comparable else ()


def run_tables(run: RunView) -> list[Table]:
    builders = {"crows-pairs": crows_tables, "census": census_tables, "zh-neutral": zh_tables}
    tables = builders[run.benchmark](run) if run.benchmark in builders else [_generic(run)]
    reasons = run.skip_reasons()
    if reasons:
        tables.append(Table("Skipped items", ("reason", "items"), tuple(reasons.most_common())))
    return tables


def _generic(run: RunView) -> Table:
    rows = tuple((k, v) for k, v in run.summary.items() if isinstance(v, (int, float, str)) and k != "benchmark")
    return Table(f"{run.benchmark} summary", ("field", "value"), rows)


def run_plots(run: RunView) -> list[Plot]:
    """The run's figures; call inside :func:`biasatlas.report.plots.style`."""
    from . import plots

    if run.benchmark == "crows-pairs":
        return [plots.crows_categories(run, comparable_paper(run))]
    if run.benchmark == "census":
        return [plots.census_scatter(run)]
    if run.benchmark == "zh-neutral":
        from .zh import zh_overview

        z = zh_overview(run)
        return [plots.zh_histogram(run, z), plots.zh_pairs(run, z)]
    return []


def provenance(run: RunView) -> Provenance:
    """Model, revision or file hashes, data sha256, versions, variant, settings."""
    prov, scorer = run.provenance, run.provenance.get("scorer") or {}
    facts: list[tuple[str, str]] = [("run folder", str(run.path)), ("benchmark",
                                     f"{run.benchmark} v{run.summary.get('benchmark_version', '?')}"),
                                    ("dataset", run.dataset), ("data sha256", str(run.data_sha256 or "–")),
                                    ("model", run.model), ("variant", str(run.variant or "–"))]
    facts += [(label, _setting_text(key, value)) for (key, label), value in _present_settings(run)]
    if run.benchmark_config.get("sample") is not None and "seed" in run.benchmark_config:
        facts.append(("sample seed", str(run.benchmark_config["seed"])))
    facts += [(f"scorer {k}", _short(v)) for k, v in scorer.items() if k not in ("model", "variant")]
    versions = ", ".join(f"{k} {prov[k]}" for k in ("biasatlas", "python", "torch", "transformers", "tokenizers")
                         if prov.get(k))
    facts.append(("versions", versions or "–"))
    for key in ("n_probes", "seconds_scoring"):
        if prov.get(key) is not None:
            facts.append((key.replace("_", " "), str(prov[key])))
    raw = json.dumps({"config": run.config, "provenance": prov}, indent=2, ensure_ascii=False, default=str)
    return Provenance(tuple(facts), raw)


def _present_settings(run: RunView) -> list[tuple[tuple[str, str], Any]]:
    bench = run.benchmark_config
    return [((key, label), bench[key]) for key, label in SETTINGS if key in bench]


def _setting_text(key: str, value: Any) -> str:
    """``limit: none (all items)`` reads better than a bare dash in a fact list."""
    if value is None:
        return "none (all items)" if key in ("limit", "sample") else "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _short(value: Any) -> str:
    if isinstance(value, Mapping):
        return ", ".join(f"{k}={_short(v)}" for k, v in value.items()) or "–"
    if isinstance(value, (list, tuple)):
        return ", ".join(_short(v) for v in value) or "–"
    return str(value)
