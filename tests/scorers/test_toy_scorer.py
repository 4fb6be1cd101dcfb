"""A scorer defined outside the package, registered in one line, run through benchmarks.

``Served`` stands for a masked LM behind a server (Ray Serve, vLLM): it has a name of its
own and passes probes on. Benchmarks must read its answers as a masked LM's because its
``info`` says so; census once chose the normalisation from the scorer's name and gave such
a scorer the template normalisation meant for sentence likelihoods.
"""

from __future__ import annotations

from typing import Any

import pytest

from biasatlas import pipeline, registry
from biasatlas.benchmarks.census.benchmark import Census
from biasatlas.benchmarks.crows_pairs import CrowsPairs
from biasatlas.pipeline import run_benchmark
from biasatlas.probes import Scored, ScorerInfo
from biasatlas.registry import load_scorer, register_scorer
from biasatlas.scorers.base import Progress, Scorer
from biasatlas.scorers.inprocess.masked_lm import MaskedLMScorer


class Served(Scorer):
    """A masked LM answering through a wrapper with another name (here: in process)."""

    name = "served-masked"

    def __init__(self, model: str, **options: Any) -> None:
        self.inner = MaskedLMScorer(model, **options)
        self.variant = self.inner.variant

    @property
    def info(self) -> ScorerInfo:
        return ScorerInfo(kind=self.name, reads="masked", multi_token=self.inner.multi_token)

    def score(self, probes, progress: Progress | None = None) -> Scored:
        return self.inner.score(probes, progress)

    def plan(self, probes) -> dict[str, int]:
        return self.inner.plan(probes)

    def describe(self) -> dict[str, Any]:
        return {**self.inner.describe(), "scorer": self.name}


@pytest.fixture
def served(tiny_bert):
    """``Served`` registered as ``served-masked``, and the registry restored afterwards."""
    saved = dict(registry.SCORERS)
    register_scorer("served-masked", Served)  # the one line a plug-in needs
    try:
        yield load_scorer(str(tiny_bert), "served-masked", batch_size=16)
    finally:
        registry.SCORERS.clear()
        registry.SCORERS.update(saved)


def _without_scorer_name(run) -> dict[str, Any]:
    """The run's numbers: everything but where the scorer's name and provenance appear."""
    summary = {k: v for k, v in run.summary.items() if k not in ("scorer", "provenance")}
    return {"summary": summary, "records": run.records, "skipped": run.skipped,
            "benchmark": run.config["benchmark"]}


def test_registered_scorer_loads_by_name(served):
    assert isinstance(served, Served) and served.info.kind == "served-masked"


def test_census_reads_a_served_masked_model_as_a_masked_model(served, tiny_bert, monkeypatch):
    bench = Census(country="no", sample=2, seed=3, n_resamples=50)
    run = run_benchmark(bench, served)
    # The bug this fixes: a name other than "masked-lm" got "template" normalisation and a
    # causal reading, i.e. the wrapped model's P(i | t) renormalised as if a likelihood.
    assert run.summary["normalisation"] == "none"
    assert run.summary["causal_reading"] is None and run.summary["baseline"] is None
    assert run.summary["multi_token"]["policy"] == "joint"
    assert run.config["benchmark"]["normalisation"] == "none"
    assert run.summary["scorer"] == "served-masked"
    # In the wrapper's chunks: a plug-in's own score commits whole chunks (tenths of a small
    # run), where the masked LM's hands on each batch and takes the run as one chunk, whose
    # batches give the floats other last bits.
    monkeypatch.setattr(pipeline, "keeps_batches", lambda scorer: False)
    wrapped = run_benchmark(bench, MaskedLMScorer(str(tiny_bert), batch_size=16))
    assert _without_scorer_name(run) == _without_scorer_name(wrapped)


def test_crows_pairs_scores_a_served_model_as_the_wrapped_one(served, tiny_bert, shared_data):
    bench = CrowsPairs(dataset=None, data=shared_data / "crows-pairs-en" / "crows_pairs_anonymized.csv",
                       limit=12)
    run = run_benchmark(bench, served)
    wrapped = run_benchmark(bench, MaskedLMScorer(str(tiny_bert), batch_size=16))
    assert run.summary["n"] == 12 and run.summary["variant"] == "nangia"
    assert _without_scorer_name(run) == _without_scorer_name(wrapped)
