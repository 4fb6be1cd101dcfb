"""Sensitivity runs on packaged models: the numbers of docs/sensitivity.md.

For each model and each (benchmark, options, kind) below, one ``--sensitivity`` run (the same as
``biasatlas run NAME ... --sensitivity KIND --out OUT/<model>/<name>-<kind>``), through one score
cache; then one Markdown table of every headline's spread and each perturbation's flip share,
and the ranking stability over the models (Kendall's τ).

    .venv/bin/python scripts/sensitivity_measure.py --out /tmp/sensitivity
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from biasatlas.cache import ScoreCache, default_cache_path
from biasatlas.request import ModelOptions, RunRequest
from biasatlas.sensitivity import ranking_stability, read, run

#: (folder name, benchmark, options, kinds): seeded samples small enough for two CPU cores.
RUNS: tuple[tuple[str, str, dict[str, object], tuple[str, ...]], ...] = (
    ("crows-en", "crows-pairs", {"dataset": "en", "sample": 100}, ("preambles", "rules")),
    ("stereoset-dev", "stereoset", {"split": "dev", "sample": 100}, ("preambles", "rules")),
    ("bbq-en", "bbq", {"dataset": "en", "sample": 150}, ("preambles", "rules", "orders")),
    ("census-no", "census", {"country": "no", "sample": 8}, ("preambles", "rules")),
    ("census-us", "census", {"country": "us", "sample": 8}, ("preambles", "rules")),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["gemma-3-270m", "smollm2-135m"])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--only", nargs="*", default=None, help="folder names of RUNS to run (default: all)")
    args = parser.parse_args()
    cache = ScoreCache(default_cache_path())
    folders = []
    for model in args.models:
        for name, bench, options, kinds in RUNS:
            if args.only and name not in args.only:
                continue
            for kind in kinds:
                folder = args.out / model / f"{name}-{kind}"
                start = time.perf_counter()
                run(RunRequest(bench, options, ModelOptions(model=model)), kind, out=folder, cache=cache,
                    progress=False)
                print(f"{model} {name} {kind}: {time.perf_counter() - start:.0f} s", flush=True)
                folders.append(folder)
    cache.close()
    results = [read(f) for f in folders]
    print("\n| model | run | kind | perturbation | headline | value | range over the kind | flips |")
    print("|---|---|---|---|---|---|---|---|")
    for folder, r in zip(folders, results, strict=True):
        for e in r["runs"]:
            for h, v in e["headlines"].items():
                f = e["flips"]
                flips = "–" if f is None else f"{f['flipped']}/{f['n']} ({100 * f['share']:.1f} %)"
                value = "–" if v["value"] is None else f"{v['value']:.2f}"
                rng = r["spread"][h]["range"]
                print(f"| {r['label']} | {folder.name.rsplit('-', 1)[0]} | {r['kind']} | {e['name']} | {h} | {value} "
                      f"| {'–' if rng is None else f'{rng:.2f}'} | {flips} |")
    print("\n| benchmark | kind | perturbation | headline | τ | values (unperturbed → perturbed) |")
    print("|---|---|---|---|---|---|")
    for row in ranking_stability(results):
        tau = "–" if row["tau"] is None else f"{row['tau']:+.0f}"
        values = "; ".join(f"{m} {a:.2f} → {b:.2f}" for m, (a, b) in row["models"].items())
        print(f"| {row['benchmark']} | {row['kind']} | {row['perturbation']} | {row['headline']} | {tau} | {values} |")


if __name__ == "__main__":
    main()
