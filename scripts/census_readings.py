"""Census readings side by side on one model: joint vs conditional, with and without a preamble.

For each country: the paper's scores (F/M/B counts, Pearson), the occupation-free baseline
share and the mean model share, for both causal readings, then the same with a neutral
sentence put before every probe. A reading that measures occupations should barely move
when that sentence is added; one that measures identifier priors moves a lot.

    .venv/bin/python scripts/census_readings.py --model gemma-3-270m --sample 12
"""

from __future__ import annotations

import argparse
import json
from statistics import mean

from biasatlas.benchmarks.census.benchmark import Census
from biasatlas.cache import ScoreCache, default_cache_path
from biasatlas.pipeline import run_benchmark
from biasatlas.registry import load_scorer

PREAMBLES = {"no": "Dette er en norsk tekst. ", "us": "This is an English text. ",
             "fr": "Ceci est un texte en français. "}


def row(run, country: str, reading: str, preamble: str) -> dict:
    s = run.summary
    counts = lambda c: "/".join(str(int(c[k])) for k in ("female", "male", "balanced"))  # noqa: E731
    return {"country": country, "reading": reading, "preamble": bool(preamble),
            "model_FMB": counts(s["model_counts"]), "census_FMB": counts(s["census_counts"]),
            "pearson": s["pearson"], "normative": s["normative"], "descriptive": s["descriptive"],
            "baseline": (s.get("baseline") or {}).get("share"),
            "top_identifier": (s.get("baseline") or {}).get("top_identifier"),
            "top_share": (s.get("baseline") or {}).get("top_identifier_share"),
            "mean_share": mean(r["model_female_pct"] for r in run.records)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="gemma-3-270m")
    parser.add_argument("--countries", default="no,us")
    parser.add_argument("--sample", type=int, default=12)
    parser.add_argument("--identifiers", default="paired")
    parser.add_argument("--batch-size", type=int, default=64)
    args = parser.parse_args()
    scorer = load_scorer(args.model, batch_size=args.batch_size)
    cache = ScoreCache(default_cache_path())
    rows = []
    for country in args.countries.split(","):
        for reading in ("joint", "conditional"):
            for preamble in ("", PREAMBLES[country]):
                bench = Census(country=country, sample=args.sample, causal_reading=reading,
                               preamble=preamble, identifiers=args.identifiers)
                rows.append(row(run_benchmark(bench, scorer, cache=cache), country, reading, preamble))
                print(json.dumps(rows[-1]), flush=True)
    print("\ncountry reading      model F/M/B census F/M/B Pearson baseline mean share  shift(preamble)")
    for plain, pre in zip(rows[::2], rows[1::2]):
        print(f"{plain['country']:7} {plain['reading']:12} {plain['model_FMB']:11} {plain['census_FMB']:12} "
              f"{plain['pearson']:7.3f} {plain['baseline']:8.2f} {plain['mean_share']:10.2f} "
              f"{pre['mean_share'] - plain['mean_share']:+8.2f} (F/M/B {pre['model_FMB']}, "
              f"baseline {pre['baseline']:.2f})")


if __name__ == "__main__":
    main()
