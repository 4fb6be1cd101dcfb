"""Parity of the fast masked-LM engine with the one-mask-per-forward reference, on real rows."""

from __future__ import annotations

import pytest
from transformers import AutoModelForMaskedLM, AutoTokenizer

from biasatlas.benchmarks.crows_pairs import read_pairs
from biasatlas.probes import PairProbe
from biasatlas.scorers.inprocess.masked_lm import MaskedLMScorer
from reference_impls import nangia_pll, unmasked_mean_logprob

FR = "crows-pairs-fr/crows_pairs_FR_languagearc_contribution+210.csv"
EN = "crows-pairs-en/crows_pairs_anonymized.csv"


def _probes(shared_data, rel: str, ids: tuple[str, ...]) -> list[PairProbe]:
    pairs = {p.id: p for p in read_pairs(shared_data / rel)}
    tag = rel.split("/")[0]  # ids repeat across files: keep probe ids unique
    return [PairProbe(f"{tag}:{i}", pairs[i].sent_more, pairs[i].sent_less) for i in ids]


def _reference(folder):
    return (AutoModelForMaskedLM.from_pretrained(folder).eval(), AutoTokenizer.from_pretrained(folder))


# French rows with accents and elisions (1: "gérer", 128: "C'était … éternelle"), a
# LanguageARC row and English rows of different lengths.
FR_IDS = ("1", "128", "130", "LA0", "LA17")
EN_IDS = ("0", "1", "2", "409")


@pytest.mark.parametrize("fixture", ["tiny_bert", "tiny_roberta", "tiny_xlmr"])
@pytest.mark.slow
def test_nangia_matches_one_mask_per_forward(fixture, request, shared_data):
    folder = request.getfixturevalue(fixture)
    probes = _probes(shared_data, FR, FR_IDS) + _probes(shared_data, EN, EN_IDS)
    fast = MaskedLMScorer(str(folder), batch_size=7).score(probes)
    model, tokenizer = _reference(folder)
    for probe in probes:
        want_a, want_b = nangia_pll(model, tokenizer, probe.a, probe.b)
        assert fast[probe.id].score_a == pytest.approx(want_a, abs=1e-4), probe.id
        assert fast[probe.id].score_b == pytest.approx(want_b, abs=1e-4), probe.id


def test_aul_matches_unmasked_mean(tiny_bert, shared_data):
    probes = _probes(shared_data, FR, FR_IDS[:3])
    fast = MaskedLMScorer(str(tiny_bert), variant="aul").score(probes)
    model, tokenizer = _reference(tiny_bert)
    for probe in probes:
        assert fast[probe.id].score_a == pytest.approx(unmasked_mean_logprob(model, tokenizer, probe.a), abs=1e-5)


def test_batch_size_does_not_change_scores(tiny_roberta, shared_data):
    probes = _probes(shared_data, FR, FR_IDS) + _probes(shared_data, EN, EN_IDS)
    one = MaskedLMScorer(str(tiny_roberta), batch_size=1).score(probes)
    many = MaskedLMScorer(str(tiny_roberta), batch_size=64).score(probes)
    for pid in one:
        assert abs(one[pid].score_a - many[pid].score_a) < 1e-5
        assert abs(one[pid].score_b - many[pid].score_b) < 1e-5


# XLM-R's (the largest vocabulary) runs in the full suite only
@pytest.mark.parametrize("fixture", ["tiny_bert", "tiny_roberta", pytest.param("tiny_xlmr", marks=pytest.mark.slow)])
def test_head_at_masked_positions_equals_full_projection(fixture, request, shared_data):
    folder = request.getfixturevalue(fixture)
    probes = _probes(shared_data, FR, FR_IDS[:2])
    fast = MaskedLMScorer(str(folder), fast_head=True)
    assert fast._head is not None  # the fast path is really in use for this architecture
    full = MaskedLMScorer(str(folder), fast_head=False).score(probes)
    for pid, answer in fast.score(probes).items():
        assert answer.score_a == pytest.approx(full[pid].score_a, abs=1e-5)


def test_modified_tokens_scores_the_differing_words(tiny_bert):
    # "pauvres" vs "riches": only the modified word is masked, mean over its tokens.
    probe = PairProbe("x", "les pauvres sont là.", "les riches sont là.")
    scorer = MaskedLMScorer(str(tiny_bert), variant="modified-tokens")
    answer = scorer.score([probe])["x"]
    model, tokenizer = _reference(tiny_bert)
    ids = tokenizer.encode(probe.a, return_tensors="pt")[0]
    other = tokenizer.encode(probe.b, return_tensors="pt")[0]
    import difflib

    ops = difflib.SequenceMatcher(None, ids.tolist(), other.tolist()).get_opcodes()
    changed = [i for op in ops if op[0] != "equal" for i in range(op[1], op[2])]
    from reference_impls import masked_logprob

    want = sum(masked_logprob(model, tokenizer, ids, i) for i in changed) / len(changed)
    assert answer.score_a == pytest.approx(want, abs=1e-5)
    assert answer.n_tokens_a == len(changed) == 1  # the mean is over `changed` positions
