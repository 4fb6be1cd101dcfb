"""Kill a real run with SIGKILL halfway, rerun it, and get byte-identical outputs.

Also: the rerun scores only what was missing, and two runs sharing one cache at the same
time both finish with correct outputs.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from biasatlas.cache import ScoreCache
from biasatlas.probes import PairAnswer, PairProbe, SlotAnswer, SlotProbe

FILES = ("config.json", "items.jsonl", "summary.json", "skipped.jsonl")


def _command(model: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "biasatlas", "run", "crows-pairs", "--dataset", "fr+210",
            "--limit", "600", "--batch-size", "16", "--model", str(model), "--out", str(out)]


def _env(shared_data: Path, cache: Path) -> dict[str, str]:
    return {**os.environ, "BIASATLAS_DATA_DIR": str(shared_data), "BIASATLAS_CACHE_DIR": str(cache)}


def _cached(cache: Path) -> int:
    db = cache / "scores.sqlite"
    if not db.exists():
        return 0
    try:
        return sqlite3.connect(db, timeout=30).execute("SELECT COUNT(*) FROM answers").fetchone()[0]
    except sqlite3.OperationalError:  # the table is not created yet
        return 0


def _run(cmd, env) -> None:
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def uninterrupted(tiny_bert, shared_data, tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("clean")
    _run(_command(tiny_bert, root / "out"), _env(shared_data, root / "cache"))
    return root / "out"


def test_sigkill_then_resume_gives_identical_outputs(tiny_bert, shared_data, tmp_path, uninterrupted):
    env, out = _env(shared_data, tmp_path / "cache"), tmp_path / "out"
    proc = subprocess.Popen(_command(tiny_bert, out), env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.time() + 600
    while _cached(tmp_path / "cache") == 0 and proc.poll() is None and time.time() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, "the run finished before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    at_kill = _cached(tmp_path / "cache")
    assert 0 < at_kill < 596  # part of the 596 probes (600 pairs, 4 ties need no model)
    assert not (out / "summary.json").exists()  # an unfinished folder never looks finished

    _run(_command(tiny_bert, out), env)
    timing = json.loads((out / "timing.json").read_text())
    assert timing["cache_hits"] == at_kill
    assert timing["scored"] == 596 - at_kill  # only the remainder was scored
    for name in FILES:
        assert (out / name).read_bytes() == (uninterrupted / name).read_bytes(), name


def test_two_concurrent_runs_share_one_cache(tiny_bert, shared_data, tmp_path, uninterrupted):
    env = _env(shared_data, tmp_path / "cache")
    procs = [subprocess.Popen(_command(tiny_bert, tmp_path / f"out{i}"), env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
             for i in range(2)]
    for proc in procs:
        _, err = proc.communicate(timeout=900)
        assert proc.returncode == 0, err
    for i in range(2):
        for name in FILES:
            assert (tmp_path / f"out{i}" / name).read_bytes() == (uninterrupted / name).read_bytes()


def test_cache_round_trips_answers_exactly(tmp_path):
    cache = ScoreCache(tmp_path / "c.sqlite")
    probes = [PairProbe("a", "x y", "x z"), SlotProbe("s", "Le ", " est là.", ("père", "mère"))]
    answers = {"a": PairAnswer("a", -1.2345678901234567, -2.0, 3, 4),
               "s": SlotAnswer("s", (-0.1, -0.30000000000000004), (1, 2))}
    cache.put("fp", probes, answers)
    # Same content under another id: a hit, returned under the new id.
    renamed = [PairProbe("b", "x y", "x z")]
    assert cache.get("fp", renamed) == {"b": PairAnswer("b", -1.2345678901234567, -2.0, 3, 4)}
    assert cache.get("fp", probes[1:]) == {"s": answers["s"]}
    assert cache.get("other-model", probes) == {}
