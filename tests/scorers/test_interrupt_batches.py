"""Ctrl-C inside a chunk keeps the chunk's finished batches (issue 22 item 5), and the rerun
scores the rest of that chunk in the batches the uninterrupted run used, so its run folder is
byte-identical to an uninterrupted run's; the progress bar moves per batch. A kill keeps them
too: each batch's answers are committed as it finishes, so a small run is one chunk, its batches
planned over all of it (issue 47 deliverable 2).

The planted scorer makes batch composition visible: a row's value depends on its batch's
width and size, so a leftover probe scored in any other batch than the uninterrupted run's
gets another number (the control test shows it), and the byte comparison would fail.
"""

from __future__ import annotations

import csv
from functools import partial
from pathlib import Path

import pytest

from biasatlas.benchmarks.census import Census
from biasatlas.benchmarks.crows_pairs import CrowsPairs
from biasatlas.cache import ScoreCache
from biasatlas.errors import RunInterrupted
from biasatlas.pipeline import chunked, run_benchmark
from biasatlas.probes import PairAnswer, ScorerInfo
from biasatlas.registry import load_scorer
from biasatlas.runs.folder import write_run
from biasatlas.scorers.base import ModelScorer
from biasatlas.scorers.job import Job
from biasatlas.scorers.batching import Row, chunks, launch_target_sums
from biasatlas.scorers.resume import EVERY_ROW

N = 100  # pairs
FILES = ("config.json", "items.jsonl", "skipped.jsonl", "summary.json")
ROWS = 4  # the toy's rows per batch


class Toy(ModelScorer):
    """CrowS-Pairs by a planted model: each sentence is one row (its UTF-8 bytes), rows are
    length-sorted and cut ``ROWS`` at a time, and a row's value is its byte sum / 997 plus its
    batch's width / 7 and size / 13. It raises ``stop`` (Ctrl-C; :class:`Killed`, a kill the
    pipeline cannot see coming) instead of computing its ``stop_at``-th batch, and records the
    batches it computed."""

    name = "toy"
    variant = "planted"

    def __init__(self, stop_at: int | None = None, stop: type[BaseException] = KeyboardInterrupt) -> None:
        self.batch_size, self.stop_at, self.stop = ROWS, stop_at, stop
        self.batches: list[tuple[Row, ...]] = []

    @property
    def info(self) -> ScorerInfo:
        return ScorerInfo(kind=self.name, reads="sequence")

    def _pair_jobs(self, probes):
        requests = [(_row(s), (0,)) for p in probes for s in (p.a, p.b)]
        yield Job(requests, partial(_pair_answers, probes), len(probes), [(p.id, 2) for p in probes])

    def logprob_sums(self, requests, work=None):
        return self._launch(requests, {} if work is None else work)()

    def _launch(self, requests, work, watch=EVERY_ROW):
        return launch_target_sums(list(requests), self._cut, self._values, work, watch)

    def _cut(self, rows):
        return chunks(sorted(rows, key=lambda r: len(r.ids)), ROWS)

    def _values(self, rows, picks):
        if len(self.batches) + 1 == self.stop_at:
            raise self.stop
        self.batches.append(tuple(rows))
        width = max(len(r.ids) for r in rows)
        return [sum(rows[i].ids) / 997 + width / 7 + len(rows) / 13 for i in picks.row]

    def describe(self):
        return {"scorer": self.name, "model": "toy", "variant": self.variant, "batch_size": ROWS}


class Killed(BaseException):
    """The process dying where it stands: nothing in the pipeline catches it (a SIGKILL's effect on
    the cache, in process)."""


def _row(text: str) -> Row:
    return Row(tuple(text.encode("utf-8")), (0,))


def _pair_answers(probes, values):
    return [PairAnswer(p.id, values[2 * i], values[2 * i + 1]) for i, p in enumerate(probes)]


@pytest.fixture(scope="module")
def pairs(shared_data, tmp_path_factory) -> Path:
    """The first 100 English pairs: one chunk (pipeline.chunked), 50 toy batches."""
    source = shared_data / "crows-pairs-en" / "crows_pairs_anonymized.csv"
    with source.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        rows = [r for _, r in zip(range(N), reader)]
        fields = reader.fieldnames
    path = tmp_path_factory.mktemp("crows") / "pairs.csv"
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
    return path


def _sorted_texts(chunk) -> list[str]:
    """The chunk's distinct sentences in the order the toy computes them: first seen first,
    then by length (a stable sort), as its batches are cut."""
    return sorted(dict.fromkeys(s for p in chunk for s in (p.a, p.b)), key=lambda s: len(s.encode("utf-8")))


def _batches_of(chunk) -> list[list[str]]:
    texts = _sorted_texts(chunk)
    return [texts[i:i + ROWS] for i in range(0, len(texts), ROWS)]


def _same_folders(a: Path, b: Path) -> None:
    for name in FILES:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


def _finished(batches: list[list[str]], probes) -> set[str]:
    """The pairs whose two sentences are in ``batches``."""
    ran = {s for batch in batches for s in batch}
    return {p.id for p in probes if p.a in ran and p.b in ran}


def test_a_small_run_is_one_chunk_batched_as_a_whole(pairs):
    """On 76950b6 the 100 pairs were seven chunks of tenths, each batched on its own (its rows
    length-sorted within it; 23 forward passes of SmolLM2 on these pairs, 9 now), for durability
    a per-batch commit now gives."""
    bench = CrowsPairs(dataset=None, data=pairs)
    probes = bench.probes(bench.load())
    assert [len(c) for c in chunked(probes, per_batch=True)] == [N]
    toy = Toy()
    run = run_benchmark(bench, toy)
    expected = _batches_of(probes)  # every distinct sentence, length-sorted, four at a time
    assert len(expected) == -(-len({s for p in probes for s in (p.a, p.b)}) // ROWS)
    assert [[bytes(r.ids).decode("utf-8") for r in b] for b in toy.batches] == expected
    assert run.timing["counters"]["batches"] == len(expected)


@pytest.mark.parametrize("stop", [KeyboardInterrupt, Killed])
def test_a_run_stopped_in_a_chunk_keeps_its_finished_batches_and_the_rerun_is_byte_identical(pairs, tmp_path, stop):
    """Ctrl-C, or a kill (nothing in the pipeline runs after it), at the third batch: the pairs
    whose sentences both ran in batches 1 and 2 are in the cache, committed as those batches
    finished (on 76950b6 a kill kept nothing: the first chunk of 16 pairs had 8 batches)."""
    bench = CrowsPairs(dataset=None, data=pairs)
    probes = bench.probes(bench.load())
    reference = Toy()
    clean = run_benchmark(bench, reference)  # uncached, uninterrupted
    cache = ScoreCache(tmp_path / "scores.sqlite")
    with pytest.raises(RunInterrupted if stop is KeyboardInterrupt else Killed) as stopped:
        run_benchmark(bench, Toy(stop_at=3, stop=stop), cache=cache)
    finished = _finished(_batches_of(probes)[:2], probes)
    assert 0 < len(finished) < N
    assert set(cache.get(Toy().fingerprint(), probes)) == finished
    if stop is KeyboardInterrupt:
        kept = len(finished)
        assert (stopped.value.kept, stopped.value.total) == (kept, N)
        assert str(stopped.value) == f"interrupted: {kept} of {N} answers kept; rerun the same command to resume"

    resumer = Toy()
    resumed = run_benchmark(bench, resumer, cache=cache)
    assert (resumed.timing["cache_hits"], resumed.timing["scored"]) == (len(finished), N - len(finished))
    # The rerun computed exactly the batches that hold a sentence of an unfinished pair, cut as
    # the clean run cut them.
    wanted = {s for p in probes if p.id not in finished for s in (p.a, p.b)}
    expected = [b for b in _batches_of(probes) if wanted.intersection(b)]
    assert [[bytes(r.ids).decode("utf-8") for r in b] for b in resumer.batches] == expected
    assert len(expected) < len(_batches_of(probes))  # finished batches skipped
    assert set(resumer.batches) <= set(reference.batches)
    write_run(clean, tmp_path / "clean")
    write_run(resumed, tmp_path / "resumed")
    _same_folders(tmp_path / "clean", tmp_path / "resumed")


def test_the_toy_scores_a_leftover_batched_alone_otherwise(pairs):
    """The control: the unfinished pairs of a chunk scored on their own (re-batched) get other
    numbers, so the byte comparison above would catch a rerun that re-planned its batches."""
    bench = CrowsPairs(dataset=None, data=pairs)
    second = bench.probes(bench.load())[16:32]
    whole = Toy().score(second)
    leftover = [p for p in second if p.id not in set(list(whole)[:6])]
    alone = Toy().score(leftover)
    assert any(alone[p.id] != whole[p.id] for p in leftover)
    again = Toy().score(second, answered={p.id for p in second} - {p.id for p in leftover})
    assert all(again[p.id] == whole[p.id] for p in leftover) and len(again) == len(leftover)


def test_without_a_cache_the_finished_batches_are_counted_not_kept(pairs):
    bench = CrowsPairs(dataset=None, data=pairs)
    probes = bench.probes(bench.load())
    with pytest.raises(RunInterrupted) as stopped:
        run_benchmark(bench, Toy(stop_at=3))
    scored = len(_finished(_batches_of(probes)[:2], probes))
    assert str(stopped.value) == (f"interrupted: nothing kept ({scored} of {N} answers were scored, "
                                  "but with no score cache)")


def test_the_progress_bar_moves_per_batch(pairs, monkeypatch):
    """One update per batch that finishes a pair, by the pairs it finished (after the first,
    by the cached count: 0 here)."""
    import tqdm

    calls: list[int] = []
    real = tqdm.tqdm.update

    def counting(self, n=1):
        calls.append(n)
        return real(self, n)

    monkeypatch.setattr(tqdm.tqdm, "update", counting)
    bench = CrowsPairs(dataset=None, data=pairs)
    run_benchmark(bench, Toy(), progress=True)
    probes = bench.probes(bench.load())
    expected = [0]
    ran: set[str] = set()
    for batch in _batches_of(probes):
        before = sum(p.a in ran and p.b in ran for p in probes)
        ran.update(batch)
        if (now := sum(p.a in ran and p.b in ran for p in probes)) > before:
            expected.append(now - before)
    assert calls == expected
    assert sum(calls) == N and len(calls) > 2  # finer than the one chunk


def _stopping(scorer, at: int, engine_call: str):
    """``scorer`` pressing Ctrl-C instead of computing its ``at``-th batch (``engine_call``: its
    engine's one call per batch); ``delattr(scorer, engine_call)`` restores it."""
    real, seen = getattr(scorer, engine_call), []

    def stopping(*args, **kw):
        seen.append(1)
        if len(seen) == at:
            raise KeyboardInterrupt
        return real(*args, **kw)

    setattr(scorer, engine_call, stopping)


@pytest.mark.slow  # 3 to 32 s each: three census runs on a tiny model
@pytest.mark.parametrize("kind,model,rows,stop,bench", [
    # continuation probes of 15 contexts each, rows sharing prefixes: 15 batches in the first chunk
    ("causal-lm", "tiny_gpt2", 16, 8, lambda: Census(country="no", sample=7, seed=1)),
    ("masked-lm", "tiny_bert", 4, 3, lambda: Census(country="no", sample=3, seed=1)),  # slot probes: 8 batches
    ("seq2seq", "tiny_bart", 4, 20, lambda: Census(country="no", sample=3, seed=1)),  # 56 batches
])
def test_a_tiny_model_stopped_mid_chunk_resumes_to_the_same_bits(request, tmp_path, kind, model, rows, stop, bench):
    path = str(request.getfixturevalue(model))
    scorer = load_scorer(path, kind, batch_size=rows)
    clean = run_benchmark(bench(), load_scorer(path, kind, batch_size=rows))
    cache = ScoreCache(tmp_path / "scores.sqlite")
    engine_call = "_batch_sums" if kind == "seq2seq" else "_target_logprobs"
    _stopping(scorer, stop, engine_call)
    with pytest.raises(RunInterrupted) as stopped:
        run_benchmark(bench(), scorer, cache=cache)
    bound = bench().bind(scorer.info)
    first = chunked(bound.probes(bound.load()), per_batch=True)[0]
    assert scorer.plan(first)["batches"] > stop  # stopped inside the first chunk: a chunk commit keeps nothing
    assert 0 < stopped.value.kept < len(first)
    assert cache.count() == stopped.value.kept
    delattr(scorer, engine_call)
    resumed = run_benchmark(bench(), scorer, cache=cache)
    assert resumed.timing["cache_hits"] == stopped.value.kept
    write_run(clean, tmp_path / "clean")
    write_run(resumed, tmp_path / "resumed")
    _same_folders(tmp_path / "clean", tmp_path / "resumed")


def test_an_encoder_stopped_mid_call_keeps_its_finished_batches(tiny_bert):
    """The encoder batches texts by (length, text) per pooling, four at a time here: stopped at
    its second batch it keeps the probes of the first, and told they are answered it computes
    the other batches only, to the vectors of an uninterrupted call."""
    from biasatlas.probes import EmbeddingProbe
    from biasatlas.scorers.resume import Interrupted

    texts = [f"{'a' * (i % 5)} sentence number {i}." for i in range(12)]
    probes = [EmbeddingProbe(f"p{i}", t, "mean") for i, t in enumerate(texts)]
    whole = load_scorer(str(tiny_bert), "encoder", batch_size=4).score(probes)
    scorer = load_scorer(str(tiny_bert), "encoder", batch_size=4)
    _stopping(scorer, 2, "_batch")
    with pytest.raises(Interrupted) as stopped:
        scorer.score(probes)
    first = set(sorted(texts, key=lambda t: (len(t), t))[:4])
    assert set(stopped.value.finished) == {p.id for p in probes if p.text in first}
    delattr(scorer, "_batch")
    rest = scorer.score(probes, answered=set(stopped.value.finished))
    assert set(rest) == {p.id for p in probes if p.text not in first}
    assert all(rest[pid] == whole[pid] for pid in rest)
    assert scorer.plan(probes, set(stopped.value.finished)) == {"rows_computed": 8, "batches": 2}


@pytest.mark.slow  # builds a tiny BertForPreTraining (MLM and NSP heads): over a second
def test_an_nsp_head_stopped_mid_call_keeps_its_finished_batches(tiny_bert, tmp_path):
    """Next-sentence pairs go to the NSP head in batches of ``batch_size`` in probe order: stopped
    at the second batch the first batch's pairs are kept, and the rerun computes the others only,
    to the values of an uninterrupted call."""
    from biasatlas.scorers.resume import Interrupted

    probes = _nsp_probes(10)
    whole = load_scorer(_nsp_model(tiny_bert, tmp_path), "masked-lm", batch_size=4).score(probes)
    scorer = load_scorer(str(tmp_path), "masked-lm", batch_size=4)
    real = _stopping_at_second_batch(scorer._nsp)
    with pytest.raises(Interrupted) as stopped:
        scorer.score(probes)
    assert set(stopped.value.finished) == {"n0", "n1", "n2", "n3"}
    scorer._nsp.tokenizer = real
    ticks: list[int] = []
    rest = scorer.score(probes, ticks.append, answered=set(stopped.value.finished))
    assert set(rest) == {f"n{i}" for i in range(4, 10)} and all(rest[pid] == whole[pid] for pid in rest)
    assert ticks == [4, 2]  # one update per batch that ran: the first batch was skipped


def test_an_encoder_group_with_an_unscorable_text_keeps_only_what_an_uninterrupted_run_keeps(tiny_bert):
    """A text too long for the model fails its group, which is then scored text by text
    (``each_alone``), so an uninterrupted call gives every other text its vector computed alone.
    Stopped at its second forward, the call must keep only such a vector, never one of a batch
    the failing text's group ran before it failed (the rerun would hand that batched vector on)."""
    from biasatlas.probes import EmbeddingProbe
    from biasatlas.scorers.resume import Interrupted

    texts = [f"{'a' * (i % 5)} sentence number {i}." for i in range(8)] + ["word " * 600]
    probes = [EmbeddingProbe(f"p{i}", t, "mean") for i, t in enumerate(texts)]
    whole = load_scorer(str(tiny_bert), "encoder", batch_size=4).score(probes)
    assert set(whole.unscorable) == {"p8"} and len(whole) == 8
    scorer = load_scorer(str(tiny_bert), "encoder", batch_size=4)
    _stopping(scorer, 2, "_batch")
    with pytest.raises(Interrupted) as stopped:
        scorer.score(probes)
    assert set(stopped.value.finished) == {"p0"}  # each_alone's first text alone ran; the second was stopped
    delattr(scorer, "_batch")
    rest = scorer.score(probes, answered=set(stopped.value.finished))
    kept = {**stopped.value.finished, **rest.answers}
    assert kept.keys() == whole.answers.keys() and all(kept[pid] == whole[pid] for pid in kept)


@pytest.mark.slow  # builds a tiny BertForPreTraining (MLM and NSP heads): over a second
def test_an_nsp_call_with_a_too_long_pair_keeps_only_what_an_uninterrupted_run_keeps(tiny_bert, tmp_path):
    """A too-long pair fails the head's call, and each_alone scores the pairs one by one, so
    stopped at its second forward the call keeps the first pair's value computed alone (what an
    uninterrupted call gives it), never a batch computed before the long pair's batch failed."""
    from biasatlas.probes import NextSentenceProbe
    from biasatlas.scorers.resume import Interrupted

    probes = [*_nsp_probes(8), NextSentenceProbe("long", "The first.", "word " * 600)]  # last batch of four
    whole = load_scorer(_nsp_model(tiny_bert, tmp_path), "masked-lm", batch_size=4).score(probes)
    assert set(whole.unscorable) == {"long"} and len(whole) == 8
    scorer = load_scorer(str(tmp_path), "masked-lm", batch_size=4)
    real = _stopping_at_second_batch(scorer._nsp)
    with pytest.raises(Interrupted) as stopped:
        scorer.score(probes)
    assert set(stopped.value.finished) == {"n0"}  # n0 alone ran; n1 alone was stopped
    scorer._nsp.tokenizer = real
    rest = scorer.score(probes, answered=set(stopped.value.finished))
    kept = {**stopped.value.finished, **rest.answers}
    assert kept.keys() == whole.answers.keys() and all(kept[pid] == whole[pid] for pid in kept)


def _nsp_model(tiny_bert, folder) -> str:
    """A tiny BertForPreTraining (MLM and NSP heads) saved in ``folder``, with tiny BERT's tokenizer."""
    import torch
    import transformers

    torch.manual_seed(0)
    transformers.BertForPreTraining(transformers.AutoConfig.from_pretrained(tiny_bert)).eval().save_pretrained(
        folder, safe_serialization=True)
    transformers.AutoTokenizer.from_pretrained(tiny_bert).save_pretrained(folder)
    return str(folder)


def _nsp_probes(n: int):
    from biasatlas.probes import NextSentenceProbe

    return [NextSentenceProbe(f"n{i}", f"The first sentence {i}.", "A second one " * (1 + i % 3)) for i in range(n)]


def _stopping_at_second_batch(head):
    """``head`` pressing Ctrl-C at its second batch: it tokenizes each batch once, padded, just
    before its forward (the unpadded length check does not count). Returns the real tokenizer."""
    real, padded = head.tokenizer, []

    def stopping(*args, **kw):
        padded.extend([1] if kw.get("padding") else [])
        if len(padded) == 2 and kw.get("padding"):
            raise KeyboardInterrupt
        return real(*args, **kw)

    head.tokenizer = stopping
    return real
