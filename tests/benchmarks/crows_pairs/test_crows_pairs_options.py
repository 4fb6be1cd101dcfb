"""CrowS-Pairs' options checked on construction and recorded as its run folders always have (issue 35).

config.json leaves ``bias_types``, ``columns``, ``sample`` and ``seed`` out while unset (``seed``
goes with ``sample``): a rerun into an older run folder compares its config with the recorded one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from biasatlas.benchmarks.crows_pairs import SPEC, CrowsPairs
from biasatlas.errors import MissingInput, UnknownName, UsageError
from shared_data import shared_data_dir

EN = shared_data_dir() / "crows-pairs-en" / "crows_pairs_anonymized.csv"

BAD: list[tuple[dict[str, Any], type[Exception], str]] = [
    ({"dataset": "de"}, UnknownName, "dataset"),
    ({"tie_decimals": -1}, UsageError, "tie_decimals must be at least 0, not -1"),
    ({"limit": 0}, UsageError, "limit must be a positive number of pairs, not 0"),
    ({"sample": -3}, UsageError, "sample must be a positive number of pairs, not -3"),
    ({"limit": 4, "sample": 2}, UsageError, "--limit 4 and --sample 2 together: use one"),
    ({"seed": -1}, UsageError, "seed must be a whole number 0 or more"),
    ({"data": "missing.csv"}, MissingInput, "no such file"),
    ({"dataset": "en", "columns": ("sent_more=a",)}, UsageError, "--columns maps the columns of your own --data"),
]


@pytest.mark.parametrize(("options", "error", "words"), BAD, ids=[
    "-".join(f"{k}={v}" for k, v in options.items()) for options, _, _ in BAD])
def test_each_bad_option_value_is_refused_on_construction(tmp_path: Path, options: dict[str, Any],
                                                          error: type[Exception], words: str) -> None:
    if "data" in options:
        options = {**options, "data": tmp_path / options["data"]}
    with pytest.raises(error, match=words):
        CrowsPairs(**options)


def test_a_dataset_name_is_recorded_in_its_canonical_spelling() -> None:
    assert CrowsPairs(dataset="EN-Revised+210").dataset == "en-revised+210"


def test_no_bootstrap_so_no_n_resamples_option() -> None:
    # CrowS-Pairs' intervals are Wilson's and Student's t: --n-resamples would change nothing
    with pytest.raises(TypeError, match="n_resamples"):
        CrowsPairs(n_resamples=10)  # type: ignore[call-arg]
    assert SPEC.flag("limit").help.startswith("Only the first N pairs")


def test_config_leaves_unset_settings_out_in_the_order_older_folders_have(isolated_run: Path) -> None:
    plain = CrowsPairs(dataset="en", limit=3).config()
    assert list(plain) == ["benchmark", "version", "dataset", "data", "data_sha256", "lowercase", "strip_whitespace",
                           "unicode_nfc", "tie_decimals", "limit"]
    assert (plain["dataset"], plain["limit"], plain["data"]) == ("en", 3, str(EN))


def test_config_records_each_setting_when_set_after_the_limit() -> None:
    config = CrowsPairs(dataset=None, data=EN, columns=("sent_more=sent_more",), bias_types=("race", "gender"),
                        sample=5, seed=9, tie_decimals=2).config()
    assert list(config) == ["benchmark", "version", "dataset", "data", "data_sha256", "lowercase",
                            "strip_whitespace", "unicode_nfc", "tie_decimals", "limit", "bias_types", "columns",
                            "sample", "seed"]
    assert config["dataset"] is None and config["limit"] is None
    assert config["bias_types"] == ["race-color", "gender"] and config["columns"] == {"sent_more": "sent_more"}
    assert (config["sample"], config["seed"], config["tie_decimals"]) == (5, 9, 2)
