"""StereoSet's options are checked on construction, before anything loads (issue 35).

Each bad value of each option is refused by name, and ``--limit`` with ``--sample`` is refused with
the words every benchmark's subset check uses (:func:`biasatlas.benchmarks.options.check_subset`):
StereoSet checked its subset inline and took ``limit=5, sample=3`` where BBQ refused it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from biasatlas.benchmarks.stereoset import SPEC, StereoSet
from biasatlas.errors import BiasAtlasError, MissingInput, UnknownName, UsageError

#: (options, the error's type, words its message must hold)
BAD: list[tuple[dict[str, Any], type[Exception], str]] = [
    ({"split": "train"}, UnknownName, "split"),
    ({"task": "intra"}, UnknownName, "task"),
    ({"length": "avg"}, UnknownName, "length"),
    ({"limit": 0}, UsageError, "limit must be a positive number of examples of each task, not 0"),
    ({"limit": -2}, UsageError, "limit must be a positive number"),
    ({"sample": 0}, UsageError, "sample must be a positive number of examples of each task, not 0"),
    ({"limit": 5, "sample": 3}, UsageError, "--limit 5 and --sample 3 together: use one"),
    ({"seed": -1}, UsageError, "seed must be a whole number 0 or more"),
    ({"n_resamples": 0}, UsageError, "n_resamples must be a whole number from 1"),
    ({"data": "no-such-split.json"}, MissingInput, "no such file"),
    ({"data": "."}, MissingInput, "is a folder, not a data file"),
]


@pytest.mark.parametrize(("options", "error", "words"), BAD, ids=[
    "-".join(f"{k}={v}" for k, v in options.items()) for options, _, _ in BAD])
def test_each_bad_option_value_is_refused_on_construction(tmp_path: Path, options: dict[str, Any],
                                                          error: type[Exception], words: str) -> None:
    if "data" in options:
        options = {**options, "data": tmp_path / options["data"]}
    with pytest.raises(error, match=words) as caught:
        StereoSet(**options)
    assert isinstance(caught.value, BiasAtlasError)  # a documented error the CLI reports as a usage mistake


def test_limit_with_sample_is_refused_as_for_every_benchmark() -> None:
    # the old StereoSet checked limit and sample each on its own and accepted both together
    with pytest.raises(UsageError, match=r"--limit 5 and --sample 3 together"):
        StereoSet(limit=5, sample=3)


def test_good_values_pass_and_a_choice_is_recorded_as_given(tmp_path: Path) -> None:
    split = tmp_path / "dev.json"
    split.write_text("{}", encoding="utf-8")
    bench = StereoSet(split="test", data=split, task="intersentence", length="sum", sample=4, seed=7, n_resamples=9)
    assert (bench.split, bench.task, bench.length, bench.sample, bench.seed, bench.n_resamples) == (
        "test", "intersentence", "sum", 4, 7, 9)


def test_every_option_has_its_help_and_the_subset_counts_examples_per_task() -> None:
    assert [option for option in ("split", "data", "task", "length") if not SPEC.flag(option).help] == []
    assert SPEC.flag("limit").help.startswith("Only the first N examples of each task")
    assert SPEC.flag("data").file
