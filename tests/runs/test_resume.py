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
from pathlib import Path

import pytest

from biasatlas.cache import TABLE, ScoreCache
from biasatlas.probes import PairAnswer, PairProbe, SlotAnswer, SlotProbe

FILES = ("config.json", "items.jsonl", "summary.json", "skipped.jsonl")


def _zh_data(folder: Path) -> Path:
    """The demo set ten times over (fresh ids, prefixed texts): enough work to kill halfway."""
    from biasatlas.benchmarks.zh_neutral.data import demo_path

    lines = demo_path().read_text(encoding="utf-8").splitlines()
    out = folder / "zh.jsonl"
    rows = []
    for copy in range(10):
        for line in lines:
            row = json.loads(line)
            prefix = f"第{copy}条："  # distinct texts, so the cache cannot answer copies
            row.update(id=f"{row['id']}-{copy}", sentence=prefix + row["sentence"],
                       offset=row["offset"] + len(prefix))
            rows.append(json.dumps(row, ensure_ascii=False))
    out.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return out


def _args(benchmark: str, data_dir: Path) -> list[str]:
    return {
        "crows-pairs": ["crows-pairs", "--dataset", "fr+210", "--limit", "300"],
        "census": ["census", "--country", "no", "--sample", "40"],
        "zh-neutral": ["zh-neutral", "--data", str(data_dir / "zh.jsonl")],
    }[benchmark]


def _command(model: Path, out: Path, benchmark: str = "crows-pairs", data_dir: Path | None = None) -> list[str]:
    return [sys.executable, "-m", "biasatlas", "run", *_args(benchmark, data_dir or out.parent),
            "--batch-size", "16", "--model", str(model), "--out", str(out)]


def _env(shared_data: Path, cache: Path) -> dict[str, str]:
    return {**os.environ, "BIASATLAS_DATA_DIR": str(shared_data), "BIASATLAS_CACHE_DIR": str(cache)}


def _cached(cache: Path) -> int:
    db = cache / "scores.sqlite"
    if not db.exists():
        return 0
    try:
        return sqlite3.connect(db, timeout=30).execute(f"SELECT COUNT(*) FROM {TABLE}").fetchone()[0]
    except sqlite3.OperationalError:  # the table is not created yet
        return 0


def _run(cmd, env) -> None:
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def uninterrupted(tiny_bert, shared_data, tmp_path_factory) -> Path:
    """One clean crows-pairs run (fresh cache): the reference for the kill and the concurrency tests."""
    root = tmp_path_factory.mktemp("clean")
    _run(_command(tiny_bert, root / "out"), _env(shared_data, root / "cache"))
    return root / "out"


def _model_for(benchmark: str, request) -> Path:
    return request.getfixturevalue("tiny_chinese_bert" if benchmark == "zh-neutral" else "tiny_bert")


@pytest.mark.parametrize("benchmark", ["crows-pairs", "census", "zh-neutral"])
@pytest.mark.slow
def test_sigkill_then_resume_gives_identical_outputs(benchmark, request, shared_data, tmp_path):
    model = _model_for(benchmark, request)
    _zh_data(tmp_path)
    if benchmark == "crows-pairs":  # the very run `uninterrupted` already made: share it
        clean = request.getfixturevalue("uninterrupted")
    else:
        clean = tmp_path / "clean"
        _run(_command(model, clean, benchmark, tmp_path), _env(shared_data, tmp_path / "clean-cache"))
    n_probes = json.loads((clean / "summary.json").read_text())["provenance"]["n_probes"]

    env, out = _env(shared_data, tmp_path / "cache"), tmp_path / "out"
    # killed by its own process right after its first commit of answers: a known point, no race
    command = _command(model, out, benchmark, tmp_path)
    killed = subprocess.run([command[0], str(Path(__file__).with_name("stopping.py")), "KILL", *command[3:]],
                            env=env, capture_output=True, timeout=900)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    at_kill = _cached(tmp_path / "cache")
    assert 0 < at_kill < n_probes
    assert not (out / "summary.json").exists()  # an unfinished folder never looks finished

    _run(_command(model, out, benchmark, tmp_path), env)
    timing = json.loads((out / "timing.json").read_text())
    assert timing["cache_hits"] >= at_kill  # identical probe texts count once in the cache
    assert timing["scored"] == n_probes - timing["cache_hits"]  # only the remainder was scored
    assert timing["scored"] > 0
    for name in FILES:
        assert (out / name).read_bytes() == (clean / name).read_bytes(), name


@pytest.mark.slow
def test_two_concurrent_runs_share_one_cache(tiny_bert, shared_data, tmp_path, uninterrupted):
    # One thread each: two spinning OpenMP pools on two cores slow both runs tenfold.
    env = {**_env(shared_data, tmp_path / "cache"), "OMP_NUM_THREADS": "1"}
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


def test_many_processes_can_open_a_new_cache_at_once(tmp_path):
    # Regression: two runs starting together once failed with "database is locked"
    # while switching the new database to WAL.
    code = ("import sys; from biasatlas.cache import ScoreCache; from biasatlas.probes import "
            "SentenceProbe, SentenceAnswer; c = ScoreCache(sys.argv[1]); "
            "p = [SentenceProbe(sys.argv[2], 'text ' + sys.argv[2])]; "
            "c.put('fp', p, {sys.argv[2]: SentenceAnswer(sys.argv[2], -1.0, 1)})")
    db = tmp_path / "shared.sqlite"
    procs = [subprocess.Popen([sys.executable, "-c", code, str(db), str(i)], stderr=subprocess.PIPE,
                              text=True) for i in range(6)]
    for proc in procs:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
    assert ScoreCache(db).count("fp") == 6
