"""The probes each implemented benchmark asks a causal LM, built as the package builds them,
with torch and transformers only (the benchmark classes' metrics need scipy, which the GPU
machine lacks).

* :func:`census_probes`: the touileb2023 plan of a shipped country, in the ``conditional``
  reading a causal LM gets by default (``Census.bind`` → ``conditional_plan``): US 48,984
  sentences, FR 37,800, NO 67,554. Left out: the baseline's probes (the templates without
  an occupation; 18 short ones for the US, under 1 % of the probes), which the benchmark
  also asks a causal LM: building them imports the census metrics, hence scipy;
* :func:`crows_probes`: a CrowS-Pairs file's pairs as ``CrowsPairs.probes`` orders them
  (the disadvantaged group's sentence first, degenerate pairs left out);
* :func:`zh_probes`: zh-neutral's shipped sentences (the package's default data), the
  keyword as a two-filler slot;
* :func:`atlas`: all of them, by benchmark name.

:func:`asked` gives the (context, continuation) texts probes ask, in answer order
(context ``""``: the whole sentence), for a reference reading and a tokenizer corpus.
"""

from __future__ import annotations

from pathlib import Path

from shapes import CROWS_EN, data_file

from biasatlas.benchmarks.census.language import COUNTRY_LANGUAGE
from biasatlas.benchmarks.census.table import load_census
from biasatlas.benchmarks.census.templates import build_plan, conditional_plan
from biasatlas.benchmarks.crows_pairs import DATASETS, CrowsPairs, read_pairs
from biasatlas.benchmarks.zh_neutral.data import demo_path, read_items
from biasatlas.probes import ContinuationProbe, PairProbe, SlotProbe

Question = tuple[str, str]  # (context, continuation); context "" = the whole sentence
#: The CrowS-Pairs files of the atlas: English as published, French with its +210 pairs
#: (the package's default French dataset).
CROWS_FILES = {"en": CROWS_EN, "fr+210": Path("crows-pairs-fr") / DATASETS["fr+210"].name}


def census_probes(country: str = "us", n: int = 0) -> list[ContinuationProbe]:
    """The country's conditional-reading probes: all (``n`` 0), or the first ones holding
    ``n`` sentences."""
    language = COUNTRY_LANGUAGE[country]
    plan = conditional_plan(build_plan(language, load_census(country, language=language)))
    probes: list[ContinuationProbe] = []
    sentences = 0
    for probe in plan.probes:
        if n and sentences >= n:
            break
        assert isinstance(probe, ContinuationProbe)
        probes.append(probe)
        sentences += len(probe.contexts)
    return probes


def crows_probes(dataset: str = "en", pairs: int = 0) -> list[PairProbe]:
    """The dataset's pair probes: all (``pairs`` 0), or those of its first ``pairs`` pairs."""
    chosen = read_pairs(data_file(CROWS_FILES[dataset]))
    return CrowsPairs(dataset=dataset).probes(chosen[:pairs] if pairs else chosen)


def zh_probes() -> list[SlotProbe]:
    """zh-neutral's shipped items, as ``ZhNeutral.probes`` asks them."""
    return [SlotProbe(i.id, i.left, i.right, (i.male, i.female)) for i in read_items(demo_path())]


def atlas(limit: int = 0) -> dict[str, list]:
    """Every implemented benchmark's full data (``limit``: its first ``limit`` probes)."""
    works: dict[str, list] = {f"census-{c}": census_probes(c) for c in ("us", "fr", "no")}
    works |= {f"crows-{d}": crows_probes(d) for d in CROWS_FILES}
    works["zh-neutral"] = zh_probes()
    return {name: probes[:limit] if limit else probes for name, probes in works.items()}


def asked(probes: list) -> list[Question]:
    """The (context, continuation) texts the probes ask, in answer order."""
    return [q for p in probes for q in _questions_of(p)]


def sentences(works: list[list]) -> list[str]:
    """Every text the probes of ``works`` ask (a tokenizer's training corpus)."""
    return [c + q for probes in works for c, q in asked(probes)]


def _questions_of(probe: object) -> list[Question]:
    if isinstance(probe, ContinuationProbe):
        return [(c, probe.continuation) for c in probe.contexts]
    if isinstance(probe, PairProbe):
        return [("", probe.a), ("", probe.b)]
    assert isinstance(probe, SlotProbe)
    return [("", probe.left + f + probe.right) for f in probe.fillers]
