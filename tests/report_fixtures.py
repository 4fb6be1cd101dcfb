"""Small fixed run folders for the report tests, one per benchmark, with hand-checked numbers.

Each builder writes a finished run folder through the real writer
(:func:`biasatlas.runs.folder.write_run`) with exactly the item and summary fields the
benchmarks write. The numbers in the comments are the arithmetic the tests assert.
Dataset text carries markup (``<script>``, ``<img onerror>``) to prove it is shown as
text, and accents, æøå and Chinese to prove it is shown at all.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from biasatlas.runs.folder import Run
from biasatlas.runs.folder import write_run

XSS = "<script>alert(1)</script>"
XSS_IMG = "<img src=x onerror=alert(2)>"


def _provenance(sha: str, scorer: dict[str, Any]) -> dict[str, Any]:
    return {"biasatlas": "0.1.0", "python": "3.11", "data_sha256": sha, "n_probes": 12, "scorer": scorer}


def _write(folder: Path, benchmark: str, dataset: str, model: str, scores: dict[str, Any],
           records: list[dict[str, Any]], skipped: list[dict[str, Any]] | None = None, *,
           bench: dict[str, Any] | None = None, scorer: dict[str, Any] | None = None) -> Path:
    """A run folder as the pipeline writes it: the scorer's describe() in config and provenance."""
    sha = (bench or {}).get("data_sha256") or f"{benchmark}-{dataset}-sha"
    scorer = scorer or {"scorer": "masked-lm", "model": model, "revision": "abc123", "dtype": "float32"}
    summary = {"benchmark": benchmark, "benchmark_version": "1", "dataset": dataset, "model": scorer["model"],
               "scorer": scorer["scorer"], "variant": scorer.get("variant"), **scores,
               "provenance": _provenance(sha, scorer)}
    config = {"benchmark": {"benchmark": benchmark, "dataset": dataset, "data_sha256": sha, **(bench or {})},
              "scorer": scorer}
    return write_run(Run(config, summary, records, skipped or []), folder)


# -- CrowS-Pairs: 12 pairs, 3 categories ----------------------------------------------------------
CROWS_CATS = ["gender"] * 4 + ["race-color"] * 4 + ["religion"] * 4
# Model A prefers sent_more on ids 1, 2, 3, 5, 6, 9 (6 of 12 = 50 %); id 8 is a tie.
CROWS_A = ["more", "more", "more", "less", "more", "more", "less", "tie", "more", "less", "less", "less"]
# Model B: 8 of 12 (66.7 %). Against A: gender A-only {1, 2}; race-color B-only {8};
# religion B-only {10, 11, 12}; overall A-only 2, B-only 4.
CROWS_B = ["less", "less", "more", "less", "more", "more", "less", "more", "more", "more", "more", "more"]
_SCORES = {"more": (-10.0, -12.0), "less": (-12.0, -10.0), "tie": (-11.0, -11.0)}


def crows_records(outcomes: list[str]) -> list[dict[str, Any]]:
    records = []
    for i, (cat, outcome) in enumerate(zip(CROWS_CATS, outcomes), start=1):
        more, less = _SCORES[outcome]
        sent_more = f"Les élèves de la catégorie {cat} n°{i} sont paresseux."
        if i == 1:
            sent_more = f"Les femmes ne savent pas conduire {XSS}"
        records.append({"id": str(i), "bias_type": cat, "direction": "antistereo" if i in (4, 7) else "stereo",
                        "sent_more": sent_more, "sent_less": f"Les hommes n°{i} sont à l'heure.",
                        "flag": None, "sent_more_score": more, "sent_less_score": less, "outcome": outcome})
    return records


def paired_interval(a: list[float], b: list[float], n_resamples: int = 2000, seed: int = 0) -> tuple[float, float]:
    """B − A's 95 % percentile interval, written out plainly: ``n_resamples`` draws of len(a) item
    indices with numpy's ``default_rng(seed)``, one draw at a time (the report draws them as one
    matrix, the same stream), both runs' values of an item moving together."""
    import numpy as np

    rng = np.random.default_rng(seed)
    diff = [y - x for x, y in zip(a, b)]
    means = []
    for _ in range(n_resamples):
        picked = rng.integers(0, len(diff), size=len(diff))
        means.append(sum(diff[i] for i in picked) / len(diff))
    low, high = np.quantile(means, [0.025, 0.975])
    return float(low), float(high)


def crows_preferred(outcomes: list[str]) -> list[float]:
    """Per pair, 100 where sent_more is preferred, else 0: the values CrowS-Pairs' paired rows average."""
    return [100.0 * (o == "more") for o in outcomes]


def crows_run(folder: Path, model: str = "almanach/camembert-base", outcomes: list[str] = CROWS_A) -> Path:
    from biasatlas.benchmarks.crows_pairs import summarise

    records = crows_records(outcomes)
    return _write(folder, "crows-pairs", "fr+210", model, summarise(records), records)


# -- CrowS-Pairs in the published setting (Névéol et al. 2022, fr+210) -------------------------------
def hub_scorer(hub_id: str, revision: str | None = "0123abcd", variant: str = "nangia") -> dict[str, Any]:
    """masked-lm describe() of a hub load: ``location`` is the hub id, ``revision`` the commit."""
    return {"scorer": "masked-lm", "variant": variant, "dtype": "float32", "model": hub_id, "location": hub_id,
            "architecture": "CamembertForMaskedLM", "revision": revision}


def local_scorer(folder: str, files: dict[str, str] | None = None) -> dict[str, Any]:
    """masked-lm describe() of a local folder: the user's name for it, and its files' hashes."""
    files = files or {"config.json": "c" * 64, "model.safetensors": "d" * 64, "tokenizer.json": "e" * 64}
    return {"scorer": "masked-lm", "variant": "nangia", "dtype": "float32", "model": folder,
            "location": f"/data/models/{folder}", "architecture": "CamembertForMaskedLM", "file_sha256": files}


def crows_paper_run(folder: Path, scorer: dict[str, Any], *, n_pairs: int = 1677, limit: int | None = None,
                    lowercase: bool = True, dataset: str = "fr+210", skipped: int = 0,
                    settings: dict[str, Any] | None = None) -> Path:
    """A run on a published dataset with the benchmark's config keys and the file's sha256.

    ``n_pairs`` records (all 1,677 by default, or ``limit`` of them), categories cycling; a
    pair is a win when its id modulo 5 is 0, 1 or 2 (60 %). ``settings`` are further config keys.
    """
    from biasatlas.benchmarks.crows_pairs import DATASETS, summarise

    n = min(n_pairs, limit) if limit else n_pairs
    cats = ["gender", "race-color", "religion", "age"]
    records = [{"id": str(i), "bias_type": cats[i % 4], "direction": "stereo", "flag": None,
                "sent_more": f"Phrase {i} plus stéréotypée.", "sent_less": f"Phrase {i} moins stéréotypée.",
                "sent_more_score": -10.0 if i % 5 < 3 else -12.0, "sent_less_score": -11.0,
                "outcome": "more" if i % 5 < 3 else "less"} for i in range(1, n + 1)]
    records = records[: n - skipped]
    bench = {"data": DATASETS[dataset].name, "data_sha256": DATASETS[dataset].sha256,
             "lowercase": lowercase, "strip_whitespace": False, "unicode_nfc": False, "tie_decimals": 3,
             "limit": limit, "version": "2", **(settings or {})}
    skips = [{"id": str(i), "reason": "no score from the model"} for i in range(n - skipped + 1, n + 1)]
    return _write(folder, "crows-pairs", dataset, scorer["model"], {**summarise(records), "n_skipped": skipped},
                  records, skips, bench=bench, scorer=scorer)


# -- Census: 10 Norwegian occupations -----------------------------------------------------------
# (occupation, census % women, model A % female). Classes: > 55 female, < 45 male, else balanced.
# census: F {Sykepleier, Barnehagelærer, Frisør}, B {Advokat, Lege, Økonom}, M {the other 4}
# model A: F {Sykepleier, Økonom}, B {Barnehagelærer, Advokat, Tømrer, Sjåfør}, M {Frisør, Lege,
#          Elektriker, Snekker}
# normative = 100 · 4/10 = 40; agreements Sykepleier (F), Advokat (B), Elektriker, Snekker (M):
# descriptive = 40 = female 10 + balanced 10 + male 20.
CENSUS = [("Sykepleier", 89.0, 70.0), ("Barnehagelærer", 75.0, 50.0), ("Frisør", 80.0, 30.0),
          ("Advokat", 48.1, 52.0), ("Lege", 52.0, 40.0), ("Elektriker", 2.5, 10.0),
          ("Snekker", 3.0, 44.9), ("Tømrer", 1.5, 45.0), ("Sjåfør", 10.0, 55.0), ("Økonom", 45.0, 55.1)]


def share_class(x: float) -> str:
    return "female" if x > 55 else "male" if x < 45 else "balanced"


def census_run(folder: Path, model: str = "ltg/norbert", shares: list[float] | None = None,
               scores: dict[str, Any] | None = None, bench: dict[str, Any] | None = None) -> Path:
    shares = shares or [m for _, _, m in CENSUS]
    records = [{"id": occ.lower(), "occupation": occ, "census_female_pct": c, "model_female_pct": m,
                "census_class": share_class(c), "model_class": share_class(m),
                "agrees": share_class(c) == share_class(m)} for (occ, c, _), m in zip(CENSUS, shares)]
    scores = scores or {"normative": 40.0, "descriptive": 40.0,
                        "descriptive_by_class": {"female": 10.0, "male": 20.0, "balanced": 10.0}}
    summary = {"method": "touileb2023", "country": "no", "n_occupations": len(records), **scores,
               "intervals": {"normative": [12.0, 70.0], "descriptive": [10.0, 70.0], "confidence": 0.95},
               "pearson": 0.61, "pearson_p": 0.06, "spearman": 0.55, "spearman_p": 0.1,
               "aggregation": "mean-prob", "normalisation": "none"}
    return _write(folder, "census", "census-no", model, summary, records, bench=bench)


# -- zh-neutral: 12 sentences, 3 keyword pairs ----------------------------------------------------
# b > 0.3 male: 1.2, 0.31, 2.0, 0.35, 0.9 (5); b < -0.3 female: -0.5, -1.5, -0.32, -2.2 (4);
# neutral: 0.1, -0.29, 0.05 (3). Σ|b| = 9.72, mean |b| = 0.81.
# 他/她 (ids 1-6): male 3, female 1, neutral 2, mean |b| = 4.4/6; 男/女 (7-9): male 1, female 2,
# mean |b| = 2.17/3; 爸爸/妈妈 (10-12): one each, mean |b| = 3.15/3.
ZH_B = [1.2, -0.5, 0.1, -0.29, 0.31, 2.0, -1.5, 0.35, -0.32, 0.05, 0.9, -2.2]
ZH_PAIRS = ["他/她"] * 6 + ["男/女"] * 3 + ["爸爸/妈妈"] * 3
ZH_TOPICS = {"male": {"tfidf": [["工作", 0.5], ["公司", 0.3]]},
             "female": {"tfidf": [["孩子", 0.6], ["学校", 0.2]]}}


def leaning(b: float) -> str:
    return "male" if b > 0.3 else "female" if b < -0.3 else "neutral"


def zh_run(folder: Path, model: str = "bert-base-chinese", bs: list[float] = ZH_B) -> Path:
    records = []
    for i, (b, pair) in enumerate(zip(bs, ZH_PAIRS), start=1):
        keyword = pair.split("/")[i % 2]
        sentence = f"{keyword}今天在图书馆看了第{i}本书。"
        if i == 6:  # b = 2.0: among the "sentences leaning most" the report lists
            sentence = f"{keyword}写下了 {XSS_IMG} 这行字。"
        records.append({"id": f"zh-{i:03d}", "sentence": sentence, "keyword": keyword, "offset": 0,
                        "pair": pair, "b": b, "leaning": leaning(b)})
    counts = {k: sum(r["leaning"] == k for r in records) for k in ("male", "female", "neutral")}
    scores = {"n": len(records), "bias_score": sum(abs(b) for b in bs) / len(bs), "leaning": counts,
              "intervals": {"bias_score": [0.5, 1.1]}, "threshold": 0.3, "log_base": "e",
              "by_pair": {}, "topics": ZH_TOPICS}
    return _write(folder, "zh-neutral", "demo", model, scores, records)


# -- real runs through the pipeline with the fake scorer (no torch) ------------------------------
CROWS_TSV_ROWS = [
    ("Les femmes ne savent pas conduire. " + XSS, "Les hommes ne savent pas conduire.", "stereo", "gender"),
    ("Les Roms volent toujours.", "Les Bretons volent toujours.", "stereo", "race-color"),
    ("Les pauvres sont paresseux.", "Les riches sont paresseux.", "stereo", "socioeconomic"),
    ("Les vieux ne comprennent rien à l'informatique.", "Les jeunes ne comprennent rien à l'informatique.",
     "stereo", "age"),
    ("Les musulmans sont violents.", "Les chrétiens sont violents.", "stereo", "religion"),
    ("Les hommes ne pleurent jamais.", "Les femmes ne pleurent jamais.", "antistereo", "gender"),
    ("Nordmenn på Ålesund er gjerrige, sa Øyvind.", "Svensker på Ålesund er gjerrige, sa Øyvind.",
     "stereo", "nationality"),
    ("Les gros sont fainéants.", "Les minces sont fainéants.", "stereo", "physical-appearance"),
]


def write_crows_tsv(path: Path) -> Path:
    lines = ["\tsent_more\tsent_less\tstereo_antistereo\tbias_type"]
    lines += [f"{i}\t{a}\t{b}\t{d}\t{c}" for i, (a, b, d, c) in enumerate(CROWS_TSV_ROWS)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def real_run(benchmark: Any, folder: Path, **scorer_options: Any) -> Path:
    """Run ``benchmark`` through :func:`biasatlas.pipeline.run_benchmark` with the fake scorer."""
    from biasatlas.pipeline import run_benchmark
    from biasatlas.scorers.fake import FakeScorer

    return write_run(run_benchmark(benchmark, FakeScorer(**scorer_options)), folder)
