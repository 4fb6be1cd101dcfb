"""Every option of :func:`biasatlas.evaluate` refuses a value of the wrong type or range with a
documented error naming it (issue 21, item 12).

Before, ``lowercase="no"`` lower-cased (a non-empty string is true), ``tie_decimals=-1``
rounded to tens, and a string where a number belongs was a bare ``TypeError`` from deep in
the scoring (``'<' not supported between 'str' and 'int'``). Each case here is one keyword
given to ``evaluate`` on the fake scorer; the check runs where the request is built, before
any data or model loads.
"""

from __future__ import annotations

import pytest

import biasatlas
from biasatlas.errors import BiasAtlasError, UsageError

# (benchmark, option, bad value): a wrong type for every option, a wrong value where one exists.
CASES = [
    *(("crows-pairs", key, value) for key, values in {
        "dataset": [3], "data": [3], "lowercase": ["no", 1], "strip_whitespace": ["no"], "unicode_nfc": [1],
        "tie_decimals": ["3", -1, 2.5, True], "limit": ["5", 0], "sample": ["5", 0], "seed": ["1", 1.5],
    }.items() for value in values),
    *(("census", key, value) for key, values in {
        "country": [3], "census": [3], "language": [3], "inflections": [3], "sample": ["1", 0], "seed": ["x"],
        "limit": ["3", 0], "aggregation": [3], "normalisation": [3], "method": [3], "template_set": [3],
        "missing": [3], "identifiers": [3], "causal_reading": [3], "preamble": [3], "n_resamples": ["x", 0, -1],
    }.items() for value in values),
    *(("zh-neutral", key, value) for key, values in {
        "data": [3], "pairs": ["ab", 3, [1]], "log_base": [3], "threshold": ["x"], "unequal_masks": [3],
        "limit": ["x"], "sample": ["x"], "n_resamples": ["x"], "seed": ["x"], "confidence": ["x"],
        "topics_k": ["x", -1],
    }.items() for value in values),
    # model and engine options: the same on every benchmark
    *(("crows-pairs", key, value) for key, values in {
        "model": [3], "scorer": [3], "variant": [3], "device": [3], "dtype": [3], "revision": [3],
        "trust_remote_code": ["no", 1], "multi_token": [3], "device_map": [3], "engine": [3],
        "ray_address": [3], "workers": ["2", 1.5], "worker_cpus": ["x"], "worker_gpus": ["x"],
    }.items() for value in values),
]


@pytest.fixture(autouse=True)
def _isolated(monkeypatch, tmp_path, shared_data):
    monkeypatch.setenv("BIASATLAS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("BIASATLAS_DATA_DIR", str(shared_data))


@pytest.mark.parametrize(("benchmark", "option", "value"), CASES,
                         ids=[f"{b}-{o}-{v!r}" for b, o, v in CASES])
def test_a_bad_option_is_a_documented_error_naming_it(benchmark, option, value):
    options = {"model": "fake", option: value}
    if benchmark != "census" and option != "limit":
        options.setdefault("limit", 3)
    with pytest.raises(BiasAtlasError) as caught:
        biasatlas.evaluate(benchmark, progress=False, cache=False, **options)
    assert option in str(caught.value), caught.value


def test_the_type_check_reads_unions_literals_and_lists():
    from pathlib import Path
    from typing import Literal

    from biasatlas.request import check_type

    check_type("x", None, int | None)
    check_type("x", "a.csv", Path)
    check_type("x", ["a", "b"], tuple[str, ...])
    check_type("x", 2, float)  # an int is a number
    check_type("x", "b", Literal["a"])  # the closed set is the record's own check, naming its choices
    for value, hint in ((True, int), (1, bool), ("ab", tuple[str, ...]), (1, Literal["a"]), ("1", float)):
        with pytest.raises(UsageError, match="option 'x' takes"):
            check_type("x", value, hint)
