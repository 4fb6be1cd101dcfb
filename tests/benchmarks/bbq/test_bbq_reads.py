"""BBQ parses each data file once per version: a run's load, lint and config share one read."""

from __future__ import annotations

import os
import shutil

import pytest

from biasatlas.benchmarks.bbq import BBQ, data
from biasatlas.pipeline import run_benchmark
from biasatlas.registry import load_scorer


@pytest.fixture
def counted(monkeypatch):
    """The memo emptied, and a count of every parse of a category file and of the metadata."""
    data._examples.cache_clear()
    data._metadata.cache_clear()
    reads = {"bbq": 0, "metadata": 0}
    read_bbq, read_metadata = data.read_bbq, data.read_metadata

    def bbq(*args, **kwargs):
        reads["bbq"] += 1
        return read_bbq(*args, **kwargs)

    def metadata(*args, **kwargs):
        reads["metadata"] += 1
        return read_metadata(*args, **kwargs)

    monkeypatch.setattr(data, "read_bbq", bbq)
    monkeypatch.setattr(data, "read_metadata", metadata)
    yield reads
    data._examples.cache_clear()
    data._metadata.cache_clear()


def _folder(shared_data, tmp_path):
    folder = tmp_path / "bbq"
    folder.mkdir()
    for name in ("Religion.jsonl", "additional_metadata.csv"):
        shutil.copy(shared_data / "bbq" / name, folder)
    return folder


def test_a_run_parses_the_metadata_and_each_file_once(shared_data, tmp_path, counted):
    bench = BBQ(data=_folder(shared_data, tmp_path), category="Religion", sample=12, n_resamples=20)
    scorer = load_scorer("fake", "fake")
    first = bench.load()
    bench.config()
    run = run_benchmark(bench, scorer)  # binds (a new object), loads, builds the config again
    assert bench.bind(scorer.info).load() == first
    assert len(run.records) + len(run.skipped) == 12
    # before: five parses of each (two loads and a config here, a load and a config in the run)
    assert counted == {"bbq": 1, "metadata": 1}


def test_the_shared_read_equals_a_fresh_parse(shared_data, tmp_path, counted):
    folder = _folder(shared_data, tmp_path)
    bench = BBQ(data=folder, category="Religion")
    bench.load()
    fresh = data.read_bbq(folder / "Religion.jsonl", data.read_metadata(folder / "additional_metadata.csv"))
    assert bench.load() == fresh and len(fresh) == 1200  # PROVENANCE.md: Religion 1,200


def test_an_edited_file_is_read_again(shared_data, tmp_path, counted):
    folder = _folder(shared_data, tmp_path)
    bench = BBQ(data=folder, category="Religion")
    assert len(bench.load()) == 1200
    path = folder / "Religion.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    stat = path.stat()
    path.write_text("\n".join(lines[:5]) + "\n", encoding="utf-8")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))  # a later edit, whatever the clock's step
    assert [e.id for e in bench.load()] == [e.id for e in data.read_bbq(path, data.read_metadata(
        folder / "additional_metadata.csv"))]
    assert len(bench.load()) == 5
    # the file twice through the memo (before and after the edit), once directly; the unchanged
    # metadata once through the memo, once directly
    assert counted == {"bbq": 3, "metadata": 2}
