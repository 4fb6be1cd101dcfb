"""Throughput of the mining pipeline (``biasatlas mine``) on a synthetic newspaper corpus.

Builds a corpus of ``--mb`` megabytes in a temporary folder by recombining clauses of the
People's Daily sample and the CHBias gender sentences (so sentences are new and few are
duplicates, while keyword density stays that of real text), runs the whole pipeline with
1 and with 2 local workers, and prints characters per second per core and the time the
SlguSet source corpus (10 billion characters) would take.

    .venv/bin/python bench/speed/bench_mining.py --mb 300
"""

from __future__ import annotations

import argparse
import os
import random
import re
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

from biasatlas.mining import MiningConfig, run_pipeline

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
SLGUSET_CHARS = 10_000_000_000


def daily_sentences() -> list[str]:
    daily, chars = [], []
    for line in (DATA / "zh-peoples-daily-ner-sample" / "example.dev.txt").read_text(
            encoding="utf-8").splitlines():
        if line.strip():
            chars.append(line.split(" ")[0])
        elif chars:
            daily.append("".join(chars))
            chars = []
    return daily


def weibo_sentences() -> list[str]:
    out = []
    for name in ("gender_female_test.txt", "gender_male_test.txt", "gender_train.txt",
                 "gender_female_valid.txt", "gender_male_valid.txt"):
        out += [s.strip() for s in (DATA / "zh-chbias-gender" / name).read_text(
            encoding="utf-8").splitlines() if s.strip()]
    return out


def _clauses(sentences: list[str]) -> list[str]:
    return [c for s in sentences for c in re.split(r"[，。！？；]", s) if len(c) > 1]


def build_corpus(path: Path, megabytes: int, seed: int = 0, weibo_share: float = 0.1) -> int:
    """Write documents of 3–12 sentences, each of 1–4 random clauses; return characters.

    Clauses come from the newspaper sample, and a ``weibo_share`` of them from CHBias,
    whose every sentence is gendered: a larger share would overstate keyword density.
    """
    rng = random.Random(seed)
    daily, weibo = _clauses(daily_sentences()), _clauses(weibo_sentences())
    ends = "。。。。！？；"
    target, written, chars = megabytes << 20, 0, 0

    def clause() -> str:
        return rng.choice(weibo if rng.random() < weibo_share else daily)

    with open(path, "w", encoding="utf-8") as handle:
        while written < target:
            doc = "".join("，".join(clause() for _ in range(rng.randint(1, 4))) + rng.choice(ends)
                          for _ in range(rng.randint(3, 12)))
            handle.write(doc + "\n")
            written += len(doc.encode("utf-8")) + 1
            chars += len(doc)
    return chars


def _cpu_seconds() -> float:
    """CPU time of this process plus its finished children (the pool's workers)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def run(corpus: Path, out: Path, workers: int, shard_mb: int) -> tuple[float, float]:
    shutil.rmtree(out, ignore_errors=True)
    marks: dict[str, list[float]] = {}

    def progress(stage: str, done: int, total: int) -> None:
        marks.setdefault(stage, [time.perf_counter()]).append(time.perf_counter())

    start, cpu_start = time.perf_counter(), _cpu_seconds()
    config = MiningConfig(workers=workers, shard_bytes=shard_mb << 20)
    report = run_pipeline([corpus], out, config, progress)
    elapsed, cpu = time.perf_counter() - start, _cpu_seconds() - cpu_start
    stages = report.card["stages"]
    print(f"  workers={workers}: {elapsed:7.1f} s wall, {cpu:7.1f} s CPU, {stages['match']['sentences']:,} sentences, "
          f"{stages['match']['out']:,} with a keyword string, {stages['names']['in']:,} reach "
          f"the name filter, {report.n_candidates:,} candidates", flush=True)
    print("    stage wall time: " + ", ".join(
        f"{stage} {t[-1] - t[0]:.1f} s" for stage, t in marks.items()), flush=True)
    return elapsed, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=300, help="corpus size in MiB")
    parser.add_argument("--shard-mb", type=int, default=16)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench_mining_") as tmp:
        corpus = Path(tmp) / "corpus.txt"
        start = time.perf_counter()
        chars = build_corpus(corpus, args.mb)
        load = os.getloadavg()[0]
        print(f"corpus: {corpus.stat().st_size / 2**20:.0f} MiB, {chars:,} characters "
              f"(built in {time.perf_counter() - start:.0f} s); machine: {os.cpu_count()} CPUs, "
              f"Python {sys.version.split()[0]}, load average {load:.1f} before the runs", flush=True)
        for workers in args.workers:
            elapsed, cpu = run(corpus, Path(tmp) / f"out{workers}", workers, args.shard_mb)
            wall_rate, cpu_rate = chars / elapsed, chars / cpu
            # Per core two ways: wall-clock rate / workers (what a user sees; shrinks when
            # other jobs share the cores) and characters per CPU-second (load-independent).
            print(f"    {wall_rate / 1e6:.3f} M chars/s wall ({wall_rate / workers / 1e6:.3f} per "
                  f"worker), {cpu_rate / 1e6:.3f} M chars per CPU-second; 10 billion characters: "
                  f"{SLGUSET_CHARS / cpu_rate / 3600:.0f} core-hours, "
                  f"{SLGUSET_CHARS / cpu_rate / 3600 / workers:.1f} h on {workers} free core(s)",
                  flush=True)


if __name__ == "__main__":
    main()
