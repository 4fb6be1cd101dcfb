"""What the terminal and the report show of a SEAT or WEAT run (May et al. 2019; Caliskan et al. 2017).

- Table: per test, the four sets (their categories and sizes after OOV words), d with its 95 %
  bootstrap interval, p (exact or sampled, with its Monte-Carlo error) and Holm's p.
- Plot: a forest plot of d with its interval per test, 0 marked (no association).
- Leaderboard and metrics: mean |d| over the tests (bias-bench's "SEAT (overall)" form) and the
  tests significant after Holm.
- Notices: the Delobelle et al. (2022) caveat, beside the numbers; and any OOV words.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...display.cite import Reference
from ...runs.view import RunView
from ...display.style import INK, fit, new_figure, short
from ...display.svg import Plot
from ...display.direction import LOWER
from ...display.tables import CI, Metric, PValue, Table, leaderboard_table
from ..base import BenchmarkView
from .controls import headlines
from .summary import NamedTestRow, SeatRunSummary

CAVEAT = ("Embedding association tests measure cosine geometry of one representation (its pooling named here); "
          "Delobelle et al. (2022) find such measures inconsistent with likelihood-based ones and with each other, "
          "so a large d here does not say how the model behaves when it generates or scores text.")
CAPTION = ("Caliskan et al.'s effect size d = (mean_X s − mean_Y s) / std_{X∪Y} s (sample std), s(w) = mean cos(w, A) "
           "− mean cos(w, B); interval: 95% percentile bootstrap resampling X, Y, A and B; p: one-sided permutation "
           "test (exact when C(|X|+|Y|, |X|) ≤ n_samples, else sampled, ± its Monte-Carlo error); Holm across the "
           "run's tests. Sizes are words with a vector (out-of-vocabulary words left out and counted).")
COLUMNS = ("test", "X / Y", "A / B", "|X|,|Y|,|A|,|B|", "OOV", "d", "d 95% CI", "p", "p method", "Holm p")


def _p_method(t: NamedTestRow) -> str:
    if t.p_method == "sampled" and t.p_mc_error is not None:
        return f"sampled ±{t.p_mc_error:.1g}"
    return t.p_method or "–"


def _row(t: NamedTestRow) -> tuple[Any, ...]:
    x, y, a, b = (c or "?" for c in t.categories)
    return (t.name, f"{x} / {y}", f"{a} / {b}", ",".join(str(n) for n in t.sizes), t.n_oov, t.d,
            CI(t.d_low, t.d_high, 2), PValue(t.p), _p_method(t), PValue(t.p_holm))


def tables(run: RunView) -> list[Table]:
    s = run.typed(SeatRunSummary)
    return [Table(f"{run.benchmark} · pooling {s.pooling or '–'}", COLUMNS, tuple(_row(t) for t in s.rows),
                  CAPTION + " " + CAVEAT)]


def forest(run: RunView) -> Plot:
    """d per test with its interval, 0 marked."""
    rows = [t for t in run.typed(SeatRunSummary).rows if t.d is not None]
    fig = new_figure(6.4, 0.3 * len(rows) + 1.2)
    ax = fig.add_subplot()
    y = np.arange(len(rows))
    d = np.array([t.d for t in rows], dtype=float)
    low = np.array([t.d_low if t.d_low is not None else t.d for t in rows], dtype=float)
    high = np.array([t.d_high if t.d_high is not None else t.d for t in rows], dtype=float)
    ax.errorbar(d, y, xerr=np.maximum([d - low, high - d], 0.0), fmt="o", color=INK, ecolor=INK, capsize=2, lw=1,
                gid="effects")
    ax.axvline(0, color=INK, lw=1, ls="--", gid="line-0")
    ax.set_yticks(y, [short(t.name, 36) for t in rows])
    ax.invert_yaxis()
    ax.set_xlabel("effect size d with 95% bootstrap interval (0 = no association)")
    tips = {"effects": [f"{t.name}: d {t.d:.2f} [{t.d_low}, {t.d_high}], p {PValue(t.p)}" for t in rows]}
    return Plot(fit(fig), f"Effect sizes per test with 95% intervals for {run.label}", tips)


def plots(run: RunView) -> list[Plot]:
    return [forest(run)] if any(t.d is not None for t in run.typed(SeatRunSummary).tests.values()) else []


def metrics(run: RunView) -> list[Metric]:
    s = run.typed(SeatRunSummary)
    return [Metric("mean_abs_d", s.mean_abs_d, n=s.n_scored, label="mean |d|"),
            Metric("n_significant", s.n_significant, n=s.n_scored, label="Holm p < 0.05")]


def leaderboard(runs: Sequence[RunView]) -> Table:
    rows = []
    for r in runs:
        s = r.typed(SeatRunSummary)
        rows.append((r, (r.label, s.pooling, s.n_scored, s.mean_abs_d, s.n_significant, s.n_oov)))
    return leaderboard_table("SEAT / WEAT", ("model", "pooling", "tests", "mean |d|", "Holm p < 0.05", "OOV"), rows,
                             runs, "Mean |d| over the tests scored (bias-bench's SEAT overall form). " + CAVEAT)


def notices(run: RunView) -> tuple[str, ...]:
    s = run.typed(SeatRunSummary)
    oov = (f"{s.n_oov:.0f} word(s) out of vocabulary, left out of their tests: {', '.join(s.oov_words[:12])}"
           + (" …" if len(s.oov_words) > 12 else "") + "." + _lowercase_hint(run, s.oov_words),) if s.n_oov else ()
    return (CAVEAT, *oov)


def _lowercase_hint(run: RunView, words: Sequence[str]) -> str:
    """For a WEAT run without ``--lowercase`` that lost capitalised words (names): the flag that looks
    them up lower-cased, as lower-case vectors (GloVe, the shipped word2vec subset) need."""
    if run.benchmark != "weat" or run.benchmark_config.get("lowercase") or not any(w != w.lower() for w in words):
        return ""
    return (" The vectors may be lower-case: rerun with --lowercase to look a missing word up lower-cased "
            "(recorded per word).")


def references(run: RunView) -> tuple[Reference, ...]:
    return (Reference("may2019measuring", "inproceedings", (
                ("author",
                 "May, Chandler and Wang, Alex and Bordia, Shikha and Bowman, Samuel R. and Rudinger, Rachel"),
                ("title", "On Measuring Social Biases in Sentence Encoders"), ("booktitle", "NAACL-HLT"),
                ("year", "2019"))),
            Reference("caliskan2017semantics", "article", (
                ("author", "Caliskan, Aylin and Bryson, Joanna J. and Narayanan, Arvind"),
                ("title", "Semantics derived automatically from language corpora contain human-like biases"),
                ("journal", "Science"), ("volume", "356"), ("number", "6334"), ("pages", "183--186"),
                ("year", "2017"))))


#: Which way each metric reads (``higher_is_better``/``ideal`` in the CSV and JSON): a smaller mean |d| and
#: fewer significant tests mean weaker associations.
DIRECTIONS_OF_METRICS = {"mean_abs_d": LOWER, "n_significant": LOWER}

VIEW = BenchmarkView(tables=tables, leaderboard=leaderboard, metrics=metrics, plots=plots,
                     notices=notices, references=references,
                     headlines=headlines, directions=DIRECTIONS_OF_METRICS)
