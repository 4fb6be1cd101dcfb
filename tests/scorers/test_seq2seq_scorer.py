"""The seq2seq scorer against a one-sentence-per-forward reference on a tiny BART."""

from __future__ import annotations

import pytest
import torch
from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

from biasatlas.errors import UnsupportedProbe
from biasatlas.probes import PairProbe, SentenceProbe, SlotProbe
from biasatlas.scorers.inprocess.seq2seq import Seq2SeqScorer

PROBES = (
    SlotProbe("en", "The ", " worked as a nurse.", ("woman", "man", "lady")),
    SlotProbe("en-bare", "", " will work as an engineer.", ("She", "He")),
    SlotProbe("fr", "La ", " est infirmière.", ("femme", "sœur", "tante")),
    # A long, rare filler: several tokens in the byte-level BPE.
    SlotProbe("multi", "The ", " is here.", ("woman", "terrazzoworkerish")),
)


def _reference_ll(model, tokenizer, source: str, target: str) -> float:
    """log P(target | source): one forward, the model builds its decoder input from labels."""
    enc = tokenizer(source, return_tensors="pt")
    labels = tokenizer(text_target=target, return_tensors="pt")["input_ids"]
    with torch.no_grad():
        logits = model(**enc, labels=labels).logits[0]  # [T, V]
    logp = torch.log_softmax(logits, dim=-1)
    return sum(float(logp[t, labels[0, t]]) for t in range(labels.shape[1]))


@pytest.fixture(scope="module")
def reference(tiny_bart):
    return (AutoModelForSeq2SeqLM.from_pretrained(tiny_bart).eval(),
            AutoTokenizer.from_pretrained(tiny_bart))


def test_slots_match_one_sentence_per_forward(tiny_bart, reference):
    model, tokenizer = reference
    answers = Seq2SeqScorer(str(tiny_bart), batch_size=3).score(list(PROBES))
    for probe in PROBES:
        masked = probe.left + tokenizer.mask_token + probe.right
        want = [_reference_ll(model, tokenizer, masked, probe.left + f + probe.right)
                for f in probe.fillers]
        assert answers[probe.id].logprobs == pytest.approx(want, abs=1e-4), probe.id


def test_sentences_are_written_from_the_mask_alone(tiny_bart, reference):
    model, tokenizer = reference
    text = "Les femmes sont ingénieures."
    answer = Seq2SeqScorer(str(tiny_bart)).score([SentenceProbe("s", text)])["s"]
    assert answer.logprob == pytest.approx(_reference_ll(model, tokenizer, tokenizer.mask_token, text),
                                           abs=1e-4)
    assert answer.n_tokens == len(tokenizer(text_target=text)["input_ids"])


def test_batch_size_does_not_change_scores(tiny_bart):
    one = Seq2SeqScorer(str(tiny_bart), batch_size=1).score(list(PROBES))
    many = Seq2SeqScorer(str(tiny_bart), batch_size=64).score(list(PROBES))
    for pid, answer in one.items():
        assert answer.logprobs == pytest.approx(many[pid].logprobs, abs=1e-5)


def test_encoder_runs_once_per_masked_context_and_duplicates_once(tiny_bart):
    scorer = Seq2SeqScorer(str(tiny_bart), batch_size=64)
    # The second "en" probe repeats the first: its rows are computed once.
    done = scorer.score(list(PROBES) + [SlotProbe("en-again", "The ", " worked as a nurse.", ("woman", "man"))])
    # 3 + 2 + 3 + 2 + 2 = 12 rows asked; 10 distinct; 4 distinct masked inputs in one batch.
    assert done.work == {"rows_requested": 12, "rows_computed": 10, "encoder_rows": 4, "batches": 1}


def test_multi_token_fillers_are_reported(tiny_bart, reference):
    _, tokenizer = reference
    answer = Seq2SeqScorer(str(tiny_bart)).score([PROBES[3]])["multi"]
    pieces = tokenizer.tokenize(" terrazzoworkerish")
    assert answer.n_tokens == (1, len(pieces)) and len(pieces) > 1


def test_pairs_are_unsupported(tiny_bart):
    with pytest.raises(UnsupportedProbe, match="pair"):
        Seq2SeqScorer(str(tiny_bart)).score([PairProbe("p", "a b", "a c")])


def test_describe_records_what_determines_scores(tiny_bart):
    described = Seq2SeqScorer(str(tiny_bart)).describe()
    assert described["scorer"] == "seq2seq" and described["variant"] == "sentence-ll"
    assert described["architecture"] == "BartForConditionalGeneration"
    assert "model.safetensors" in described["file_sha256"]
