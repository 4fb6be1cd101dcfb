"""Winogender and WinoBias on the packaged Gemma 3 270M (slow): each sentence's log-likelihood in the
run's records is the one transformers gives directly (BOS, then Σ log P(token | tokens before)), on a
seeded sample, so the numbers in the cards come from the reading the tests check."""

from __future__ import annotations

from pathlib import Path

import pytest

from biasatlas.benchmarks.winobias import WinoBias
from biasatlas.benchmarks.winogender import Winogender
from biasatlas.errors import ModelError
from biasatlas.pipeline import run_benchmark
from biasatlas.registry import load_scorer

pytestmark = pytest.mark.slow
MODEL = "gemma-3-270m"


@pytest.fixture(scope="module")
def gemma():
    pytest.importorskip("torch", reason="the packaged models need the torch extra")
    transformers = pytest.importorskip("transformers")
    pytest.importorskip("gguf", reason="reading GGUF needs the gguf package")
    from biasatlas.scorers.inprocess.packaged import resolve_packaged_model

    try:
        folder = resolve_packaged_model(MODEL)
    except ModelError as error:  # not installed: the packaged extra is optional
        pytest.skip(f"{MODEL} unavailable: {error}")
    model = transformers.AutoModelForCausalLM.from_pretrained(folder).eval()
    return model, transformers.AutoTokenizer.from_pretrained(folder)


def _sentence_logprob(gemma, text: str) -> float:
    import torch

    model, tok = gemma
    ids = [tok.bos_token_id, *tok(text, add_special_tokens=False)["input_ids"]]
    with torch.inference_mode():
        logp = torch.log_softmax(model(torch.tensor([ids])).logits[0].float(), dim=-1)  # (T, V)
    return sum(float(logp[i - 1, ids[i]]) for i in range(1, len(ids)))


def test_winogender_sample_reads_gemma_sentence_likelihoods(gemma, shared_data: Path) -> None:
    bench = Winogender(data=shared_data / "winogender", sample=6, seed=0, n_resamples=50)
    run = run_benchmark(bench, load_scorer(MODEL, "causal-lm"))
    contexts = {c.id: c for c in bench.load()}
    assert run.summary["reading"] == "sentence-likelihood" and len(run.records) == 6
    for r in run.records:
        for gender in ("female", "male", "neutral"):
            reference = _sentence_logprob(gemma, contexts[r["id"]].sentences[gender].text)
            assert r[f"logprob_{gender}"] == pytest.approx(reference, abs=2e-3)


def test_winobias_sample_reads_gemma_sentence_likelihoods(gemma, shared_data: Path) -> None:
    bench = WinoBias(data=shared_data / "winobias", types="1", sample=5, seed=0, n_resamples=50)
    run = run_benchmark(bench, load_scorer(MODEL, "causal-lm"))
    pairs = {p.id: p for p in bench.load()}
    assert len(run.records) == 5
    for r in run.records:
        for version in ("pro", "anti"):
            assert r[f"logprob_{version}"] == pytest.approx(_sentence_logprob(gemma, getattr(pairs[r["id"]], version)),
                                                            abs=2e-3)
