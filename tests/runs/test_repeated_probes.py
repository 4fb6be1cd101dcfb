"""A probe whose content an earlier probe has is scored once per run (issue 34 item 6).

The score cache holds one answer per content (:func:`biasatlas.cache.probe_key`), so a run
resumed from it answers every repeat of a kept probe with that one value. An uninterrupted run
used to score each repeat in its own chunk's batches, where padding and kernel shapes differ,
and census ``--method bartl2020`` (BEC-Pro's prior "My [MASK] is a [MASK] [MASK]." serves every
two-word profession: 1,800 probes, 960 contents) resumed to other bits in the 7th digit. Now the
run copies the first probe's answer to its repeats, resumed or not.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from biasatlas import pipeline
from biasatlas.benchmarks.census import Census
from biasatlas.cache import ScoreCache, repeats
from biasatlas.pipeline import chunked, run_benchmark
from biasatlas.probes import PairProbe, SlotProbe
from biasatlas.registry import load_scorer
from biasatlas.runs.folder import write_run

FILES = ("config.json", "items.jsonl", "skipped.jsonl", "summary.json")


def test_repeats_names_each_later_copy_with_its_first_probe():
    probes = [SlotProbe("a", "My ", " is a [MASK].", ("son",)), PairProbe("b", "x", "y"),
              SlotProbe("c", "My ", " is a [MASK].", ("son",)), SlotProbe("d", "My ", " is a [MASK].", ("dad",)),
              PairProbe("e", "x", "y"), SlotProbe("f", "My ", " is a [MASK].", ("son",))]
    assert repeats(probes) == {"c": "a", "e": "b", "f": "a"}  # d asks another filler: its own content


def batch_sensitive_bert(folder: Path, data: Path) -> Path:
    """The tiny BERT with four heads of eight: its floats move in the last bits with the batch a
    row is computed in (the two-head tiny BERT's happen not to, on these sentences)."""
    from tiny_models import _bert_config, _seeded, bert_tokenizer
    from transformers import BertForMaskedLM

    tokenizer = bert_tokenizer(data, True)
    config = _bert_config(len(tokenizer))
    config.num_attention_heads, config.intermediate_size = 4, 128
    return _seeded(BertForMaskedLM, config, tokenizer, folder)


def _same_folders(a: Path, b: Path) -> None:
    for name in FILES:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


@pytest.mark.slow  # builds a BERT and scores BEC-Pro's 1,800 probes three times: several seconds
def test_census_bartl2020_resumed_after_its_first_chunk_is_byte_identical(shared_data, tmp_path, monkeypatch):
    # chunks of at most 256 probes (eight of 225), where a model scorer's are 1,024 (pipeline.JOB_PROBES):
    # the bug needs a repeat in another chunk than its first probe, and these 1,800 have it then
    monkeypatch.setattr(pipeline, "JOB_PROBES", 256)
    model = str(batch_sensitive_bert(tmp_path / "bert", shared_data))
    scorer = load_scorer(model, "masked-lm")
    bench = Census(country="us", method="bartl2020")
    bound = bench.bind(scorer.info)
    probes = bound.probes(bound.load())
    chunks = chunked(probes, per_batch=True)
    # the precondition that made the bug visible: a repeat in a later chunk whose own batch gives
    # other bits than its first probe's (chunk 3 repeats a prior of chunk 0 on this model)
    copies = repeats(probes)
    alone = {a.id: a for chunk in chunks[:4] for a in scorer.score(chunk).answers.values()}
    assert any(alone[pid].logprobs != alone[first].logprobs for pid, first in copies.items() if pid in alone)

    clean = run_benchmark(bench, scorer)
    cache = ScoreCache(tmp_path / "scores.sqlite")
    cache.put(scorer.fingerprint(), chunks[0], scorer.score(chunks[0]))  # a run killed after its first commit
    resumed = run_benchmark(bench, scorer, cache=cache)
    assert resumed.timing["cache_hits"] > len(chunks[0])  # repeats in later chunks were answered too
    write_run(clean, tmp_path / "clean")
    write_run(resumed, tmp_path / "resumed")
    _same_folders(tmp_path / "clean", tmp_path / "resumed")
