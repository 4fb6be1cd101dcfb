"""Seeds and resample counts are checked where the library takes them, before any scoring
(issue 21, items 9 and 14): ``--seed -1`` was an internal error (numpy's generators take
no negative seed), for census and zh-neutral after all the scoring, and
``--n-resamples 1e8`` grew to 15.7 GB."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from biasatlas.benchmarks.options import draw_sample
from biasatlas.benchmarks.census.benchmark import Census
from biasatlas.benchmarks.census.metrics import bootstrap_interval as census_bootstrap
from biasatlas.benchmarks.crows_pairs.benchmark import CrowsPairs
from biasatlas.benchmarks.zh_neutral.benchmark import ZhNeutral
from biasatlas.benchmarks.zh_neutral.benchmark import bootstrap_interval as zh_bootstrap
from biasatlas.errors import UsageError
from biasatlas.stats import MAX_RESAMPLES, paired_bootstrap
from report_fixtures import census_run, crows_run

BENCHMARKS = {"census": lambda **kw: Census(country="no", sample=3, **kw),
              "crows-pairs": lambda **kw: CrowsPairs(dataset="en", sample=3, **kw),
              "zh-neutral": lambda **kw: ZhNeutral(sample=3, **kw)}


@pytest.mark.parametrize("name", sorted(BENCHMARKS))
@pytest.mark.parametrize("seed", [-1, -(2 ** 70), 1.5, True])
def test_a_seed_that_cannot_seed_is_refused_when_the_benchmark_is_made(name, seed):
    with pytest.raises(UsageError, match="seed must be a whole number 0 or more"):
        BENCHMARKS[name](seed=seed)


@pytest.mark.parametrize("name", ["census", "zh-neutral"])
@pytest.mark.parametrize("n", [0, MAX_RESAMPLES + 1, 10 ** 8])
def test_resample_counts_are_bounded_when_the_benchmark_is_made(name, n):
    with pytest.raises((UsageError, ValueError), match="n_resamples"):
        BENCHMARKS[name](n_resamples=n)


def test_large_seeds_and_the_bound_itself_are_accepted():
    assert BENCHMARKS["census"](seed=2 ** 64, n_resamples=MAX_RESAMPLES).seed == 2 ** 64
    items = list(range(10))
    # the same draw as numpy's own generator: 3 of 10, kept in order
    expected = sorted(np.random.default_rng(2 ** 64).choice(10, size=3, replace=False).tolist())
    assert draw_sample(items, 3, 2 ** 64) == expected


@pytest.mark.parametrize("call", [
    lambda: draw_sample([1, 2, 3], 2, -1),
    lambda: draw_sample([1, 2, 3], None, -1),
    lambda: paired_bootstrap(np.array([1.0, -1.0, 2.0]), seed=-1),
    lambda: census_bootstrap(np.array([1.0, 0.0, 1.0]), seed=-1),
    lambda: zh_bootstrap([0.1, 0.2, 0.3], np.mean, seed=-1),
], ids=["draw", "no-draw", "paired-bootstrap", "census-bootstrap", "zh-bootstrap"])
def test_every_seeded_draw_refuses_a_negative_seed_alike(call):
    with pytest.raises(UsageError, match="seed must be a whole number 0 or more"):
        call()


@pytest.mark.parametrize("call", [
    lambda n: paired_bootstrap(np.array([1.0, -1.0, 2.0]), n_resamples=n),
    lambda n: census_bootstrap(np.array([1.0, 0.0, 1.0]), n_resamples=n),
    lambda n: zh_bootstrap([0.1, 0.2, 0.3], np.mean, n_resamples=n),
], ids=["paired-bootstrap", "census-bootstrap", "zh-bootstrap"])
def test_every_bootstrap_refuses_more_resamples_than_the_bound(call):
    with pytest.raises(UsageError, match=f"from 1 to {MAX_RESAMPLES:,}"):
        call(10 ** 8)


def _cli(*args: str, tmp_path) -> subprocess.CompletedProcess:
    env = {**os.environ, "BIASATLAS_CACHE_DIR": str(tmp_path / "cache")}
    return subprocess.run([sys.executable, "-m", "biasatlas", *args], capture_output=True, text=True,
                          timeout=240, env=env)


@pytest.mark.slow  # a subprocess or the full data: the full suite runs it, the fast loop does not
def test_run_with_a_negative_seed_is_one_line_and_writes_nothing(tmp_path):
    out = tmp_path / "run"
    done = _cli("run", "census", "--country", "no", "--sample", "3", "--seed", "-1", "--model", "fake",
                "--out", str(out), tmp_path=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "seed must be a whole number 0 or more" in done.stderr
    assert not (out / "summary.json").exists()


@pytest.mark.slow  # a subprocess or the full data: the full suite runs it, the fast loop does not
def test_report_with_a_negative_seed_is_one_line(tmp_path):
    runs = [census_run(tmp_path / "a"), census_run(tmp_path / "b", model="other"), crows_run(tmp_path / "c")]
    done = _cli("report", *map(str, runs), "--seed", "-1", "--out", str(tmp_path / "r.md"), tmp_path=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "seed must be a whole number 0 or more" in done.stderr, done.stderr
