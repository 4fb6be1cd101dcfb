"""Analyses of ``zh-neutral`` results, after Zhao et al. (2021, SlguSet) §5.

The paper reports three things beyond the bias score, each reproduced here as a
function over per-sentence records (``items.jsonl`` of a run folder, or
``BenchmarkResult.records``):

* per-sentence scores "correlate strongly" across models: :func:`correlate_runs` joins
  two or more run folders on item id and gives Pearson and Spearman coefficients of
  ``b`` for every pair of runs (both are invariant to the log base, a positive scale);
* topic words of the male- and female-leaning subsets, by TF-IDF and TextRank
  (female → child, male → work in the paper): :func:`topic_words`, with jieba's
  ``extract_tags`` (its shipped IDF table) and ``textrank`` (nouns and verbs);
* the 男童/女童 case study (78 sentences lean boy, 158 girl for BERT-base):
  :func:`case_study` for any pair.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ...errors import DataError

TopicMethod = Literal["tfidf", "textrank"]
TOPIC_METHODS: tuple[TopicMethod, ...] = ("tfidf", "textrank")
LEANINGS = ("male", "female", "neutral")


@dataclass(frozen=True)
class RunCorrelation:
    """Correlation of per-sentence b between two runs, over the ids both scored."""

    a: str
    b: str
    n: int
    pearson: float
    pearson_p: float
    spearman: float
    spearman_p: float


@dataclass(frozen=True)
class CaseStudy:
    """How the sentences of one keyword pair lean, with the sentences themselves."""

    pair: str
    n: int
    counts: dict[str, int]
    sentences: dict[str, tuple[str, ...]]


def scored_b(records: Iterable[Mapping[str, Any]]) -> dict[str, float]:
    """``{id: b}`` of the records that carry a score (skipped items have none)."""
    return {str(r["id"]): float(r["b"]) for r in records if r.get("b") is not None}


def correlate(b_a: Mapping[str, float], b_b: Mapping[str, float], *, a: str = "a",
              b: str = "b") -> RunCorrelation:
    """Pearson and Spearman correlation of two ``{id: b}`` maps joined on id (scipy)."""
    from scipy import stats

    shared = sorted(set(b_a) & set(b_b))
    if len(shared) < 3:
        raise DataError(f"runs {a!r} and {b!r} share {len(shared)} scored item(s); "
                        "a correlation needs at least 3")
    xs, ys = [b_a[i] for i in shared], [b_b[i] for i in shared]
    pearson = stats.pearsonr(xs, ys)
    spearman = stats.spearmanr(xs, ys)
    return RunCorrelation(a, b, len(shared), float(pearson.statistic), float(pearson.pvalue),
                          float(spearman.statistic), float(spearman.pvalue))


def correlate_runs(run_dirs: Sequence[Path]) -> list[RunCorrelation]:
    """Every pair of run folders, in the order given; runs are named by their folder."""
    if len(run_dirs) < 2:
        raise DataError("a correlation needs at least two run folders")
    maps = {str(d): scored_b(read_records(d)) for d in run_dirs}
    return [correlate(maps[x], maps[y], a=x, b=y)
            for x, y in itertools.combinations(maps, 2)]


def read_records(run_dir: Path) -> list[dict[str, Any]]:
    """The per-sentence records of a finished ``zh-neutral`` run folder."""
    from ...runs.folder import read_run

    run = read_run(Path(run_dir))
    name = run.summary.get("benchmark")
    if name != "zh-neutral":
        raise DataError(f"a {name!r} run, not a zh-neutral one", path=run_dir)
    return run.records


def case_study(records: Iterable[Mapping[str, Any]], pair: str) -> CaseStudy:
    """Leaning counts and sentences of one keyword pair (the paper's 男童/女童 case)."""
    records = list(records)
    chosen = [r for r in records if r.get("pair") == pair and r.get("leaning") in LEANINGS]
    if not chosen:
        found = sorted({str(r.get("pair")) for r in records})
        raise DataError(f"no scored sentence with pair {pair!r}; pairs present: {', '.join(found)}",
                        field="pair")
    counts = {lean: sum(r["leaning"] == lean for r in chosen) for lean in LEANINGS}
    sentences = {lean: tuple(r["sentence"] for r in chosen if r["leaning"] == lean)
                 for lean in LEANINGS}
    return CaseStudy(pair, len(chosen), counts, sentences)


def context_text(record: Mapping[str, Any]) -> str:
    """The sentence with its keyword cut out: topics describe the context, and the
    keyword itself (女童, 她 …) would otherwise top every female-leaning list."""
    sentence, offset, keyword = record["sentence"], int(record["offset"]), record["keyword"]
    return sentence[:offset] + " " + sentence[offset + len(keyword):]


def topic_words(records: Iterable[Mapping[str, Any]], leaning: str, *, top_k: int = 10,
                method: TopicMethod = "tfidf") -> list[tuple[str, float]]:
    """The top ``top_k`` words, with weights, of the sentences leaning ``leaning``.

    ``tfidf``: ``jieba.analyse.extract_tags`` over the subset's joined contexts (term
    frequency in the subset × jieba's shipped IDF). ``textrank``: ``jieba.analyse.textrank``
    (nouns, place nouns, verbal nouns and verbs, window 5).
    """
    if method not in TOPIC_METHODS:
        raise ValueError(f"topic method {method!r} unknown; choose one of {', '.join(TOPIC_METHODS)}")
    text = "\n".join(context_text(r) for r in records if r.get("leaning") == leaning)
    if not text.strip():
        return []
    import jieba
    import jieba.analyse

    jieba.setLogLevel(logging.WARNING)
    extract = jieba.analyse.extract_tags if method == "tfidf" else jieba.analyse.textrank
    return [(word, round(float(weight), 6)) for word, weight in extract(text, topK=top_k, withWeight=True)]


def topics(records: Sequence[Mapping[str, Any]], top_k: int = 10) -> dict[str, dict[str, list]]:
    """``{leaning: {method: [[word, weight], …]}}`` for the male- and female-leaning subsets."""
    if top_k <= 0:
        return {}
    return {lean: {m: [list(t) for t in topic_words(records, lean, top_k=top_k, method=m)]
                   for m in TOPIC_METHODS}
            for lean in ("male", "female")}
