"""Agreement between measures: do two benchmarks (or two variants of one) rank the models alike?

Delobelle et al. (2022) found intrinsic bias measures disagree with one another; a suite's
report answers that question for its own runs. Each run's headline numbers (its benchmark's
declared :class:`~biasatlas.display.controls.Headline` s) are put on one "more biased is
larger" scale (:attr:`Headline.bias`: the value itself where higher is more biased, the distance
from the neutral value where either way is), one measure per benchmark, dataset and headline,
and per variant where one model ran several (:func:`measures`). For every two measures, over
the models both scored: Spearman's ρ and Kendall's τ-b (scipy), each with a 95 % percentile
interval from a seeded bootstrap over models (resampling models with replacement; a resample
whose ranks are all tied on one side has no correlation and is left out, counted in the note).
With fewer than :data:`MIN_MODELS` common models a rank correlation says nothing, and the row
says so instead of giving one.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..display.controls import Headline
from ..runs.view import RunView, model_name
from ..display.svg import Plot
from ..display.tables import CI, Table
from ..stats import check_resamples, check_seed

if TYPE_CHECKING:
    import numpy as np

#: Fewer common models than this give no rank correlation worth an interval.
MIN_MODELS = 3


@dataclass(frozen=True)
class Measure:
    """One headline of one benchmark setting, across models: model → bias (larger = more biased).
    ``repeated``: for a model given more than one run of it, every such run's folder in the order
    given; the last one's score is the model's (each agreement that uses it says so)."""

    name: str
    scores: Mapping[str, float]
    repeated: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class Agreement:
    """The rank agreement of two measures over their common models (None where too few)."""

    a: str
    b: str
    n_models: int
    spearman: float | None = None
    spearman_ci: tuple[float | None, float | None] = (None, None)
    kendall: float | None = None
    kendall_ci: tuple[float | None, float | None] = (None, None)
    note: str = ""


def _dataset(run: RunView) -> str:
    """The run's dataset as a measure names it: a file by its name (StereoSet records the path)."""
    return Path(run.dataset).name if "/" in run.dataset or "\\" in run.dataset else run.dataset


def _settings(run: RunView) -> tuple[str, ...]:
    """The run's benchmark settings that follow a model's name (CrowS-Pairs' variant)."""
    return tuple(str(v) for k in run.label_keys if (v := run.summary.get(k)) not in (None, "", "default"))


def model_of(run: RunView) -> str:
    """The model a run measured, as the agreement table names it: its given label, else its model."""
    return str(run.summary.get("label") or model_name(run.model))


def measures(runs: Sequence[RunView], headlines: Mapping[int, Sequence[Headline]]) -> list[Measure]:
    """One measure per (benchmark, dataset, headline), in the order the runs give them, split by the
    runs' settings (CrowS-Pairs' variant) only where one model has runs under several: a masked and a
    causal model score CrowS-Pairs under different default variants and still belong to one measure.
    ``headlines`` maps each run's index in ``runs`` to its headlines."""
    entries = [(f"{run.benchmark} {h.label}" + (f" ({_dataset(run)})" if run.dataset else ""), _settings(run),
                model_of(run), h.bias, str(run.path))
               for i, run in enumerate(runs) for h in headlines.get(i, ()) if h.bias is not None]
    split = {name for name, _, model, _, _ in entries
             if len({s for n, s, m, _, _ in entries if (n, m) == (name, model)}) > 1}
    found: dict[str, dict[str, float]] = {}
    folders: dict[str, dict[str, list[str]]] = {}
    for name, settings, model, bias, folder in entries:
        key = f"{name} [{', '.join(settings)}]" if name in split and settings else name
        found.setdefault(key, {})[model] = bias  # a later run of the model replaces an earlier one
        folders.setdefault(key, {}).setdefault(model, []).append(folder)
    return [Measure(name, scores, {m: tuple(f) for m, f in folders[name].items() if len(f) > 1})
            for name, scores in found.items()]


# -- rank correlations, vectorised over bootstrap resamples ------------------------------------------
def spearman_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman's ρ of each row pair: Pearson's r of the average ranks (scipy's definition);
    NaN for a row whose ranks are all tied."""
    import numpy as np
    from scipy.stats import rankdata

    rx, ry = rankdata(x, axis=1), rankdata(y, axis=1)
    rx, ry = rx - rx.mean(axis=1, keepdims=True), ry - ry.mean(axis=1, keepdims=True)
    denominator = np.sqrt((rx ** 2).sum(axis=1) * (ry ** 2).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return (rx * ry).sum(axis=1) / denominator


def kendall_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall's τ-b of each row pair: Σ sign(xᵢ−xⱼ)·sign(yᵢ−yⱼ) over i < j, divided by the square
    root of the untied pairs of each side (Kendall 1945; scipy's default variant); NaN when all tied."""
    import numpy as np

    i, j = np.triu_indices(x.shape[1], k=1)
    sx, sy = np.sign(x[:, i] - x[:, j]), np.sign(y[:, i] - y[:, j])
    denominator = np.sqrt((sx ** 2).sum(axis=1) * (sy ** 2).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return (sx * sy).sum(axis=1) / denominator


def _interval(values: np.ndarray) -> tuple[float | None, float | None]:
    import numpy as np

    kept = values[np.isfinite(values)]
    if not len(kept):
        return None, None
    low, high = np.percentile(kept, [2.5, 97.5])
    return float(low), float(high)


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def agree(a: Measure, b: Measure, *, n_resamples: int = 2000, seed: int = 0) -> Agreement:
    """Spearman's ρ and Kendall's τ-b of ``a`` and ``b`` over their common models, with bootstrap intervals."""
    import numpy as np
    from scipy.stats import kendalltau, spearmanr

    common = [m for m in a.scores if m in b.scores]
    repeated = _repeated(a, b, common)
    if len(common) < MIN_MODELS:
        return Agreement(a.name, b.name, len(common), note=_notes(f"{len(common)} common model(s): too few to rank "
                                                                  f"(a rank correlation needs at least {MIN_MODELS})",
                                                                  repeated))
    x, y = np.array([a.scores[m] for m in common]), np.array([b.scores[m] for m in common])
    with warnings.catch_warnings():  # all models alike on one side: scipy warns and gives NaN, said in the note
        warnings.simplefilter("ignore")
        rho, tau = float(spearmanr(x, y).statistic), float(kendalltau(x, y).statistic)
    picks = np.random.default_rng(check_seed(seed)).integers(0, len(common),
                                                               size=(check_resamples(n_resamples), len(common)))
    rhos, taus = spearman_rows(x[picks], y[picks]), kendall_rows(x[picks], y[picks])
    left_out = int(np.sum(~np.isfinite(rhos)))
    note = f"{left_out} of {n_resamples} resamples all tied on one side, left out" if left_out else ""
    if not math.isfinite(rho):
        note = "every model scores alike on one side: no ranking to correlate"
    return Agreement(a.name, b.name, len(common), _finite(rho), _interval(rhos), _finite(tau), _interval(taus),
                     _notes(note, repeated))


def _repeated(a: Measure, b: Measure, common: Sequence[str]) -> list[str]:
    """A sentence per common model given more than one run of ``a`` or ``b``: which run counts."""
    return [f"{model}: {len(runs)} runs of {m.name} ({', '.join(runs)}), the last given ({runs[-1]}) used"
            for m in (a, b) for model in common if (runs := m.repeated.get(model))]


def _notes(note: str, repeated: Sequence[str]) -> str:
    return "; ".join(n for n in (note, *repeated) if n)


def agreements(found: Sequence[Measure], *, n_resamples: int = 2000, seed: int = 0) -> list[Agreement]:
    """Every two measures that share a model, in the order found (:func:`unmatched` lists the rest:
    a row per pair of, say, two benchmarks run on disjoint models would say nothing, many times)."""
    return [agree(a, b, n_resamples=n_resamples, seed=seed) for a, b in combinations(found, 2)
            if any(m in b.scores for m in a.scores)]


def unmatched(found: Sequence[Measure]) -> tuple[tuple[str, str], ...]:
    """The pairs of measures no model has both of, in the order found (the table's caption counts them)."""
    return tuple((a.name, b.name) for a, b in combinations(found, 2) if not any(m in b.scores for m in a.scores))


CAPTION = ("Rank agreement of models between measures (each benchmark's declared headline; 'more biased' is "
           "larger: the value where higher is more biased, else the distance from its neutral value). Spearman's "
           f"ρ and Kendall's τ-b over the models both measured, 95% intervals from a seeded bootstrap over models; "
           f"fewer than {MIN_MODELS} common models give no correlation.")


def agreement_table(rows: Sequence[Agreement], left_out: Sequence[tuple[str, str]] = ()) -> Table:
    """The agreements, a row each; the pairs with no common model (``left_out``) said once, in the caption."""
    cells = tuple((r.a, r.b, r.n_models, r.spearman, CI(*r.spearman_ci, digits=2), r.kendall,
                   CI(*r.kendall_ci, digits=2), r.note or "–") for r in rows)
    return Table("Agreement between measures", ("measure A", "measure B", "common models", "Spearman ρ", "95% CI",
                                                "Kendall τ", "95% CI", "note"), cells,
                 f"{CAPTION} {left_out_sentence(left_out)}".strip())


def left_out_sentence(left_out: Sequence[tuple[str, str]], shown: int = 3) -> str:
    """``"No common model, left out (2 pairs): A vs B; C vs D."`` (the first ``shown`` pairs, then how many more)."""
    if not left_out:
        return ""
    named = "; ".join(f"{a} vs {b}" for a, b in left_out[:shown])
    more = f"; and {len(left_out) - shown} more" if len(left_out) > shown else ""
    return f"No common model, left out ({len(left_out)} pair{'s' if len(left_out) > 1 else ''}): {named}{more}."


def agreement_plot(found: Sequence[Measure], rows: Sequence[Agreement]) -> Plot:
    """Spearman's ρ of every two measures as a matrix (blank where too few models)."""
    import numpy as np

    from ..display.style import fit, new_figure, short

    names = [m.name for m in found]
    grid = np.full((len(names), len(names)), np.nan)
    for r in rows:
        i, j = names.index(r.a), names.index(r.b)
        grid[i, j] = grid[j, i] = np.nan if r.spearman is None else r.spearman
    np.fill_diagonal(grid, 1.0)
    side = 1.2 + 0.6 * len(names)
    fig = new_figure(side + 2.5, side)
    ax = fig.add_subplot()
    edges = np.arange(len(names) + 1) - 0.5  # quads, not imshow: the page takes vector SVG only, no raster image
    ax.pcolormesh(edges, edges, np.ma.masked_invalid(grid), vmin=-1, vmax=1, cmap="RdBu")
    ax.invert_yaxis()
    ax.set_aspect("equal")
    shown = [short(n, 28) for n in names]
    ax.set_xticks(range(len(names)), shown, rotation=45, ha="right")
    ax.set_yticks(range(len(names)), shown)
    for (i, j), value in np.ndenumerate(grid):
        ink = "white" if abs(value) > 0.6 else "black"  # readable on the dark ends of the colour map
        ax.text(j, i, "–" if np.isnan(value) else f"{value:.2f}", ha="center", va="center", fontsize=8, color=ink)
    fit(fig)
    # no colour bar: matplotlib draws its gradient as a raster image, which the page does not take
    return Plot(fig, "Spearman's ρ between measures over common models (blue +1: same order, red −1: reversed; "
                     f"– : fewer than {MIN_MODELS} common models).")


def agreement_dict(r: Agreement) -> dict[str, Any]:
    return {"a": r.a, "b": r.b, "n_models": r.n_models, "spearman": r.spearman, "spearman_ci": list(r.spearman_ci),
            "kendall": r.kendall, "kendall_ci": list(r.kendall_ci), "note": r.note}
