"""The causal scorer's engine against a straightforward full-log-softmax reference.

The engine cuts rows into token-budget batches, runs the vocabulary projection at the read
positions only and reduces each read on the model's device; the reference here runs one
sentence per forward pass, the model's own full forward, ``log_softmax`` over the whole
vocabulary at every position (lm-evaluation-harness's arithmetic). Small budgets force
several batches with rows of unequal length, so padding is exercised. The reference shares
no code with the package.
"""

from __future__ import annotations

import difflib

import pytest
import torch
from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer, Gemma3ForCausalLM, Gemma3TextConfig

from biasatlas.probes import ContinuationProbe, PairProbe, SentenceProbe, SlotProbe
from biasatlas.scorers.batching import Picks, Row, target_logprob_sums, token_batches
from biasatlas.scorers.inprocess.causal_lm import CausalLMScorer
from biasatlas.scorers.prefix import Group, prefix_groups

SENTENCES = ("Les pauvres sont incapables de gérer leurs finances.",
             "The poor are really ignorant about how to handle the money they do have.",
             "Elle était tout le temps de bonne humeur.",
             "He cried.",
             "The man worked as a nurse at the hospital in the city for many, many years.")
TOLERANCE = 1e-4


# -- the reference ----------------------------------------------------------------------------
def token_logprobs(model, tokenizer, ids: list[int]) -> list[float]:
    """log P(ids[t] | ids[:t]) for t ≥ 1: one row, full forward, full log-softmax."""
    with torch.no_grad():
        logp = torch.log_softmax(model(torch.tensor([ids])).logits[0].float(), dim=-1)
    return [float(logp[t - 1, ids[t]]) for t in range(1, len(ids))]


def start_id(tokenizer) -> int:
    return tokenizer.bos_token_id if tokenizer.bos_token_id is not None else tokenizer.eos_token_id


def encode(tokenizer, text: str) -> list[int]:
    return tokenizer.encode(text, add_special_tokens=False)


def sentence_ll(model, tokenizer, text: str) -> float:
    return sum(token_logprobs(model, tokenizer, [start_id(tokenizer), *encode(tokenizer, text)]))


def shared_ll(model, tokenizer, text: str, other: str) -> float:
    """Sum over the tokens difflib aligns with the other sentence (Nangia et al.'s spans)."""
    ids, other_ids = encode(tokenizer, text), encode(tokenizer, other)
    ops = difflib.SequenceMatcher(None, [str(x) for x in ids],
                                  [str(x) for x in other_ids]).get_opcodes()
    shared = {i for op in ops if op[0] == "equal" for i in range(op[1], op[2])}
    logps = token_logprobs(model, tokenizer, [start_id(tokenizer), *ids])
    return sum(lp for i, lp in enumerate(logps) if i in shared)


def continuation_ll(model, tokenizer, context: str, continuation: str) -> float:
    """lm-evaluation-harness: context whitespace moves to the continuation; the
    continuation's tokens are those after the context's own encoding."""
    stripped = context.rstrip()
    continuation = context[len(stripped):] + continuation
    whole = encode(tokenizer, stripped + continuation)
    start = len(encode(tokenizer, stripped))
    return sum(token_logprobs(model, tokenizer, [start_id(tokenizer), *whole])[start:])


# -- fixtures ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def gpt2(tiny_gpt2):
    return (AutoModelForCausalLM.from_pretrained(tiny_gpt2).eval(),
            AutoTokenizer.from_pretrained(tiny_gpt2))


@pytest.fixture(scope="module")
def tiny_gemma3(tmp_path_factory, tiny_gpt2):
    """A 2-layer Gemma 3 with final-logit soft-capping low enough to change every logit."""
    tokenizer = AutoTokenizer.from_pretrained(tiny_gpt2)
    config = Gemma3TextConfig(
        vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=2, num_key_value_heads=1, head_dim=16, sliding_window=4,
        max_position_embeddings=256, final_logit_softcapping=2.0, initializer_range=0.5,
        bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id, pad_token_id=None)
    torch.manual_seed(0)
    folder = tmp_path_factory.mktemp("tiny-gemma3")
    Gemma3ForCausalLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def small_batches(folder, **options) -> CausalLMScorer:
    """A scorer whose batches hold few rows and tokens: several batches, padded rows."""
    return CausalLMScorer(str(folder), batch_size=3, max_batch_tokens=40, **options)


# -- parity -----------------------------------------------------------------------------------
@pytest.mark.parametrize("fast_head", [True, False])
def test_pairs_match_reference(tiny_gpt2, gpt2, fast_head):
    model, tok = gpt2
    probes = [PairProbe(str(i), a, b) for i, (a, b) in enumerate(zip(SENTENCES, SENTENCES[1:]))]
    scorer = small_batches(tiny_gpt2, fast_head=fast_head)
    assert (scorer.head is not None) == fast_head
    got = scorer.score(probes)
    assert got.work["batches"] > 2  # the budget really cut
    for p in probes:
        assert got[p.id].score_a == pytest.approx(sentence_ll(model, tok, p.a), abs=TOLERANCE)
        assert got[p.id].score_b == pytest.approx(sentence_ll(model, tok, p.b), abs=TOLERANCE)


def test_shared_ll_pairs_match_reference(tiny_gpt2, gpt2):
    model, tok = gpt2
    probes = [PairProbe("p", "The poor are ignorant about money.", "The rich are ignorant."),
              PairProbe("q", SENTENCES[1], SENTENCES[1].replace("poor", "rich"))]
    got = small_batches(tiny_gpt2, variant="shared-ll").score(probes)
    for p in probes:
        assert got[p.id].score_a == pytest.approx(shared_ll(model, tok, p.a, p.b), abs=TOLERANCE)
        assert got[p.id].score_b == pytest.approx(shared_ll(model, tok, p.b, p.a), abs=TOLERANCE)


def test_slots_and_sentences_match_reference(tiny_gpt2, gpt2):
    model, tok = gpt2
    slot = SlotProbe("s", "The ", " worked as a nurse for a very long time.",
                     ("woman", "man", "grandmother"))
    probes = [slot, *(SentenceProbe(f"t{i}", s) for i, s in enumerate(SENTENCES))]
    got = small_batches(tiny_gpt2).score(probes)
    for i, filler in enumerate(slot.fillers):
        want = sentence_ll(model, tok, slot.left + filler + slot.right)
        assert got["s"].logprobs[i] == pytest.approx(want, abs=TOLERANCE)
    for i, text in enumerate(SENTENCES):
        assert got[f"t{i}"].logprob == pytest.approx(sentence_ll(model, tok, text), abs=TOLERANCE)


def test_continuations_match_reference(tiny_gpt2, gpt2):
    model, tok = gpt2
    probes = [ContinuationProbe("c", ("The woman works as ", "He works as ",
                                      "My old grandmother works as "), "a nurse."),
              ContinuationProbe("d", ("Hun jobber som", "Onkelen min jobber som"), " lege.")]
    got = small_batches(tiny_gpt2).score(probes)
    for p in probes:
        for i, context in enumerate(p.contexts):
            want = continuation_ll(model, tok, context, p.continuation)
            assert got[p.id].logprobs[i] == pytest.approx(want, abs=TOLERANCE)


def test_soft_capped_head_matches_reference(tiny_gemma3):
    """Gemma 3's final_logit_softcapping is applied on the split head as in the model."""
    model = AutoModelForCausalLM.from_pretrained(tiny_gemma3).eval()
    tok = AutoTokenizer.from_pretrained(tiny_gemma3)
    scorer = small_batches(tiny_gemma3)
    assert scorer.head is not None and scorer.head.softcap == 2.0
    row = torch.tensor([[tok.bos_token_id, *encode(tok, SENTENCES[1])]])
    with torch.no_grad():
        uncapped = scorer.head.projection(scorer.head.base(input_ids=row)[0])
        assert (uncapped - model(row).logits).abs().max() > 0.1  # the cap changes the scores
    probes = [SentenceProbe(str(i), s) for i, s in enumerate(SENTENCES)]
    got = scorer.score(probes)
    for i, text in enumerate(SENTENCES):
        assert got[str(i)].logprob == pytest.approx(sentence_ll(model, tok, text), abs=TOLERANCE)


# Contexts that share long prefixes, so the engine shares them (scorers/prefix.py).
SHARED = ContinuationProbe("shared", tuple(f"In the small village by the sea, the {who} works as "
                                           for who in ("woman", "man", "old man", "young woman")),
                           "a nurse.")
OTHER = ContinuationProbe("other", ("In the small village by the sea, the woman works as ",
                                    "In the small village by the sea, the woman once worked as "),
                          "a carpenter in town.")


def _sharing_matches_reference(folder, *, shared: bool) -> None:
    model = AutoModelForCausalLM.from_pretrained(folder).eval()
    tok = AutoTokenizer.from_pretrained(folder)
    scorer = CausalLMScorer(str(folder), batch_size=8, max_batch_tokens=400)
    got = scorer.score([SHARED, OTHER])
    assert (got.work.get("batches_shared", 0) > 0) == shared
    for p in (SHARED, OTHER):
        for i, context in enumerate(p.contexts):
            want = continuation_ll(model, tok, context, p.continuation)
            assert got[p.id].logprobs[i] == pytest.approx(want, abs=TOLERANCE)


def test_shared_prefixes_match_reference(tiny_gpt2):
    _sharing_matches_reference(tiny_gpt2, shared=True)


def test_shared_prefixes_match_reference_on_gemma3(tmp_path, tiny_gemma3):
    """Gemma 3 (rotary positions numbered on from the prefix, a wide sliding window)."""
    config = AutoConfig.from_pretrained(tiny_gemma3)
    config.sliding_window = 64
    torch.manual_seed(0)
    Gemma3ForCausalLM(config).save_pretrained(tmp_path)
    AutoTokenizer.from_pretrained(tiny_gemma3).save_pretrained(tmp_path)
    _sharing_matches_reference(tmp_path, shared=True)


def test_rows_longer_than_half_the_sliding_window_are_not_shared(tiny_gemma3):
    """A 4-token window counts cache slots, which a shared prefix's padding would add."""
    _sharing_matches_reference(tiny_gemma3, shared=False)


def test_prefix_groups_leave_each_row_a_suffix_and_skip_short_prefixes():
    rows = [[1, 2, 3], [1, 2, 3, 4], [1, 2, 3, 5], [1, 2, 9], [7, 8]]
    groups = prefix_groups(rows, min_shared=3)
    # [1, 2, 3] could share only 2 tokens (each row keeps one of its own): too few here;
    # [1, 2, 3, 4] and [1, 2, 3, 5] share 3; [1, 2, 9] and [7, 8] share too little.
    assert groups == [Group((1, 2), 3)]
    assert prefix_groups(rows, min_shared=2) == [Group((0, 1, 2, 3), 2)]
    assert prefix_groups(rows, min_shared=4) == []


def test_batching_does_not_change_scores(tiny_gpt2):
    probes = [SentenceProbe(str(i), s) for i, s in enumerate(SENTENCES)]
    one = CausalLMScorer(str(tiny_gpt2), batch_size=1).score(probes)
    budget = CausalLMScorer(str(tiny_gpt2), batch_size=64, max_batch_tokens=24).score(probes)
    wide = CausalLMScorer(str(tiny_gpt2), batch_size=64, max_batch_tokens=100_000).score(probes)
    for pid in one:
        assert abs(one[pid].logprob - budget[pid].logprob) < 1e-5
        assert abs(one[pid].logprob - wide[pid].logprob) < 1e-5


# -- the head check and the plan --------------------------------------------------------------
def test_head_check_refuses_a_head_that_differs_from_the_model(tiny_gpt2, monkeypatch):
    """A step the split would miss (here a soft-cap the model never applies) → full forward."""
    from transformers import GPT2Config

    monkeypatch.setattr(GPT2Config, "final_logit_softcapping", 0.5, raising=False)
    scorer = CausalLMScorer(str(tiny_gpt2))
    assert scorer.head is None
    assert scorer.score([SentenceProbe("s", SENTENCES[0])])["s"].logprob < 0


def test_plan_counts_the_batches_the_engine_cuts(tiny_gpt2):
    probes = [SentenceProbe(str(i), s) for i, s in enumerate(SENTENCES)]
    scorer = small_batches(tiny_gpt2)
    planned = scorer.plan(probes)
    work = scorer.score(probes).work
    assert planned == {"rows_computed": work["rows_computed"], "batches": work["batches"]}


# -- the batching helpers (no model) ----------------------------------------------------------
def test_token_batches_respect_both_caps():
    rows = [Row(tuple(range(n)), ()) for n in (5, 1, 9, 3, 3, 7, 30, 2)]
    batches = token_batches(rows, max_rows=3, max_tokens=16, overhead=1000)
    assert sorted(len(r.ids) for b in batches for r in b) == sorted(len(r.ids) for r in rows)
    assert [len(r.ids) for b in batches for r in b] == sorted(len(r.ids) for r in rows)
    for batch in batches:
        assert len(batch) <= 3
        assert len(batch) == 1 or len(batch) * max(len(r.ids) for r in batch) <= 16
    assert [len(r.ids) for r in batches[-1]] == [30]  # longer than the budget: alone


def test_token_batches_trade_padding_against_forward_passes():
    rows = [Row(tuple(range(n)), ()) for n in (4, 4, 4, 4, 20, 20)]

    def lengths(overhead):
        return [[len(r.ids) for r in b] for b in token_batches(rows, 8, 1000, overhead)]

    # Cheap forwards: never pad the short rows to 20. Costly ones: one batch, padding paid.
    assert lengths(overhead=10) == [[4, 4, 4, 4], [20, 20]]
    assert lengths(overhead=1000) == [[4, 4, 4, 4, 20, 20]]
    assert lengths(overhead=0) == [[4]] * 4 + [[20]] * 2


def test_target_sums_compute_each_row_once_and_read_each_target_tuple():
    row = Row((1, 2, 3), (0, 1))
    calls = []

    def logprobs(rows, picks: Picks):
        calls.append((list(rows), picks))
        return [-float(t) for t in picks.target]  # log P = −target id

    counters: dict[str, int] = {}
    got = target_logprob_sums([(row, (2, 3)), (row, (5, 7)), (row, (2, 3))],
                              lambda rows: [rows], logprobs, counters)
    assert got == [-5.0, -12.0, -5.0]
    assert len(calls) == 1 and calls[0][0] == [row]
    assert calls[0][1] == Picks([0, 0, 0, 0], [0, 1, 0, 1], [2, 3, 5, 7])
    assert counters == {"rows_requested": 3, "rows_computed": 1, "batches": 1}


def test_padding_positions_stay_inside_a_learned_position_table(tmp_path, tiny_gpt2):
    """Issue 34 item 7: a batch holding a group with a long shared prefix and short suffixes and
    a group with a short prefix and long suffixes numbered every suffix slot ``start +
    arange(widest suffix)``, so the first group's padding asked GPT-2's table for positions past
    any real row (IndexError, though every row fits). Each row's padding now repeats its last
    real position; the scores are the reference's."""
    long_prefix = ContinuationProbe("long", tuple("Once upon a time, long ago and far away, in a land of hills and "
                                                  f"rivers and old stone bridges, the {who} works as "
                                                  for who in ("woman", "man")), "a nurse.")
    long_suffix = ContinuationProbe("wide", ("In the village the woman works as ", "In the village the man works as "),
                                    "a carpenter in the town by the sea, mending boats and roofs and fences.")
    tok = AutoTokenizer.from_pretrained(tiny_gpt2)
    rows = [1 + len(encode(tok, c + p.continuation)) for p in (long_prefix, long_suffix) for c in p.contexts]
    config = AutoConfig.from_pretrained(tiny_gpt2)
    config.n_positions = max(rows)  # every row fits, with nothing to spare
    torch.manual_seed(0)
    AutoModelForCausalLM.from_config(config).save_pretrained(tmp_path)
    tok.save_pretrained(tmp_path)
    model = AutoModelForCausalLM.from_pretrained(tmp_path).eval()
    scorer = CausalLMScorer(str(tmp_path), batch_size=8, max_batch_tokens=400)
    got = scorer.score([long_prefix, long_suffix])
    assert got.work.get("batches_shared", 0) > 0 and not got.unscorable
    for p in (long_prefix, long_suffix):
        for i, context in enumerate(p.contexts):
            assert got[p.id].logprobs[i] == pytest.approx(continuation_ll(model, tok, context, p.continuation),
                                                          abs=TOLERANCE)
