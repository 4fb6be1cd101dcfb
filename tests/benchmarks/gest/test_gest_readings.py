"""GEST's readings against straightforward references of the authors' algorithm, on tiny models
(kinit-sk/gest @ 7dd908ca, ``src/masked_models/utils.py``; written here from its description, not copied).

Masked: ``masked_logprob_score(a, b)`` tokenizes ``a`` with special tokens, masks every position whose
token differs from ``b``'s at the same position, and takes the mean log10 probability of ``a``'s tokens
there; a sentence's score is ``score(male, female) − score(female, male)``. Causal: the prompt tokenized
as the tokenizer does (``tokenizer(prompt)``), the last position's softmax, and log10 p(male) − log10
p(female) of the words' last tokens with a leading space.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from biasatlas.benchmarks.gest import Gest  # noqa: E402
from biasatlas.benchmarks.gest.templates import MASKED, NEXT_TOKEN  # noqa: E402
from biasatlas.pipeline import run_benchmark  # noqa: E402
from biasatlas.registry import load_scorer  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("isolated_run")]  # shared data, as CI reads it


def _authors_masked(model, tok, sen1: str, sen2: str) -> float:
    ids1 = tok(sen1, return_tensors="pt")["input_ids"][0]
    ids2 = tok(sen2)["input_ids"]
    masked = ids1.clone()
    for i, (a, b) in enumerate(zip(ids1.tolist(), ids2)):
        if a != b:
            masked[i] = tok.mask_token_id
    with torch.no_grad():
        probs = model(input_ids=masked[None]).logits[0].float().softmax(-1)  # (L, V)
    where = (masked == tok.mask_token_id).nonzero().flatten().tolist()
    return float(sum(math.log10(float(probs[i, ids1[i]])) for i in where) / len(where))


def _same_shape(tok, male: str, female: str) -> bool:
    """The two versions tokenize to equal lengths differing in one position: where the authors'
    positional masking and our word masking mask the same token."""
    a, b = tok(male)["input_ids"], tok(female)["input_ids"]
    return len(a) == len(b) and sum(x != y for x, y in zip(a, b)) == 1


@pytest.mark.parametrize("fixture", ["tiny_bert", "tiny_roberta"])
def test_masked_reading_matches_the_authors_masked_logprob_score(fixture: str, request) -> None:
    path = request.getfixturevalue(fixture)
    bench = Gest(limit=1, n_resamples=10)
    run = run_benchmark(bench, load_scorer(str(path), "masked-lm"))
    model = transformers.AutoModelForMaskedLM.from_pretrained(path).eval()
    tok = transformers.AutoTokenizer.from_pretrained(path)
    assert run.summary["reading"] == "masked" and len(run.records) == 16
    compared = 0
    for r in run.records:
        for t in MASKED:
            left, right = t.around(r["sentence"])
            male, female = left + t.male + right, left + t.female + right
            if not _same_shape(tok, male, female):
                continue
            reference = _authors_masked(model, tok, male, female) - _authors_masked(model, tok, female, male)
            assert r["scores"][t.key] == pytest.approx(reference, abs=1e-4)
            compared += 1
    assert compared == 64, compared  # 16 sentences × 4 templates: he/she, man/woman are one token each here


def test_next_token_reading_matches_the_authors_generative_score(tiny_gpt2: Path) -> None:
    bench = Gest(limit=1, n_resamples=10)
    run = run_benchmark(bench, load_scorer(str(tiny_gpt2), "causal-lm", start_token="empty-context"))
    model = transformers.AutoModelForCausalLM.from_pretrained(tiny_gpt2).eval()
    tok = transformers.AutoTokenizer.from_pretrained(tiny_gpt2)
    spaced = transformers.AutoTokenizer.from_pretrained(tiny_gpt2, add_prefix_space=True)
    assert run.summary["reading"] == "next-token" and len(run.records) == 16
    compared = 0
    for r in run.records:
        for t in NEXT_TOKEN:
            words = [spaced.encode(w.strip()) for w in (t.male, t.female)]
            if any(len(w) != 1 for w in words):
                continue  # the authors read a word's last token alone; ours sums its tokens
            prompt = t.around(r["sentence"])[0]
            with torch.no_grad():
                probs = model(**tok(prompt, return_tensors="pt")).logits[0, -1].float().softmax(-1)  # (V,)
            reference = math.log10(float(probs[words[0][-1]])) - math.log10(float(probs[words[1][-1]]))
            assert r["scores"][t.key] == pytest.approx(reference, abs=1e-4)
            compared += 1
    assert compared == 32, compared  # 16 sentences × 2 prompts
