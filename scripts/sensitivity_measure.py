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

#: (folder name, benchmark, options, kinds): seeded samples small enough for two CPU cores shared with
#: other work (BBQ's 40 examples, 120 options, took about as long as 100 CrowS-Pairs pairs).
RUNS: tuple[tuple[str, str, dict[str, object], tuple[str, ...]], ...] = (
    ("crows-en", "crows-pairs", {"dataset": "en", "sample": 100}, ("preambles", "rules")),
    ("stereoset-dev", "stereoset", {"split": "dev", "sample": 100}, ("preambles", "rules")),
    ("bbq-en", "bbq", {"dataset": "en", "sample": 40}, ("orders", "rules", "preambles")),
    ("census-no", "census", {"country": "no", "sample": 8}, ("preambles", "rules", "paraphrases")),
    ("census-us", "census", {"country": "us", "sample": 8}, ("preambles", "rules", "paraphrases")),
    ("winogender", "winogender", {}, ("paraphrases",)),  # all 720 sentences; the rewrite reaches 174
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["gemma-3-270m", "smollm2-135m"])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--only", nargs="*", default=None, help="folder names of RUNS to run (default: all)")
    parser.add_argument("--kinds", nargs="*", default=None, help="kinds to run (default: each run's own)")
    parser.add_argument("--tables", action="store_true", help="run nothing: tabulate the folders under --out")
    args = parser.parse_args()
    if args.tables:
        tabulate(sorted(args.out.glob("*/*/sensitivity.json")))
        return
    cache = ScoreCache(default_cache_path())
    folders = []
    for model in args.models:
        for name, bench, options, kinds in RUNS:
            if args.only and name not in args.only:
                continue
            for kind in (k for k in kinds if not args.kinds or k in args.kinds):
                folder = args.out / model / f"{name}-{kind}"
                start = time.perf_counter()
                run(RunRequest(bench, options, ModelOptions(model=model)), kind, out=folder, cache=cache,
                    progress=False)
                print(f"{model} {name} {kind}: {time.perf_counter() - start:.0f} s", flush=True)
                folders.append(folder)
    cache.close()
    tabulate([f / "sensitivity.json" for f in folders])


def tabulate(files: list[Path]) -> None:
    """Markdown tables of the sensitivity.json ``files``: per headline and run, and Kendall's τ."""
    folders = [f.parent for f in files]
    results = [read(f) for f in folders]
    print("\n| run | model | kind | headline: range (min–max) | perturbation: headlines; flips |")
    print("|---|---|---|---|---|")
    for folder, r in zip(folders, results, strict=True):
        spread = "; ".join(f"{h} {_num(s['range'])} ({_num(s['min'])}–{_num(s['max'])})"
                           for h, s in r["spread"].items())
        runs = "; ".join(f"{e['name']}: " + ", ".join(_num(v["value"]) for v in e["headlines"].values())
                         + ("" if e["flips"] is None else f", flips {e['flips']['flipped']}/{e['flips']['n']}")
                         for e in r["runs"])
        print(f"| {folder.name.rsplit('-', 1)[0]} | {r['label']} | {r['kind']} | {spread} | {runs} |")
    print("\n| benchmark | kind | perturbation | headline | τ | values (unperturbed → perturbed) |")
    print("|---|---|---|---|---|---|")
    for row in ranking_stability(results):
        tau = "–" if row["tau"] is None else f"{row['tau']:+.0f}"
        values = "; ".join(f"{m} {a:.2f} → {b:.2f}" for m, (a, b) in row["models"].items())
        print(f"| {row['benchmark']} | {row['kind']} | {row['perturbation']} | {row['headline']} | {tau} | {values} |")


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


if __name__ == "__main__":
    main()
