"""Census in the shape every benchmark shares (issue 35): its options declared once, its bind, work
counters and config derived, and its typed summary written and read as one type."""

from __future__ import annotations

import pytest

from biasatlas.benchmarks.census.benchmark import Census
from biasatlas.benchmarks.census.summary import CensusRunSummary
from biasatlas.benchmarks.contract import with_work
from biasatlas.errors import UnknownName, UnsupportedProbe
from biasatlas.probes import ScorerInfo
from biasatlas.runs.typed import encode
from biasatlas.scorers.fake import FakeScorer

SEQUENCE, MASKED = ScorerInfo("fake", "sequence"), ScorerInfo("masked-lm", "masked", mask_token="[MASK]")

#: config.json's keys as census wrote them before issue 35 (its hand-written config(), in order):
#: a rerun compares them, and a run folder stays byte-identical only in this order.
CONFIG_KEYS = ["benchmark", "version", "method", "country", "dataset", "data", "data_sha256", "census", "language",
               "inflections", "sample", "seed", "limit", "aggregation", "normalisation", "normalisation_requested",
               "template_set", "missing", "n_resamples", "identifiers", "causal_reading", "preamble",
               "multi_token_policy"]


def test_a_union_of_literals_takes_every_arm():
    # normalisation is Auto | Normalisation and causal_reading Auto | CausalReading: the second arm counts too
    bench = Census(country="no", normalisation="template", causal_reading="joint")
    assert (bench.normalisation, bench.causal_reading) == ("template", "joint")
    with pytest.raises(UnknownName, match="normalisation 'templates'"):
        Census(normalisation="templates")


def test_config_keeps_the_order_census_always_wrote():
    assert list(Census(country="us", sample=3).config()) == CONFIG_KEYS
    config = Census(country="us", sample=3, predicates="employed").config()
    assert list(config) == [*CONFIG_KEYS, "predicates", "predicates_sha256"]
    assert config["predicates"] == "employed"


def test_config_records_the_options_as_resolved_for_the_scorer():
    bench = Census(country="No", sample=2, seed=4)
    unbound, bound = bench.config(), bench.bind(SEQUENCE).config()
    assert unbound["country"] == "no" and (unbound["sample"], unbound["seed"], unbound["limit"]) == (2, 4, None)
    assert (unbound["normalisation"], unbound["causal_reading"], unbound["multi_token_policy"]) == \
        ("auto", "auto", "unknown")
    assert (bound["normalisation"], bound["normalisation_requested"], bound["causal_reading"]) == \
        ("template", "auto", "conditional")
    assert bound["language"] == "no" and bound["dataset"] == "census-no" and bound["template_set"] is None


def test_bind_keeps_the_table_and_plan_already_built():
    bench = Census(country="no", limit=3)
    table, plan = bench.census_table, bench.plan
    bound = bench.bind(SEQUENCE)
    assert bound.scorer == SEQUENCE and bench.scorer is None
    assert bound.census_table is table and bound.plan is plan


def test_bind_refuses_the_scorers_census_cannot_read():
    with pytest.raises(UnsupportedProbe, match="masked LM's mask"):
        Census(country="us", method="bartl2020").bind(SEQUENCE)
    with pytest.raises(UnsupportedProbe, match="causal reading 'joint'"):
        Census(country="us", causal_reading="joint").bind(MASKED)
    assert Census(country="us", method="bartl2020").bind(MASKED).scorer == MASKED


def test_the_planned_work_is_added_as_census_always_added_it():
    assert Census.COUNTS_WORK
    summary = {"n_probes": 8, "n_forward_passes": None, "n_fragile": 0}
    counters = {"rows_computed": 20, "batches": 3, "encoder_rows": 5}
    # census's own with_counters before issue 35: rows per probe, the passes re-valued in place
    assert list(with_work(summary, counters).items()) == [
        ("n_probes", 8), ("n_forward_passes", 20), ("n_fragile", 0), ("n_batches", 3), ("n_encoder_passes", 5),
        ("forward_passes_per_probe", 2.5)]
    assert with_work({"n_probes": 0}, {})["forward_passes_per_probe"] is None


def _scored(bench: Census, info: ScorerInfo) -> dict:
    bound = bench.bind(info)
    items = bound.load()
    answers = FakeScorer().score(list(bound.probes(items)))
    return bound.score(items, answers).written()


@pytest.mark.parametrize(("options", "info", "own"), [
    ({"causal_reading": "joint"}, SEQUENCE, ("baseline", "warnings")),
    ({}, SEQUENCE, ("baseline", "warnings")),
    ({}, MASKED, ("baseline", "warnings")),  # no prior read: the baseline is written as null
    ({"method": "gebnlp2022"}, SEQUENCE, ("template_set", "binary_agreement")),
    ({"country": "us", "method": "bartl2020"}, MASKED, ("association", "n_sentences")),
])
def test_the_typed_summary_reads_back_as_written(options, info, own, tmp_path):
    written = _scored(Census(**{"country": "no", "limit": 3, "n_resamples": 20, **options}), info)
    keys = list(written)
    at = keys.index("n_forward_passes")
    assert keys[at + 1: at + 1 + len(own)] == list(own) and keys[-2:] == ["n_fragile", "fragile_bound"]
    others = {"baseline", "warnings", "template_set", "binary_agreement", "association", "n_sentences"} - set(own)
    assert not others & set(keys)
    typed = CensusRunSummary.read(written, tmp_path / "summary.json")
    assert encode(typed) == written
    if info == MASKED and "baseline" in own:
        assert written["baseline"] is None and written["warnings"] == [] and typed.warnings == ()
