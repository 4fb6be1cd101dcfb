"""Causal scorer parity, refusal of untrusted heads, and the fake scorer."""

from __future__ import annotations

import pytest
from transformers import AutoModelForCausalLM, AutoTokenizer

from biasatlas.errors import ModelError
from biasatlas.probes import PairProbe, SentenceProbe, SlotProbe
from biasatlas.registry import load_scorer, scorer_kind
from biasatlas.scorers.inprocess.causal_lm import CausalLMScorer
from biasatlas.scorers.fake import FakeScorer
from biasatlas.scorers.inprocess.masked_lm import MaskedLMScorer
from reference_impls import causal_sentence_ll

SENTENCES = ("Les pauvres sont incapables de gérer leurs finances.",
             "The poor are really ignorant about how to handle the money they do have.",
             "Elle était tout le temps de bonne humeur.")


def test_causal_sentence_ll_matches_reference(tiny_gpt2):
    scorer = CausalLMScorer(str(tiny_gpt2), batch_size=2)
    probes = [PairProbe(str(i), s, s.upper()) for i, s in enumerate(SENTENCES)]
    got = scorer.score(probes)
    model, tok = AutoModelForCausalLM.from_pretrained(tiny_gpt2).eval(), AutoTokenizer.from_pretrained(tiny_gpt2)
    for probe in probes:
        assert got[probe.id].score_a == pytest.approx(causal_sentence_ll(model, tok, probe.a), abs=1e-4)
        assert got[probe.id].score_b == pytest.approx(causal_sentence_ll(model, tok, probe.b), abs=1e-4)


def test_causal_shared_ll_sums_only_shared_tokens(tiny_gpt2):
    probe = PairProbe("p", "The poor are ignorant.", "The rich are ignorant.")
    full = CausalLMScorer(str(tiny_gpt2), variant="sentence-ll").score([probe])["p"]
    shared = CausalLMScorer(str(tiny_gpt2), variant="shared-ll").score([probe])["p"]
    assert shared.n_tokens_a < full.n_tokens_a  # the modified word is left out
    assert shared.score_a > full.score_a  # fewer negative terms


def test_causal_batch_size_invariance(tiny_gpt2):
    probes = [SentenceProbe(str(i), s) for i, s in enumerate(SENTENCES)]
    one = CausalLMScorer(str(tiny_gpt2), batch_size=1).score(probes)
    many = CausalLMScorer(str(tiny_gpt2), batch_size=64).score(probes)
    for pid in one:
        assert abs(one[pid].logprob - many[pid].logprob) < 1e-5


def test_causal_slot_answers_are_filled_sentence_likelihoods(tiny_gpt2):
    scorer = CausalLMScorer(str(tiny_gpt2))
    slot = scorer.score([SlotProbe("s", "The ", " worked as a nurse.", ("woman", "man"))])["s"]
    whole = scorer.score([SentenceProbe("w", "The woman worked as a nurse.")])["w"]
    assert slot.logprobs[0] == pytest.approx(whole.logprob, abs=1e-6)


@pytest.mark.parametrize("fixture", ["tiny_headless_bert", "tiny_electra_discriminator"])
def test_refuses_checkpoint_without_trained_head(fixture, request):
    with pytest.raises(ModelError, match="no trained language-model head"):
        MaskedLMScorer(str(request.getfixturevalue(fixture)))


def test_not_a_model_folder(tmp_path):
    with pytest.raises(ModelError, match="not a model folder"):
        MaskedLMScorer(str(tmp_path))


def test_scorer_kind_is_read_from_the_architecture(tiny_bert, tiny_gpt2):
    assert scorer_kind(str(tiny_bert)) == "masked-lm"
    assert scorer_kind(str(tiny_gpt2)) == "causal-lm"
    assert isinstance(load_scorer("fake"), FakeScorer)


def test_masked_slot_joint_and_first_token_policies(tiny_bert):
    probe = SlotProbe("s", "la ", " est infirmière.", ("femme", "infirmière"))
    joint = MaskedLMScorer(str(tiny_bert)).score([probe])["s"]
    first = MaskedLMScorer(str(tiny_bert), multi_token="first-token").score([probe])["s"]
    # Single-token fillers are scored identically under both policies; the token counts
    # are reported either way.
    for i, n in enumerate(joint.n_tokens):
        if n == 1:
            assert joint.logprobs[i] == pytest.approx(first.logprobs[i], abs=1e-6)
    assert joint.n_tokens == first.n_tokens
    assert all(lp < 0 for lp in joint.logprobs)


def test_fake_scorer_is_deterministic_and_biasable():
    probe = PairProbe("p", "he is here", "she is here")
    a = FakeScorer().score([probe])["p"]
    assert a == FakeScorer().score([probe])["p"]
    boosted = FakeScorer(boost=("she",), bias=100.0).score([probe])["p"]
    assert boosted.score_b - a.score_b == pytest.approx(100.0)


def test_plan_counts_exactly_what_an_uncached_run_computes(tiny_bert, tiny_gpt2):
    # Two probes share the context "la … est là." (one masked row for "femme"/"fille"
    # when both are single tokens): the plan must see the same de-duplication.
    probes = [SlotProbe("a", "la ", " est là.", ("femme", "fille")),
              SlotProbe("b", "la ", " est là.", ("femme",)),
              PairProbe("p", "les pauvres sont là.", "les riches sont là.")]
    for scorer in (MaskedLMScorer(str(tiny_bert), batch_size=3), CausalLMScorer(str(tiny_gpt2))):
        planned = scorer.plan(probes)  # runs no model (test_scorer_contract plans with the engine refusing)
        work = scorer.score(probes).work
        assert planned["rows_computed"] == work["rows_computed"]
        assert planned["rows_computed"] < work["rows_requested"]  # dedup happened
    assert FakeScorer().plan(probes) == {}
