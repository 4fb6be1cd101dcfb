"""The encoder scorer's poolings, each against a reference written here on tiny models, one text
per forward pass with no padding (bias-bench's and sent-bias's way); and the embedding probe's
trip through the score cache."""

from __future__ import annotations

import pytest

from biasatlas.cache import ScoreCache
from biasatlas.errors import UnsupportedProbe
from biasatlas.probes import EmbeddingAnswer, EmbeddingProbe
from biasatlas.registry import load_scorer

TEXTS = ("This is a nurse.", "He is an engineer who works late.", "Cats.", "The doctor said that she was tired.")


def _reference(folder, text, pooling):
    """The last hidden layer of ``text`` alone, pooled by the definition of each pooling."""
    import torch
    import transformers

    model = transformers.AutoModel.from_pretrained(folder).eval()
    if model.config.is_encoder_decoder:
        model = model.get_encoder()
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    coded = tokenizer(text, add_special_tokens=pooling != "first", return_special_tokens_mask=True)
    with torch.no_grad():
        hidden = model(input_ids=torch.tensor([coded["input_ids"]])).last_hidden_state[0]  # (T, H)
    if pooling in ("first", "cls"):
        return hidden[0].tolist()
    if pooling == "last":
        return hidden[-1].tolist()
    if pooling == "mean":
        return hidden.mean(dim=0).tolist()
    kept = [i for i, special in enumerate(coded["special_tokens_mask"]) if not special]
    return hidden[kept].mean(dim=0).tolist()


# the full suite checks every encoder shape; the fast loop keeps BART's three (the cheapest)
@pytest.mark.parametrize("fixture,poolings", [
    pytest.param("tiny_bert", ("first", "cls", "mean", "mean-no-special", "last"), marks=pytest.mark.slow),
    pytest.param("tiny_gpt2", ("last", "mean", "first"), marks=pytest.mark.slow),
    ("tiny_bart", ("mean", "cls", "mean-no-special")),
])
def test_each_pooling_equals_the_one_text_reference(fixture, poolings, request):
    folder = str(request.getfixturevalue(fixture))
    scorer = load_scorer(folder, "encoder", batch_size=3)  # batches of 3 pad the shorter texts
    probes = [EmbeddingProbe(f"{p}:{i}", t, p) for p in poolings for i, t in enumerate(TEXTS)]
    answers = scorer.score(probes)
    assert set(answers) == {p.id for p in probes}
    for p in probes:
        got = answers[p.id]
        assert isinstance(got, EmbeddingAnswer)
        assert got.vector == pytest.approx(_reference(folder, p.text, p.pooling), abs=2e-5), p.id


def test_first_piece_and_cls_differ_on_bert(tiny_bert):
    """sent-bias's BERT reading (the first piece, no special tokens) is not [CLS]."""
    scorer = load_scorer(str(tiny_bert), "encoder")
    got = scorer.score([EmbeddingProbe("a", TEXTS[1], "first"), EmbeddingProbe("b", TEXTS[1], "cls")])
    assert got["a"].vector != pytest.approx(got["b"].vector, abs=1e-3)
    assert (got["a"].n_tokens, got["b"].n_tokens) == (1, 1)


def test_an_unknown_pooling_is_refused_with_its_name(tiny_bert):
    scorer = load_scorer(str(tiny_bert), "encoder")
    with pytest.raises(UnsupportedProbe, match="pooling 'max' unknown"):
        scorer.score([EmbeddingProbe("a", "x", "max")])
    # beside a known one, it alone is left unanswered, with the reason
    scored = scorer.score([EmbeddingProbe("a", "x", "max"), EmbeddingProbe("b", "x", "cls")])
    assert set(scored.answers) == {"b"} and "max" in scored.unscorable["a"]


def test_likelihood_scorers_refuse_embedding_probes(tiny_bert):
    with pytest.raises(UnsupportedProbe, match="embedding probes"):
        load_scorer(str(tiny_bert), "masked-lm").score([EmbeddingProbe("a", "This is a nurse.")])


def test_an_embedding_answer_reads_back_from_the_cache(tmp_path):
    cache = ScoreCache(tmp_path / "cache.sqlite")
    probe = EmbeddingProbe("a", "This is a nurse.", "mean")
    answer = EmbeddingAnswer("a", (0.25, -1.5, 3.0), 7)
    cache.put("scorer-key", [probe], {"a": answer})
    assert cache.get("scorer-key", [probe]) == {"a": answer}
    # the pooling is part of the question: another pooling of the same text is another row
    assert cache.get("scorer-key", [EmbeddingProbe("a", "This is a nurse.", "cls")]) == {}
