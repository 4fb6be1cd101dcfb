"""Winogender's two readings against straightforward references written here, on tiny models.

Masked (``masked-pronoun``): the filled-in sentence tokenized once, the pronoun's pieces (found by
their character offsets) replaced by the mask token, one forward, the sum of the log-softmax of
each piece at its mask (the joint policy). Causal (``sentence-likelihood``): the sentence's tokens
after the start token, Σ log P(token | tokens before), one plain forward per sentence.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from biasatlas.benchmarks.winogender import Winogender  # noqa: E402
from biasatlas.pipeline import run_benchmark  # noqa: E402
from biasatlas.registry import load_scorer  # noqa: E402
from reference_impls import masked_span_logprob  # noqa: E402

# the first 26 contexts hold NOM, POSS (from the 5th) and ACC (the 25th) slots, and two neutral
# contexts ("they were", the 19th and 20th) that differ from the gendered ones
LIMIT = 26


def _run(model: Path, scorer: str, shared_data: Path):
    bench = Winogender(data=shared_data / "winogender", limit=LIMIT, n_resamples=20)
    return run_benchmark(bench, load_scorer(str(model), scorer)), bench.load()


@pytest.mark.parametrize("fixture", ["tiny_bert", "tiny_roberta"])
def test_masked_reading_is_the_pronoun_probability_at_the_slot(fixture: str, request, shared_data: Path) -> None:
    path = request.getfixturevalue(fixture)
    run, contexts = _run(path, "masked-lm", shared_data)
    assert run.summary["reading"] == "masked-pronoun"
    model = transformers.AutoModelForMaskedLM.from_pretrained(path).eval()
    tok = transformers.AutoTokenizer.from_pretrained(path)
    records = {r["id"]: r for r in run.records}
    assert len(records) == LIMIT
    for c in contexts:
        r = records[c.id]
        f, m = (masked_span_logprob(model, tok, c.sentences[g]) for g in ("female", "male"))
        assert r["logprob_female"] == pytest.approx(f, abs=2e-4) and r["logprob_male"] == pytest.approx(m, abs=2e-4)
        assert r["female_share"] == pytest.approx(100 / (1 + math.exp(m - f)), abs=1e-3)
        assert r["logprob_neutral"] == pytest.approx(masked_span_logprob(model, tok, c.sentences["neutral"]), abs=2e-4)
    assert {c.slot for c in contexts} == {"nom", "poss", "acc"} and sum(not c.shared for c in contexts) == 2


def test_causal_reading_is_the_sentence_log_likelihood(tiny_gpt2: Path, shared_data: Path) -> None:
    run, contexts = _run(tiny_gpt2, "causal-lm", shared_data)
    assert run.summary["reading"] == "sentence-likelihood"
    model = transformers.AutoModelForCausalLM.from_pretrained(tiny_gpt2).eval()
    tok = transformers.AutoTokenizer.from_pretrained(tiny_gpt2)
    records = {r["id"]: r for r in run.records}
    for c in contexts:
        for gender in ("female", "male", "neutral"):
            ids = [tok.bos_token_id, *tok(c.sentences[gender].text, add_special_tokens=False)["input_ids"]]
            with torch.no_grad():
                logp = torch.log_softmax(model(torch.tensor([ids])).logits[0].float(), dim=-1)
            reference = sum(float(logp[i - 1, ids[i]]) for i in range(1, len(ids)))
            assert records[c.id][f"logprob_{gender}"] == pytest.approx(reference, abs=2e-4)
