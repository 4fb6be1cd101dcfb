"""SIGKILL of a multi-worker ``biasatlas mine``: no worker outlives its parent, and a rerun
resumes to the candidates of an uninterrupted run (docs/mining.md, "Resuming").

Processes are found through /proc: the command runs in its own session, so it and every
process it starts (pool workers, multiprocessing's resource tracker) share one process
group, whose id is the command's pid. Linux only.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from biasatlas.mining import MiningConfig, run_pipeline

GOLD = Path(__file__).resolve().parents[3] / "shared" / "data" / "zh-peoples-daily-ner-sample" / "example.dev.txt"
SHARD_BYTES = 20_000  # the sample's 325 kB of text → 17 shards, so both workers are busy

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")


def _daily_corpus(path: Path) -> Path:
    blocks = GOLD.read_text(encoding="utf-8").split("\n\n")
    sentences = ["".join(line.split(" ")[0] for line in block.splitlines() if line.strip())
                 for block in blocks]
    path.write_text("\n".join(s for s in sentences if s) + "\n", encoding="utf-8")
    return path


def _live_group(pgid: int) -> set[int]:
    """Pids of the live (not zombie) processes in process group ``pgid``."""
    pids = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path("/proc", entry, "stat").read_text()
        except OSError:  # gone meanwhile
            continue
        state, _ppid, pgrp = stat.rsplit(")", 1)[1].split()[:3]
        if int(pgrp) == pgid and state not in "ZX":
            pids.add(int(entry))
    return pids


def _mine(corpus: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "biasatlas", "mine", "--corpus", str(corpus), "--out", str(out),
            "--workers", "2", "--shard-bytes", str(SHARD_BYTES)]


@pytest.mark.slow
def test_sigkill_of_mine_kills_its_workers_and_a_rerun_resumes(tmp_path):
    if not GOLD.exists():
        pytest.skip("People's Daily sample not present")
    corpus = _daily_corpus(tmp_path / "daily.txt")
    out = tmp_path / "out"
    log = (tmp_path / "killed.log").open("wb")
    parent = subprocess.Popen(_mine(corpus, out), stdout=log, stderr=subprocess.STDOUT,
                              start_new_session=True)
    names = out / "stages" / "names"
    try:
        # Kill once the last stage has finished a shard: the workers are then loaded and busy.
        deadline = time.monotonic() + 45
        while not any(names.glob("shard-*.manifest.json")):
            assert parent.poll() is None, "mine ended before it could be killed"
            assert time.monotonic() < deadline, "mine never reached the names stage"
            time.sleep(0.02)
        workers = _live_group(parent.pid) - {parent.pid}
        assert parent.poll() is None, "mine ended before it could be killed"
        assert len(workers) >= 2, workers  # two pool workers (+ the resource tracker)
        finished = {p: p.stat().st_mtime_ns for p in names.glob("shard-*.manifest.json")}
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()

        deadline = time.monotonic() + 5
        while (survivors := _live_group(parent.pid)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not survivors, f"processes of the killed mine still alive after 5 s: {survivors}"
    finally:
        log.close()
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        if _live_group(parent.pid):  # old behaviour: do not leave them running
            os.killpg(parent.pid, signal.SIGKILL)
    assert not (out / "candidates.jsonl").exists()

    rerun = subprocess.run(_mine(corpus, out), capture_output=True, timeout=120)
    assert rerun.returncode == 0, rerun.stderr.decode(errors="replace")[-3000:]
    for manifest, stamp in finished.items():  # finished shards were reused, not redone
        assert manifest.stat().st_mtime_ns == stamp
    assert not list(out.rglob("*.tmp")), "temporary files left behind"

    clean = run_pipeline([corpus], tmp_path / "clean", MiningConfig(shard_bytes=SHARD_BYTES))
    assert (out / "candidates.jsonl").read_bytes() == clean.candidates_path.read_bytes()
    assert clean.n_candidates > 90
