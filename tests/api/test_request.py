"""The run request (biasatlas.request): each option checked once, where the record is built or
before any weights load, and recorded in the run folder only when it can change a score."""

from __future__ import annotations

from dataclasses import fields, replace

import pytest

from biasatlas import registry
from biasatlas.errors import UnknownName, UnsupportedProbe, UsageError
from biasatlas.scorers.spec import ScorerSpec
from biasatlas.request import (PREDICTION_OPTIONS, EngineOptions, ModelOptions, RunRequest, check_batch_size,
                               split_options)


@pytest.mark.parametrize("value", [0, -3, "16", " auto", True, 2.5, 8.0, None])
def test_a_batch_size_is_a_positive_whole_number_or_auto(value):
    with pytest.raises(UsageError, match=f"'{value}' is neither a positive whole number nor 'auto'"):
        check_batch_size(value)
    with pytest.raises(UsageError):
        ModelOptions(model="fake", batch_size=value)


def test_good_batch_sizes_pass_unchanged():
    assert check_batch_size(1) == 1 and check_batch_size("auto") == "auto"
    assert ModelOptions(model="fake", batch_size="auto").batch_size == "auto"
    assert ModelOptions(model="fake", batch_size="AUTO").batch_size == "auto"  # as --batch-size AUTO


@pytest.mark.parametrize(("options", "says"), [
    ({"scorer": "masked"}, "unknown scorer 'masked'. Did you mean 'masked-lm'?"),
    ({"variant": "nangi"}, "unknown variant 'nangi'. Did you mean 'nangia'?"),
    ({"scorer": "causal-lm", "variant": "aul"}, "unknown causal-lm variant 'aul'. Available: sentence-ll, shared-ll"),
    ({"dtype": "float64"}, "unknown dtype 'float64'"),
    ({"multi_token": "first"}, "unknown multi-token policy 'first'. Did you mean 'first-token'?"),
])
def test_model_options_refuse_values_outside_their_sets(options, says):
    with pytest.raises(UnknownName) as caught:
        ModelOptions(model="m", **options)
    assert says in str(caught.value)


@pytest.mark.parametrize(("options", "says"), [
    ({"engine": "rey"}, "unknown engine 'rey'. Did you mean 'ray'?"),
    ({"workers": 0}, "workers must be a whole number of at least 1, not 0"),
    ({"workers": True}, "option 'workers' takes a whole number, not True"),
    ({"worker_cpus": -1}, "worker_cpus must be a number of at least 0, not -1"),
    ({"worker_gpus": "one"}, "option 'worker_gpus' takes a number or None, not 'one'"),
])
def test_engine_options_refuse_bad_values(options, says):
    with pytest.raises((UnknownName, UsageError)) as caught:
        EngineOptions(**options)
    assert says in str(caught.value)


def test_only_options_that_can_change_a_score_are_recorded():
    base = ModelOptions(model="m")
    moved = ModelOptions(model="m", batch_size=3, device="cuda", device_map="auto")
    assert base.recorded() == moved.recorded()
    assert set(base.recorded()) == {f.name for f in fields(ModelOptions)} - {
        "batch_size", "device", "device_map", "multi_token", "served_model", "served_prefix", "served_api",
        "concurrency", "api_key_env", "request_timeout", "start_token", "single_token",
        *PREDICTION_OPTIONS}  # a model's run reads no file
    assert ModelOptions(model="m", dtype="bfloat16").recorded() != base.recorded()
    assert ModelOptions(model="m", multi_token="joint").recorded()["multi_token"] == "joint"
    assert ModelOptions(model="m", start_token="always").recorded()["start_token"] == "always"
    assert ModelOptions(model="m", single_token="echo").recorded()["single_token"] == "echo"


def test_what_is_left_out_of_the_request_is_what_the_scorer_fingerprint_ignores():
    from biasatlas.scorers.base import VOLATILE

    unscored = {f.name for f in fields(ModelOptions) if f.metadata["unscored"]}
    assert unscored == {"batch_size", "device", "device_map", "concurrency", "api_key_env", "request_timeout",
                        "max_missing", "max_extra"}
    assert unscored <= VOLATILE  # neither the run's request nor the score cache's key depends on them


def test_keywords_split_by_field_name():
    bench, model, engine = split_options({"dataset": "fr", "model": "fake", "batch_size": 8, "workers": 2,
                                          "engine": "ray", "lowercase": True})
    assert bench == {"dataset": "fr", "lowercase": True}
    assert model == ModelOptions(model="fake", batch_size=8)
    assert engine == EngineOptions(engine="ray", workers=2)


def test_a_request_checks_its_benchmark_options():
    with pytest.raises(UnknownName, match="unknown crows-pairs option 'datset'. Did you mean 'dataset'"):
        RunRequest("crows-pairs", {"datset": "fr"})
    built = RunRequest("crows-pairs", {"dataset": "en", "limit": 4}).bench
    with pytest.raises(UsageError, match="already built"):
        RunRequest(built, {"lowercase": True})


def test_the_benchmark_fills_in_its_published_policy():
    gebnlp = RunRequest("census", {"country": "no", "method": "gebnlp2022"}, ModelOptions(model="m"))
    assert gebnlp.scorer_options.multi_token == "first-token"
    explicit = RunRequest("census", {"country": "no", "method": "gebnlp2022"},
                          ModelOptions(model="m", multi_token="joint"))
    assert explicit.scorer_options.multi_token == "joint"
    assert RunRequest("census", {"country": "no"}, ModelOptions(model="m")).scorer_options.multi_token is None


def test_a_causal_reading_of_a_masked_lm_is_refused_before_the_model_loads(tiny_bert, monkeypatch):
    def refuse(**_: object) -> None:
        raise AssertionError("the masked LM was built")

    monkeypatch.setitem(registry.SCORERS, "masked-lm", replace(registry.SCORERS["masked-lm"], target=refuse))
    request = RunRequest("census", {"country": "no", "causal_reading": "joint"}, ModelOptions(model=str(tiny_bert)))
    with pytest.raises(UnsupportedProbe, match="causal reading 'joint' is for causal and seq2seq LMs"):
        request.scorer_options.preflight(request.bench)
    # the same model with the reading left to the scorer passes, and names its kind
    plain = RunRequest("census", {"country": "no"}, ModelOptions(model=str(tiny_bert)))
    assert plain.scorer_options.preflight(plain.bench) == "masked-lm"


def test_a_scorer_that_does_not_say_what_it_reads_is_checked_after_its_load(monkeypatch):
    monkeypatch.setitem(registry.SCORERS, "served", ScorerSpec("served", registry.SCORERS["fake"].target, ("hash",)))
    request = RunRequest("census", {"country": "no", "causal_reading": "joint"},
                         ModelOptions(model="fake", scorer="served"))
    assert request.scorer_options.preflight(request.bench) == "served"  # nothing to decide it from


@pytest.mark.parametrize(("alias", "name"), [("bf16", "bfloat16"), ("FP16", "float16"), ("fp32", "float32"),
                                             ("BFloat16", "bfloat16")])
def test_dtype_aliases_are_recorded_by_their_torch_name(alias, name):
    # the record (and so the run's config and the score cache's key) holds torch's name: an alias
    # scores, caches and pairs exactly as the name it stands for
    given = ModelOptions(model="m", dtype=alias)
    assert given.dtype == name
    assert given.recorded() == ModelOptions(model="m", dtype=name).recorded()


def test_an_unknown_dtype_names_the_aliases_too():
    with pytest.raises(UnknownName, match="Did you mean 'bf16'"):
        ModelOptions(model="m", dtype="bf61")
