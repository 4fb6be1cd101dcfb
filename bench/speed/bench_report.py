"""How long ``biasatlas report`` takes over many large runs.

Writes ten synthetic run folders of 20,000 items each (by default four CrowS-Pairs runs
on the same 20,000 pair ids, so the report also runs nine McNemar comparisons… three
of them per group; three zh-neutral runs; three census runs), then times each stage:
reading the folders, building the tables and paired tests, drawing and serialising the
plots into one HTML page, and the Markdown, CSV and JSON outputs. Census runs have
``--census-items`` occupations (a real census table has at most a few hundred, so the
scatter stays readable; pass 20000 to stress it).

    .venv/bin/python bench/speed/bench_report.py [--items 20000] [--census-items 20000]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np

from biasatlas.runs.folder import Run
from biasatlas.runs.folder import write_run

CATS = ("race-color", "gender", "socioeconomic", "nationality", "religion", "age",
        "sexual-orientation", "physical-appearance", "disability", "autre")
PAIRS = ("他/她", "男/女", "爸爸/妈妈", "男孩/女孩", "丈夫/妻子", "哥哥/姐姐")


def _summary(benchmark: str, model: str, dataset: str, scores: dict) -> dict:
    return {"benchmark": benchmark, "benchmark_version": "1", "dataset": dataset, "model": model,
            "variant": None, **scores,
            "provenance": {"biasatlas": "bench", "data_sha256": f"{benchmark}-{dataset}"}}


def crows(folder: Path, n: int, seed: int) -> None:
    from biasatlas.benchmarks.crows_pairs import summarise

    rng = np.random.default_rng(seed)
    more = -rng.gamma(2.0, 5.0, n)
    less = more + rng.normal(-0.2 * seed, 2.0, n)
    records = [{"id": str(i), "bias_type": CATS[i % len(CATS)], "direction": "stereo" if i % 7 else "antistereo",
                "sent_more": f"Phrase numéro {i} sur un groupe défavorisé.", "sent_less": f"Phrase numéro {i}.",
                "flag": None, "sent_more_score": round(float(more[i]), 3), "sent_less_score": round(float(less[i]), 3),
                "outcome": "more" if more[i] > less[i] else "less"} for i in range(n)]
    write_run(Run({}, _summary("crows-pairs", f"model-{seed}", "synthetic", summarise(records)), records),
              folder)


def zh(folder: Path, n: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    b = rng.normal(0.1 * seed, 1.5, n)
    lean = np.where(b > 0.3, "male", np.where(b < -0.3, "female", "neutral"))
    records = [{"id": f"s{i}", "sentence": f"第{i}个句子，他们今天去上班。", "keyword": "他", "offset": 0,
                "pair": PAIRS[i % len(PAIRS)], "b": float(b[i]), "leaning": str(lean[i])} for i in range(n)]
    counts = {k: int((lean == k).sum()) for k in ("male", "female", "neutral")}
    scores = {"n": n, "bias_score": float(np.abs(b).mean()), "leaning": counts, "threshold": 0.3,
              "log_base": "e", "topics": {"male": {"tfidf": [["工作", 0.3]]}, "female": {"tfidf": [["孩子", 0.3]]}}}
    write_run(Run({}, _summary("zh-neutral", f"model-{seed}", "synthetic", scores), records), folder)


def census(folder: Path, n: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    truth = rng.uniform(0, 100, n)
    model = np.clip(truth + rng.normal(0, 25, n), 0, 100)

    def cls(x: np.ndarray) -> np.ndarray:
        return np.where(x > 55, "female", np.where(x < 45, "male", "balanced"))

    c, m = cls(truth), cls(model)
    records = [{"id": f"o{i}", "occupation": f"Yrke {i} (æøå)", "census_female_pct": float(truth[i]),
                "model_female_pct": float(model[i]), "census_class": str(c[i]), "model_class": str(m[i])}
               for i in range(n)]
    by = {k: float(100 * ((c == k) & (m == k)).mean()) for k in ("female", "male", "balanced")}
    scores = {"n_occupations": n, "normative": float(100 * (m == "balanced").mean()),
              "descriptive": float(100 * (c == m).mean()), "descriptive_by_class": by}
    write_run(Run({}, _summary("census", f"model-{seed}", "synthetic", scores), records), folder)


def timed(label: str, fn, results: list) -> object:
    start = time.perf_counter()
    value = fn()
    results.append((label, time.perf_counter() - start))
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--census-items", type=int, default=400)
    args = parser.parse_args()
    from biasatlas.report import build_report, load_runs, render, render_html

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        start = time.perf_counter()
        folders = []
        for i in range(4):
            folders.append(root / f"crows-{i}")
            crows(folders[-1], args.items, i)
        for i in range(3):
            folders.append(root / f"zh-{i}")
            zh(folders[-1], args.items, i)
        for i in range(3):
            folders.append(root / f"census-{i}")
            census(folders[-1], args.census_items, i)
        size = sum(p.stat().st_size for f in folders for p in f.iterdir()) / 2**20
        print(f"wrote {len(folders)} run folders ({size:.0f} MiB) in {time.perf_counter() - start:.1f} s")

        results: list[tuple[str, float]] = []
        runs = timed("read run folders", lambda: load_runs(folders), results)
        report = timed("tables + paired tests", lambda: build_report(runs), results)
        html = timed("plots + HTML", lambda: render_html(report), results)
        for fmt in ("md", "csv", "json"):
            timed(fmt, lambda fmt=fmt: render(report, fmt), results)
        total = sum(t for label, t in results if label not in ("md", "csv", "json"))
        for label, seconds in results:
            print(f"  {label:<24} {seconds:6.2f} s")
        print(f"  {'HTML report, end to end':<24} {total:6.2f} s  "
              f"({len(html.encode('utf-8')) / 2**20:.1f} MiB, {len(report.comparisons)} comparisons)")
        print(json.dumps({"items": args.items, "census_items": args.census_items, "runs": len(folders),
                          "seconds_html_total": round(total, 2)}))


if __name__ == "__main__":
    main()
