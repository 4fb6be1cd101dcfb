"""The Ray engine writes the run folder a local run writes, to the byte, for every benchmark.

Each benchmark runs on a tiny model twice: with the local engine, and on a Ray Data actor
pool of two workers (a local Ray instance with two CPUs, shared by the slow tests), each
worker building its own scorer from a factory. Both score the same chunks, so every
float, and hence every output file but timing.json, is identical. Also: chunks already
in the score cache are not sent to the workers, and what the workers counted adds up to
the local run's counts. The fast tests check the engine contract without Ray: chunk
boundaries, results arriving out of order, the engine settings a command line can get wrong.
"""

from __future__ import annotations

import csv
import functools
import json
from pathlib import Path

import pytest

from biasatlas.benchmarks.census import Census
from biasatlas.benchmarks.crows_pairs import CrowsPairs
from biasatlas.benchmarks.zh_neutral import ZhNeutral
from biasatlas.cache import ScoreCache
from biasatlas.errors import ModelError, UsageError
from biasatlas import pipeline
from biasatlas.pipeline import chunked, run_benchmark
from biasatlas.probes import SentenceProbe
from biasatlas.registry import load_scorer
from biasatlas.runs.folder import write_run
from biasatlas.scorers.engines import LocalEngine, RayEngine, make_engine
from biasatlas.scorers.fake import FakeScorer



def on_ray(test):
    """A test on the module's Ray instance: slow (every run starts worker processes that
    import torch and load a model)."""
    for mark in (pytest.mark.slow, pytest.mark.usefixtures("ray_instance"),
                 pytest.mark.filterwarnings("ignore::DeprecationWarning")):
        test = mark(test)
    return test

FILES = ("config.json", "items.jsonl", "skipped.jsonl", "summary.json")
LONG_ROW = 150  # the pair too long for the tiny models (256 positions): an unscorable probe
# A model scorer's chunks are as large as a job (pipeline.chunked, per_batch): 300 probes would be
# one chunk, so the runs on Ray cut chunks of at most 128 (pipeline.JOB_PROBES, the driver's: each
# is one job on the workers, whose jobs take up to batching.JOB_PROBES), three for two workers.
RAY_CHUNK = 128


@pytest.fixture(scope="module")
def ray_instance():
    """One local Ray instance for the module (the engines join it): two CPUs, no dashboard.

    This process scores with one torch thread, and so do the workers (they take the
    driver's count): two workers of two threads on two shared cores spend most of their
    time waiting for each other.
    """
    ray = pytest.importorskip("ray")
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def crows_file(shared_data, tmp_path_factory) -> Path:
    """300 English CrowS-Pairs: the first 299 of the shared file and, at row 150, one pair
    longer than the tiny models read, which the scorer must refuse with a reason. In chunks of
    at most ``RAY_CHUNK`` (``small_chunks``), probes 0–99, 100–199 and 200–299: three chunks for
    two workers, the long pair in the second."""
    source = shared_data / "crows-pairs-en" / "crows_pairs_anonymized.csv"
    with source.open(encoding="utf-8", newline="") as handle:
        rows = [r for _, r in zip(range(299), csv.DictReader(handle))]
    long = "word " * 400
    rows.insert(LONG_ROW, {**rows[0], "": "long", "sent_more": f"She {long}.", "sent_less": f"He {long}."})
    path = tmp_path_factory.mktemp("crows") / "pairs.csv"
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


@pytest.fixture(scope="module")
def zh_file(tmp_path_factory) -> Path:
    """The zh-neutral demo set three times over, with distinct texts: 240 probes, two chunks."""
    from biasatlas.benchmarks.zh_neutral.data import demo_path

    rows = []
    for copy in range(3):
        for line in demo_path().read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            prefix = f"第{copy}条："
            row.update(id=f"{row['id']}-{copy}", sentence=prefix + row["sentence"],
                       offset=row["offset"] + len(prefix))
            rows.append(json.dumps(row, ensure_ascii=False))
    path = tmp_path_factory.mktemp("zh") / "zh.jsonl"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def small_chunks(monkeypatch):
    """A model scorer's runs cut in chunks of at most ``RAY_CHUNK`` probes (see there)."""
    monkeypatch.setattr(pipeline, "JOB_PROBES", RAY_CHUNK)


def _factory(model: Path, kind: str):
    return functools.partial(load_scorer, str(model), kind, batch_size=16)


def _both(benchmark, factory, root: Path, **kw):
    """The run folders of a local run and of a two-worker Ray run, and both runs."""
    # one thread, as the workers take (ray_instance): the local engine's default reads the load,
    # and two threads give other last bits (RayEngine's docstring)
    local = run_benchmark(benchmark, factory(), engine=LocalEngine(threads=1), **kw)
    remote = run_benchmark(benchmark, factory(), engine=RayEngine(factory, workers=2), **kw)
    write_run(local, root / "local")
    write_run(remote, root / "ray")
    return local, remote


def _assert_identical(root: Path) -> None:
    for name in FILES:
        assert (root / "ray" / name).read_bytes() == (root / "local" / name).read_bytes(), name


# -- without Ray: the engine contract ----------------------------------------------------------
@pytest.mark.parametrize("n,sizes", [
    (0, []), (9, [9]), (16, [16]), (17, [16, 1]),  # at least 16 (pipeline.MIN_SMALL_CHUNK)
    (100, [16] * 6 + [4]),  # at most two chunks of the 128 minimum: cut in tenths (10), at least 16
    (108, [16] * 6 + [12]), (256, [26] * 9 + [22]),  # ceil(n / 10) each once that is over 16
    (257, [128, 128, 1]),  # over two minimum chunks: the minimum again
    (300, [128, 128, 44]),  # a tenth (30) is under the minimum: chunks of 128
    (2000, [200] * 10),  # a tenth
    (3000, [256] * 11 + [184]),  # a tenth (300) is over the 256 maximum
])
def test_chunks_depend_on_the_probe_count_only(n, sizes):
    probes = [SentenceProbe(str(i), f"s{i}") for i in range(n)]
    chunks = chunked(probes)
    assert [len(c) for c in chunks] == sizes
    assert [p for c in chunks for p in c] == probes


@pytest.mark.parametrize("n,sizes", [
    (0, []), (9, [9]), (100, [100]), (1024, [1024]),  # a model scorer's run of up to a job: one chunk
    (1025, [513, 512]), (1508, [754, 754]),  # the fewest chunks of at most 1,024, of equal sizes
    (3000, [1000] * 3), (3073, [769] * 3 + [766]),
])
def test_chunks_of_a_scorer_committing_its_batches_are_as_large_as_a_job(n, sizes):
    probes = [SentenceProbe(str(i), f"s{i}") for i in range(n)]
    chunks = chunked(probes, per_batch=True)
    assert [len(c) for c in chunks] == sizes
    assert [p for c in chunks for p in c] == probes


class _Reversed(LocalEngine):
    """Scores every chunk first, then hands them back last to first: a pool whose
    later chunks finished first."""

    def score_chunks(self, scorer, chunks, progress, answered=frozenset(), *, keep=None):
        return reversed(list(super().score_chunks(scorer, chunks, progress, answered, keep=keep)))


def test_chunks_arriving_out_of_order_make_the_same_run(tmp_path, crows_file):
    bench = CrowsPairs(dataset=None, data=crows_file)
    local = run_benchmark(bench, FakeScorer())
    cache = ScoreCache(tmp_path / "scores.sqlite")
    backwards = run_benchmark(bench, FakeScorer(), cache=cache, engine=_Reversed())
    write_run(local, tmp_path / "local")
    write_run(backwards, tmp_path / "ray")
    _assert_identical(tmp_path)
    assert cache.count() == 300  # every chunk committed, whatever its order
    assert local.timing["engine"]["name"] == "local"


def test_engine_settings_a_command_line_gets_wrong_are_usage_errors():
    factory = functools.partial(load_scorer, "fake", "auto")
    with pytest.raises(UsageError, match="'local' or 'ray'"):
        make_engine("dask", factory)
    with pytest.raises(UsageError, match="factory"):
        make_engine("ray")
    with pytest.raises(UsageError, match="--device cuda, not cuda:1"):
        make_engine("ray", factory, device="cuda:1")
    with pytest.raises(UsageError, match="at least one worker"):
        make_engine("ray", factory, workers=0)
    assert isinstance(make_engine("local"), LocalEngine)
    # One GPU per worker when the scorer runs on CUDA, none on CPUs, unless told.
    assert make_engine("ray", factory, device="cuda").worker_gpus == 1
    assert make_engine("ray", factory).worker_gpus == 0
    assert make_engine("ray", factory, device="cuda", worker_gpus=2).worker_gpus == 2


# -- on Ray ------------------------------------------------------------------------------------
@on_ray
@pytest.mark.parametrize("benchmark,model,kind", [
    ("crows-pairs", "tiny_bert", "masked-lm"),
    ("census", "tiny_gpt2", "causal-lm"),  # continuation probes (the conditional reading)
    ("census", "tiny_bert", "masked-lm"),  # slot probes
    ("zh-neutral", "tiny_chinese_bert", "masked-lm"),
])
def test_a_ray_run_folder_is_byte_identical_to_a_local_one(request, tmp_path, crows_file, zh_file, small_chunks,
                                                           benchmark, model, kind):
    bench = {"crows-pairs": lambda: CrowsPairs(dataset=None, data=crows_file),
             "census": lambda: Census(country="us", sample=15, seed=3),
             "zh-neutral": lambda: ZhNeutral(data=zh_file, n_resamples=200)}[benchmark]()
    local, remote = _both(bench, _factory(request.getfixturevalue(model), kind), tmp_path)
    _assert_identical(tmp_path)
    assert local.summary["provenance"]["n_probes"] > RAY_CHUNK  # more than one chunk
    # The workers' counts, summed, are the local scorer's: the same rows in the same batches.
    assert remote.timing["counters"] == local.timing["counters"]
    assert local.timing["counters"]["rows_computed"] > 0
    engine = remote.timing["engine"]
    assert (engine["name"], engine["workers"]) == ("ray", 2) and engine["workers_used"] >= 1
    assert engine["threads"] == 1  # the driver's torch threads (see ray_instance)
    assert local.timing["engine"]["name"] == "local"


class _Recording(RayEngine):
    """A Ray engine that remembers the probe ids of every chunk it was sent."""

    def __init__(self, *args, **kw) -> None:
        super().__init__(*args, **kw)
        self.sent: list[list[str]] = []

    def score_chunks(self, scorer, chunks, progress, answered=frozenset(), *, keep=None):
        self.sent = [[p.id for p in chunk] for chunk in chunks]
        return super().score_chunks(scorer, chunks, progress, answered, keep=keep)


@on_ray
def test_a_resumed_ray_run_scores_only_the_uncached_chunks(tmp_path, tiny_bert, crows_file, small_chunks):
    factory = _factory(tiny_bert, "masked-lm")
    bench = CrowsPairs(dataset=None, data=crows_file)
    reference = run_benchmark(bench, factory(), engine=LocalEngine(threads=1))  # uncached, local, as _both
    probes = bench.probes(bench.load())
    assert len(probes) == 300
    scorer = factory()
    cache = ScoreCache(tmp_path / "scores.sqlite")
    for done in (probes[:100], probes[200:]):  # chunks 0 and 2 finished before a kill
        cache.put(scorer.fingerprint(), done, scorer.score(done))
    engine = _Recording(factory, workers=2)
    resumed = run_benchmark(bench, scorer, cache=cache, engine=engine)
    assert engine.sent == [[p.id for p in probes[100:200]]]  # chunk 1, whole, and nothing else
    assert (resumed.timing["cache_hits"], resumed.timing["scored"]) == (200, 100)
    # The worker's answers were committed, all but the pair too long to score (in chunk 1),
    # whose reason came back from the worker.
    assert cache.count(scorer.fingerprint()) == 299
    reason = next(s["reason"] for s in resumed.skipped if s["id"] == "long")
    assert "exceed" in reason
    write_run(reference, tmp_path / "local")
    write_run(resumed, tmp_path / "ray")
    _assert_identical(tmp_path)


@on_ray
def test_a_worker_with_another_scorer_is_refused(tmp_path, tiny_bert, crows_file):
    """A factory that builds another scorer (here: another variant) than the driver's would
    put its answers in the cache under the driver's key: the run stops instead."""
    other = functools.partial(load_scorer, str(tiny_bert), "masked-lm", batch_size=16, variant="aul")
    cache = ScoreCache(tmp_path / "scores.sqlite")
    with pytest.raises(ModelError, match="fingerprint"):
        run_benchmark(CrowsPairs(dataset=None, data=crows_file, limit=20), _factory(tiny_bert, "masked-lm")(),
                 cache=cache, engine=RayEngine(other, workers=1))
    assert cache.count() == 0


@on_ray
def test_a_worker_that_cannot_load_its_model_raises_the_typed_error(crows_file):
    broken = functools.partial(load_scorer, "/nonexistent/model-folder", "masked-lm")
    with pytest.raises(ModelError, match="does not exist"):
        run_benchmark(CrowsPairs(dataset=None, data=crows_file, limit=20), load_scorer("fake", "auto", variant=None),
                 engine=RayEngine(broken, workers=1))
