"""GEST across scale: the stereotype rate g_s of every model whose per-sentence predictions the
authors publish (Pikuliak et al., arXiv:2311.18711; ``kinit-sk/gest`` ``data/predictions/``), each
file scored by ``biasatlas.evaluate("gest", predictions=FILE, template=K)`` (the path ``biasatlas run
gest --predictions FILE --template K`` takes), beside the authors' own computation of g_s re-done
here from the same file (their ``_english_mlm.ipynb``: ``r_i = exp(mean)``, geometric means over
stereotypes 1–7 and 8–16); then the Pythia suite's g_s against log10 parameters, with Spearman's
rho and its p, and the figure docs/benchmarks/gest.md shows.

    PYTHONPATH=src BIASATLAS_DATA_DIR=../shared/data python scripts/gest_scale.py [--figure PATH]

Prints the Markdown tables of docs/published.md (GEST) and docs/benchmarks/gest.md ("Across
scale"); tests/benchmarks/gest/test_gest_published.py checks their rows.
"""

from __future__ import annotations

import argparse
import csv
import math
import os
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

import biasatlas

DATA = Path(os.environ.get("BIASATLAS_DATA_DIR", Path(__file__).resolve().parents[2] / "shared" / "data")) / "gest"
#: Parameter counts the authors print for their causal LMs (``_english_mlm.ipynb``, ``gmodels_str``).
PYTHIA_PARAMETERS = {"pythia-70m": 70426624, "pythia-160m": 162322944, "pythia-410m": 405334016,
                     "pythia-1b": 1011781632, "pythia-1.4b": 1414647808, "pythia-2.8b": 2775208960,
                     "pythia-6.9b": 6857302016, "pythia-12b": 11846072320}


def authors_g_s(path: Path) -> float:
    """g_s as the authors' notebook computes it, from the file and gest.csv (an independent reference)."""
    values = [float(line) for line in path.read_text().splitlines() if line.strip()]
    with (DATA / "gest.csv").open(newline="") as f:
        ids = [int(row["stereotype"]) for row in csv.DictReader(f)]
    r = {i: math.exp(float(np.mean([v for v, s in zip(values, ids) if s == i]))) for i in range(1, 17)}
    r_f = math.exp(np.mean([math.log(r[i]) for i in range(1, 8)]))
    r_m = math.exp(np.mean([math.log(r[i]) for i in range(8, 17)]))
    return r_m / r_f


def ours(path: Path) -> dict[str, float]:
    template = path.stem.rsplit("-", 1)[1]
    run = biasatlas.evaluate("gest", predictions=path, template=template, cache=False, progress=False, n_resamples=200)
    return run.summary_dict


def published_rows() -> list[str]:
    rows = []
    for family in ("english_mlm", "english_glm"):
        for path in sorted((DATA / "predictions" / family).glob("*_template-*.txt")):
            s = ours(path)
            model, template = path.stem.rsplit("_", 1)
            rows.append(f"| GEST {family.split('_')[1].upper()} | {model} | {template} | {authors_g_s(path):.4f} | "
                        f"{s['g_s']:.4f} [{s['intervals']['g_s'][0]:.3f}, {s['intervals']['g_s'][1]:.3f}] |")
    return rows


def scale() -> tuple[list[tuple[str, int, float]], float, float]:
    """(model, parameters, g_s mean of the two templates) per Pythia size; Spearman rho and p."""
    points = []
    for model, n in PYTHIA_PARAMETERS.items():
        g = [ours(DATA / "predictions" / "english_glm" / f"{model}_template-{k}.txt")["g_s"] for k in (0, 1)]
        points.append((model, n, float(np.mean(g))))
    rho, p = spearmanr([math.log10(n) for _, n, _ in points], [g for _, _, g in points])
    return points, float(rho), float(p)


def figure(points: list[tuple[str, int, float]], rho: float, p: float, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.0, 3.4))
    ax.plot([n for _, n, _ in points], [g for _, _, g in points], marker="o", color="#444")
    for model, n, g in points:
        ax.annotate(model.removeprefix("pythia-"), (n, g), textcoords="offset points", xytext=(4, -10), fontsize=7)
    ax.axhline(1.0, color="#999", lw=0.8, ls=":")
    ax.set(xscale="log", xlabel="parameters (log)", ylabel="g_s (mean of templates 0 and 1)",
           title=f"GEST across the Pythia suite (Spearman rho = {rho:.2f}, p = {p:.2g})")
    ax.title.set_fontsize(9)
    fig.tight_layout()
    fig.savefig(out, metadata={"Date": None})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--figure", type=Path, default=Path("docs/figures/gest-pythia-scale.svg"))
    args = parser.parse_args()
    print("| set | model | template | the authors' code | ours [95% CI] |\n|---|---|---|---|---|")
    print("\n".join(published_rows()))
    points, rho, p = scale()
    print("\n| model | parameters | g_s |\n|---|---|---|")
    print("\n".join(f"| {m} | {n:,} | {g:.4f} |" for m, n, g in points))
    print(f"\nSpearman rho (g_s, log10 parameters) = {rho:.4f}, p = {p:.4g}, n = {len(points)}")
    figure(points, rho, p, args.figure)


if __name__ == "__main__":
    main()
