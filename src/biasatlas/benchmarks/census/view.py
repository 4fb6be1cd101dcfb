"""What the terminal and the report show of a census run (Touileb, Øvrelid & Velldal 2023).

- Tables: the normative and descriptive scores in the layout of the paper's Tables 3 and
  4 (the descriptive score split into balanced, female and male occupations, each a share
  of all occupations) with bootstrap intervals, the census class × model class grid, and
  the occupations farthest from the census. One spelling per class everywhere: "balanced"
  (the paper's Table 4 calls the column "neutral").
- Plot: census share of women vs the model's share, one point per occupation, the
  45–55 % balanced bands shaded on both axes, so the diagonal cells of the 3×3 grid are
  the occupations the model classes like the census. The occupations farthest from the
  diagonal are labelled where a label fits inside the plot without overlapping another
  (:mod:`biasatlas.display.labels`); every point has its numbers as a tooltip.
- Paired test: a paired bootstrap over occupations (the same resampled occupations for
  both models) on the normative and descriptive scores, the mean model share, and the
  three per-class descriptive shares (Holm across the classes).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ...display.paired import Paired, bootstrap_test, pair_items, with_holm
from ...runs.view import RunView
from ...display.cite import Reference
from ...display.labels import place_labels
from ...display.style import (DATASET_WIDTH, FEMALE, INK, LABEL_WIDTH, MALE, NEUTRAL, NOTE_WIDTH, fit,
                              legend_below, new_figure, short, tip, title)
from ...display.svg import Plot
from ...display.direction import HIGHER, LOWER, NEITHER
from ...display.tables import CI, N_EXAMPLES, Metric, Table, fragile_note, leaderboard_table
from ..base import BenchmarkView, PairedMethod
from .controls import headlines
from .summary import CensusRunSummary, census_summary

CLASS_COLOURS = {"female": FEMALE, "male": MALE, "balanced": NEUTRAL}
CLASSES = ("female", "balanced", "male")


# -- tables ---------------------------------------------------------------------------------------
def census_tables(run: RunView) -> list[Table]:
    s, raw = census_summary(run), run.summary
    by, conf = s.descriptive_by_class, s.confidence
    table34 = (
        (run.label, s.normative, s.descriptive, by.get("balanced"), by.get("female"), by.get("male")),
        (f"{100 * conf:.0f}% CI" if conf else "CI", CI(*s.interval("normative")), CI(*s.interval("descriptive")),
         None, None, None),
    )
    corr = (f"Pearson {_correlation(s.pearson, s.pearson_p)}, Spearman {_correlation(s.spearman, s.spearman_p)}; "
            f"{s.n_occupations} occupations; aggregation {raw.get('aggregation')}, "
            f"normalisation {raw.get('normalisation')}.")
    corr = " ".join((corr, *_facts(s)))
    fragile = fragile_note(raw, s.n_occupations, "occupations", "the class")
    confusion = tuple((f"census {c}",) + tuple(sum(r["census_class"] == c and r["model_class"] == m
                                                    for r in run.records) for m in CLASSES) for c in CLASSES)
    scored = [r for r in run.records if r["model_female_pct"] is not None]
    worst = sorted(scored, key=lambda r: -abs(r["model_female_pct"] - r["census_female_pct"]))
    rows = tuple((r["occupation"], r["census_female_pct"], r["census_class"], r["model_female_pct"],
                  r["model_class"]) for r in worst[:N_EXAMPLES])
    return [Table("Normative and descriptive scores (Touileb et al. 2023, Tables 3 and 4)",
                  ("model", "normative", "descriptive", "balanced", "female", "male"), table34,
                  "Balanced (the paper's \"neutral\"), female and male split the descriptive score; each is "
                  "a share of all occupations. " + corr + fragile),
            Table("Census class × model class (occupations)", ("", *(f"model {m}" for m in CLASSES)),
                  confusion, "Classes: female > 55 %, male < 45 %, balanced otherwise."),
            Table("Occupations farthest from the census", ("occupation", "census % women", "census class",
                                                          "model % female", "model class"), rows)]


def _num(value: Any, digits: int) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _correlation(r: float | None, p: float | None) -> str:
    return _num(r, 3) + ("" if r is None or p is None else f" (p = {p:.2g})")


def _facts(s: CensusRunSummary) -> list[str]:
    """The caption's sentences on what the scores count and how they were read: the class
    counts the split reads against, the multi-token policy, the work, and a GeBNLP 2022 run's
    binary agreement (the terminal caption of earlier versions; the report shows them too)."""
    def counts(c: Mapping[str, float]) -> str:
        return "/".join(f"{c.get(k, 0):.0f}" for k in ("female", "male", "balanced"))

    out = []
    if s.census_counts or s.model_counts:
        out.append(f"Occupations per class (female/male/balanced): census {counts(s.census_counts)}, "
                   f"model {counts(s.model_counts)}.")
    read = [f"identifiers {s.identifiers}"] if s.identifiers else []
    if s.multi_token.policy:
        split = s.multi_token.n_identifiers or 0
        read.append(f"multi-token policy {s.multi_token.policy}, {split} identifier{'' if split == 1 else 's'} "
                    "split into several tokens")
    # n_forward_passes counts rows (model inputs), what the run's start line calls rows
    work = [f"{n:,} {what}" for n, what in ((s.n_probes, "sentences"), (s.n_contexts, "contexts"),
                                             (s.n_forward_passes, "rows (model inputs) scored")) if n is not None]
    out += [f"{part[0][:1].upper()}{'; '.join(part)[1:]}." for part in (read, work) if part]
    if s.binary_agreement is not None:
        out.append(f"GeBNLP 2022 binary agreement (F > M vs census > 50 %): {s.binary_agreement:.1f} %, "
                   f"template set {s.template_set}.")
    return out


def census_leaderboard(runs: Sequence[RunView]) -> Table:
    def key(r: RunView) -> tuple[str, float]:
        return r.dataset, -(census_summary(r).descriptive or 0)

    rows = []
    for r in sorted(runs, key=key):
        s = census_summary(r)
        by = s.descriptive_by_class
        rows.append((r, (r.label, r.dataset, s.n_occupations, s.normative, CI(*s.interval("normative")),
                         s.descriptive, CI(*s.interval("descriptive")), by.get("balanced"), by.get("female"),
                         by.get("male"))))
    return leaderboard_table("Census leaderboard (Touileb et al. 2023, Tables 3 and 4)",
                             ("model", "census", "n", "normative", "95% CI", "descriptive", "95% CI", "balanced",
                              "female", "male"), rows, runs,
                             "n = occupations scored. Balanced/female/male split the descriptive score (shares "
                             "of all occupations; the paper's Table 4 says \"neutral\" for balanced). Sorted by "
                             "descriptive score within each census.", warnings=census_notices)


def census_notices(run: RunView) -> tuple[str, ...]:
    """Each WARNING the run printed, with whether this run needs action (issue: a warning that
    reaches the terminal only is lost on every reader of the report).

    The occupation-free baseline tilts the likelihood readings' identifier priors: the joint
    reading's shares carry the tilt, the conditional reading (the default) divides it out.
    """
    s = census_summary(run)
    if s.causal_reading == "conditional":
        action = ("No action needed for this run: its conditional reading, log P(occupation | identifier + "
                  "predicate), divides this prior out; it affects --causal-reading joint runs.")
    elif s.causal_reading == "joint":
        action = ("Interpret with care: this run's joint reading carries the prior into every occupation's "
                  "share; the default --causal-reading conditional divides it out.")
    else:
        action = "Interpret with care: the run does not record which reading its shares come from."
    return tuple(f"Warning: {w[:1].upper()}{w[1:]}. {action}" for w in s.warnings)


def census_metrics(run: RunView) -> list[Metric]:
    s = census_summary(run)
    n = s.n_occupations
    out = [Metric(k, value, *s.interval(k), n) for k, value in (("normative", s.normative),
                                                               ("descriptive", s.descriptive))]
    out += [Metric(f"descriptive:{c}", v, n=n, label=f"descriptive: {c}") for c, v in s.descriptive_by_class.items()]
    out += [Metric(k, value, n=n, label=k.capitalize()) for k, value in (("pearson", s.pearson),
                                                                         ("spearman", s.spearman))]
    return out


# -- plot -------------------------------------------------------------------------------------------
def census_plots(run: RunView) -> list[Plot]:
    return [census_scatter(run)]


def census_scatter(run: RunView, n_labels: int = 8) -> Plot:
    """Census share of women vs the model's share, per occupation, 45/55 bands shaded."""
    items = [r for r in run.records if r.get("model_female_pct") is not None]
    fig = new_figure(6.0, 5.6)
    ax = fig.add_subplot()
    for span in (ax.axvspan, ax.axhspan):
        span(45, 55, color=NEUTRAL, alpha=0.18, lw=0, gid="band")
    ax.plot([0, 100], [0, 100], color=INK, lw=0.8, ls=":", gid="diagonal")
    tips: dict[str, Any] = {}
    for cls, colour in CLASS_COLOURS.items():
        group = [r for r in items if r["census_class"] == cls]
        if not group:
            continue
        ax.scatter([r["census_female_pct"] for r in group], [r["model_female_pct"] for r in group],
                   s=16, color=colour, alpha=0.8, edgecolor="white", linewidth=0.4,
                   label=f"census {cls} ({len(group)})", gid=f"points-{cls}")
        tips[f"points-{cls}"] = [_occupation_tip(r) for r in group]
    ax.set(xlim=(0, 100), ylim=(0, 100), xlabel="census: % women in the occupation",
           ylabel="model: female share p(O) (%)", aspect="equal")
    title(ax, f"Census vs model · {short(run.label, LABEL_WIDTH)} · {short(run.dataset, DATASET_WIDTH)}",
          f"Census vs model · {run.label} · {run.dataset}", tips)
    legend_below(ax, 34)
    ax.patch.set_gid("plot-area")  # the box labels stay inside (the browser test checks it)
    fit(fig)
    _label_points(ax, items, n_labels, tips)
    return Plot(fig, f"Census share of women vs model share per occupation for {run.label}; labelled: the "
                "occupations farthest from the diagonal, where a label fits without overlapping", tips)


def _label_points(ax: Any, items: Sequence[Mapping[str, Any]], n_labels: int, tips: dict[str, Any]) -> None:
    """Name the occupations farthest from the diagonal where a label fits (after :func:`fit`)."""
    from matplotlib.patheffects import withStroke

    chosen = _most_off(items, n_labels)
    names = [short(r["occupation"], NOTE_WIDTH) for r in chosen]
    notes = place_labels(ax, [(name, r["census_female_pct"], r["model_female_pct"]) for name, r in zip(names, chosen)],
                         [(r["census_female_pct"], r["model_female_pct"]) for r in items], color=INK,
                         path_effects=[withStroke(linewidth=2.5, foreground="white")])  # legible over a point
    for i, (note, name, r) in enumerate(zip(notes, names, chosen)):
        if note is not None:
            note.set_gid(f"occupation-{i}")
            tip(note, f"occupation-{i}", name, r["occupation"], tips)


def _occupation_tip(r: Mapping[str, Any]) -> str:
    return (f"{r['occupation']}: census {r['census_female_pct']:.1f}% ({r['census_class']}), "
            f"model {r['model_female_pct']:.1f}% ({r['model_class']})")


def _most_off(items: Sequence[Mapping[str, Any]], n: int, spacing: float = 10.0) -> list[Mapping[str, Any]]:
    """The occupations farthest from the diagonal, worth a printed label; greedy, skipping
    any point within ``spacing`` points (both axes) of one already labelled, so labels do
    not pile up on one cluster."""
    chosen: list[Mapping[str, Any]] = []
    for r in sorted(items, key=lambda r: -abs(r["model_female_pct"] - r["census_female_pct"])):
        if len(chosen) == n:
            break
        if all(abs(r["census_female_pct"] - c["census_female_pct"]) > spacing
               or abs(r["model_female_pct"] - c["model_female_pct"]) > spacing for c in chosen):
            chosen.append(r)
    return chosen


# -- paired test ------------------------------------------------------------------------------------
def census_compare(a: RunView, b: RunView, *, n_resamples: int = 2000, seed: int = 0) -> Paired:
    """Paired bootstrap over occupations; p is the share of resampled differences at least as
    far from the observed one as the observed one is from 0, with the usual +1 correction."""
    ra, rb, only_a, only_b = pair_items(a, b, "occupation")
    census = np.array([r["census_class"] for r in ra])
    ca, cb = np.array([r["model_class"] for r in ra]), np.array([r["model_class"] for r in rb])
    # Each score is a mean over occupations of a per-occupation value (×100), so the paired
    # bootstrap resamples the per-occupation differences of that value.
    per_item = {"normative": (ca == "balanced", cb == "balanced"),
                "descriptive": (ca == census, cb == census),
                "mean model share": (np.array([r["model_female_pct"] for r in ra]) / 100,
                                     np.array([r["model_female_pct"] for r in rb]) / 100)}
    for cls in ("female", "male", "balanced"):
        per_item[f"descriptive: {cls}"] = ((ca == cls) & (census == cls), (cb == cls) & (census == cls))
    tests = []
    for name, (va, vb) in per_item.items():
        va, vb = 100.0 * va.astype(float), 100.0 * vb.astype(float)
        scope = name.split(": ")[1] if ": " in name else "all occupations"
        tests.append(bootstrap_test(scope, name.split(":")[0], va, vb, n_resamples, seed))
    return Paired(with_holm(tests, lambda t: t.scope != "all occupations"), len(ra), only_a, only_b)


# -- references --------------------------------------------------------------------------------------
#: The paper (EACL 2023): title, authors and venue as in docs/benchmarks/census.md and the paper's text,
#: pages and DOI from its ACL Anthology record.
TOUILEB_2023 = Reference("touileb-etal-2023-measuring", "inproceedings", (
    ("title", "Measuring Normative and Descriptive Biases in Language Models Using Census Data"),
    ("author", "Touileb, Samia and {\\O}vrelid, Lilja and Velldal, Erik"),
    ("booktitle", "Proceedings of the 17th Conference of the European Chapter of the Association for "
                  "Computational Linguistics"),
    ("year", "2023"), ("address", "Dubrovnik, Croatia"), ("publisher", "Association for Computational Linguistics"),
    ("pages", "2242--2248"), ("doi", "10.18653/v1/2023.eacl-main.164")))
#: Its predecessor (GeBNLP 2022), whose method ``gebnlp2022`` reproduces: as the 2023 paper cites it.
TOUILEB_2022 = Reference("touileb-etal-2022-occupational", "inproceedings", (
    ("title", "Occupational Biases in {N}orwegian and Multilingual Language Models"),
    ("author", "Touileb, Samia and {\\O}vrelid, Lilja and Velldal, Erik"),
    ("booktitle", "Proceedings of the 4th Workshop on Gender Bias in Natural Language Processing (GeBNLP)"),
    ("year", "2022"), ("address", "Seattle, Washington"), ("publisher", "Association for Computational Linguistics"),
    ("pages", "200--211")))


#: Bartl, Nissim & Gatt (GeBNLP 2020): BEC-Pro, its German and US professions, and the method ``bartl2020``.
BARTL_2020 = Reference("bartl-etal-2020-unmasking", "inproceedings", (
    ("title", "Unmasking Contextual Stereotypes: Measuring and Mitigating {BERT}'s Gender Bias"),
    ("author", "Bartl, Marion and Nissim, Malvina and Gatt, Albert"),
    ("booktitle", "Proceedings of the Second Workshop on Gender Bias in Natural Language Processing"),
    ("year", "2020"), ("address", "Barcelona, Spain (Online)"),
    ("publisher", "Association for Computational Linguistics"), ("pages", "1--16")))
#: Kurita et al. (GeBNLP 2019): the association score that ``bartl2020`` computes.
KURITA_2019 = Reference("kurita-etal-2019-measuring", "inproceedings", (
    ("title", "Measuring Bias in Contextualized Word Representations"),
    ("author", "Kurita, Keita and Vyas, Nidhi and Pareek, Ayush and Black, Alan W. and Tsvetkov, Yulia"),
    ("booktitle", "Proceedings of the First Workshop on Gender Bias in Natural Language Processing"),
    ("year", "2019"), ("address", "Florence, Italy"), ("publisher", "Association for Computational Linguistics"),
    ("pages", "166--172"), ("doi", "10.18653/v1/W19-3823")))
#: The shipped tables that are BEC-Pro's (its German and its US professions).
BEC_PRO_COUNTRIES = ("de", "us-bec-pro")


def census_references(run: RunView) -> tuple[Reference, ...]:
    """The EACL 2023 paper; the GeBNLP 2022 one for a run of its method; BEC-Pro's paper for its
    tables and its method, with Kurita et al.'s for the association score that method computes."""
    method, country = run.summary.get("method"), run.summary.get("country")
    refs = [TOUILEB_2023]
    if method == "gebnlp2022":
        refs.append(TOUILEB_2022)
    if method == "bartl2020" or country in BEC_PRO_COUNTRIES:
        refs.append(BARTL_2020)
    if method == "bartl2020":
        refs.append(KURITA_2019)
    return tuple(refs)


#: Which way each metric reads (``higher_is_better``/``ideal`` in the CSV and JSON): the normative score is
#: the share of balanced occupations (higher is fairer); the descriptive score says how often the model puts
#: an occupation in the census's class, which is accuracy, not fairness (the paper reports both: neutral);
#: the correlations with the census shares are the headline's bias measure (higher: more biased).
DIRECTIONS_OF_METRICS = {"normative": HIGHER, "descriptive": NEITHER, "descriptive:": NEITHER, "pearson": LOWER,
                         "spearman": LOWER}

VIEW = BenchmarkView(tables=census_tables, leaderboard=census_leaderboard, metrics=census_metrics,
                     paired=PairedMethod(census_compare, "paired bootstrap on census shares"), plots=census_plots,
                     notices=census_notices, references=census_references,
                     headlines=headlines, directions=DIRECTIONS_OF_METRICS)
