"""The scorer contract: ScorerInfo says what an answer means, score() keeps no state
between runs, and plan() counts a run's model rows without running the model.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pytest

from biasatlas.benchmarks.crows_pairs import CrowsPairs
from biasatlas.errors import UnscorableProbe, UnsupportedProbe
from biasatlas.pipeline import run_benchmark
from biasatlas.probes import (ContinuationProbe, PairAnswer, PairProbe, Scored, ScorerInfo,
                              SentenceProbe, SlotProbe)
from biasatlas.scorers.fake import FakeScorer

# -- ScorerInfo ---------------------------------------------------------------------------------


def test_fake_scorer_reads_like_a_sentence_likelihood():
    # What census and zh-neutral did for it when they read the name "fake": template
    # normalisation, no mask-count check. The recorded kind is unchanged.
    assert FakeScorer().info == ScorerInfo(kind="fake", reads="sequence", multi_token=None, generates=False)


@pytest.mark.parametrize("kwargs, message", [
    ({"kind": "x", "reads": "mask"}, "reads"),
    ({"kind": "x", "reads": "masked", "multi_token": "all"}, "multi_token"),
    ({"kind": "x", "reads": "sequence", "multi_token": "joint"}, "masked-LM policy"),
])
def test_scorer_info_refuses_values_outside_its_closed_sets(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ScorerInfo(**kwargs)


def test_model_scorers_say_what_their_answers_are(tiny_bert, tiny_gpt2, tiny_bart):
    from biasatlas.scorers.inprocess.causal_lm import CausalLMScorer
    from biasatlas.scorers.inprocess.masked_lm import MaskedLMScorer
    from biasatlas.scorers.inprocess.seq2seq import Seq2SeqScorer

    assert MaskedLMScorer(str(tiny_bert)).info == ScorerInfo("masked-lm", "masked", "joint", mask_token="[MASK]",
                                                             generates=False)
    assert MaskedLMScorer(str(tiny_bert), multi_token="first-token").info.multi_token == "first-token"
    causal = CausalLMScorer(str(tiny_gpt2)).info
    assert dataclasses.replace(causal, chat=None) == ScorerInfo("causal-lm", "sequence", generates=True)
    # GPT-2: no chat template, <|endoftext|> as BOS and EOS, read before every text (start token "always")
    assert causal.chat is not None and (causal.chat.template, causal.chat.bos_token, causal.chat.eos_token,
                                        causal.chat.start_text) == (None, *["<|endoftext|>"] * 3)
    assert Seq2SeqScorer(str(tiny_bart)).info == ScorerInfo("seq2seq", "sequence", generates=False)
    # what the registry says before a load (a generated reading refused first) is what each loaded one says
    from biasatlas.registry import SCORERS

    for kind, info in (("masked-lm", MaskedLMScorer(str(tiny_bert)).info), ("causal-lm", causal),
                       ("seq2seq", Seq2SeqScorer(str(tiny_bart)).info), ("fake", FakeScorer().info)):
        assert SCORERS[kind].generates == info.generates, kind


# -- score() returns its skips and keeps none -----------------------------------------------------


class Picky(FakeScorer):
    """The fake scorer, except that it cannot answer a pair whose first sentence says
    UNSCORABLE and answers NaN for one that says NAN."""

    def _pairs(self, probes, tick):
        if any("UNSCORABLE" in p.a for p in probes):
            raise UnsupportedProbe("this sentence cannot be scored")
        answers = super()._pairs(probes, tick)
        return [dataclasses.replace(a, score_a=math.nan) if "NAN" in p.a else a
                for a, p in zip(answers, probes)]


def _crows_file(path: Path, rows: list[tuple[str, str]]) -> Path:
    """A CrowS-Pairs file: (id, first sentence) rows, each a stereo gender pair."""
    lines = ["id,sent_more,sent_less,stereo_antistereo,bias_type"]
    lines += [f"{pid},{text} He is here.,She is here.,stereo,gender" for pid, text in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_score_returns_answers_and_unscorable_probes_together():
    probes = [PairProbe("ok", "he is here", "she is here"),
              PairProbe("refused", "UNSCORABLE he", "she"),
              PairProbe("nan", "NAN he", "she")]
    scored = Picky().score(probes)
    assert isinstance(scored, Scored)
    assert set(scored) == {"ok"} and isinstance(scored["ok"], PairAnswer)  # a Mapping of answers
    assert dict(scored.unscorable) == {"refused": "this sentence cannot be scored",
                                       "nan": "non-finite score from the model"}
    assert scored == {"ok": scored["ok"]}  # compares as the mapping it is
    assert not hasattr(Picky(), "unscorable")  # nothing accumulates on the scorer


def test_one_scorer_for_two_runs_gives_each_run_only_its_own_skips(tmp_path):
    scorer = Picky()
    first = CrowsPairs(dataset=None, data=_crows_file(tmp_path / "a.csv", [
        ("a0", "UNSCORABLE"), ("a1", "Fine."), ("a2", "NAN")]))
    second = CrowsPairs(dataset=None, data=_crows_file(tmp_path / "b.csv", [
        ("b0", "Fine."), ("b1", "UNSCORABLE"), ("b2", "Also fine.")]))
    run_a = run_benchmark(first, scorer)
    run_b = run_benchmark(second, scorer)
    assert {s["id"]: s["reason"] for s in run_a.skipped} == {
        "a0": "this sentence cannot be scored", "a2": "non-finite score from the model"}
    assert {s["id"]: s["reason"] for s in run_b.skipped} == {"b1": "this sentence cannot be scored"}
    assert run_b.summary["n"] == 2 and run_b.summary["n_skipped"] == 1
    # The first run again, after the second: the same skips, nothing carried over.
    assert run_benchmark(first, scorer).skipped == run_a.skipped


class TooLong(FakeScorer):
    """The fake scorer, except that a pair whose first sentence says LONG is, on its own, too long
    for it (an :class:`UnscorableProbe`, as a real model's length limit is)."""

    def _pairs(self, probes, tick):
        if any("LONG" in p.a for p in probes):
            raise UnscorableProbe("41 tokens exceed the model's 40")
        return super()._pairs(probes, tick)


def test_a_chunk_of_only_unscorable_probes_is_skipped_not_the_end_of_the_run(tmp_path):
    from biasatlas.pipeline import chunked

    # 40 pairs are cut in chunks of 16, 16 and 8: the first chunk holds nothing but long pairs
    rows = [(f"p{i:02d}", "LONG" if i < 20 else "Fine.") for i in range(40)]
    bench = CrowsPairs(dataset=None, data=_crows_file(tmp_path / "c.csv", rows))
    first = chunked(bench.probes(bench.load()))[0]
    assert len(first) == 16 and all("LONG" in p.a for p in first)
    run = run_benchmark(bench, TooLong())
    assert {s["id"] for s in run.skipped} == {f"p{i:02d}" for i in range(20)}
    assert {s["reason"] for s in run.skipped} == {"41 tokens exceed the model's 40"}
    assert run.summary["n"] == 20 and run.summary["n_skipped"] == 20


def test_a_run_none_of_whose_probes_can_be_scored_stops_with_the_reason(tmp_path):
    bench = CrowsPairs(dataset=None, data=_crows_file(tmp_path / "c.csv", [(f"p{i}", "LONG") for i in range(5)]))
    with pytest.raises(UnsupportedProbe, match=r"none of the 5 probes could be scored.*41 tokens exceed"):
        run_benchmark(bench, TooLong())


def test_a_kind_the_scorer_cannot_answer_still_stops_at_its_first_group():
    from biasatlas.scorers.base import each_alone

    def never(group):
        raise UnsupportedProbe("the fake scorer does not answer slot probes")

    def too_long(group):
        raise UnscorableProbe("too long")

    group = [PairProbe(f"p{i}", "a", "b") for i in range(3)]
    with pytest.raises(UnsupportedProbe, match="does not answer slot probes"):
        each_alone(never, group)
    assert each_alone(too_long, group) == {"p0": "too long", "p1": "too long", "p2": "too long"}
    assert each_alone(too_long, group[:1]) == {"p0": "too long"}


# -- plan() counts what an uncached score() computes ----------------------------------------------

PAIRS = [PairProbe("p1", "les pauvres sont là.", "les riches sont là."),
         PairProbe("p2", "The poor are really ignorant.", "The rich are really ignorant."),
         PairProbe("p3", "Elle était tout le temps de bonne humeur.",
                   "Il était tout le temps de bonne humeur.")]
# "a" and "b" share a context: with single-token fillers one masked row serves both.
SLOTS = [SlotProbe("a", "la ", " est là.", ("femme", "fille")),
         SlotProbe("b", "la ", " est là.", ("femme",)),
         SlotProbe("c", "The ", " worked as a nurse.", ("woman", "man", "terrazzoworkerish")),
         SlotProbe("d", "", " will work as an engineer.", ("She", "He"))]
CONTINUATIONS = [ContinuationProbe("k1", ("The woman", "The man"), " works as a nurse."),
                 ContinuationProbe("k2", ("Han jobber som ", "Hun jobber som "), "lege.")]
SENTENCES = [SentenceProbe("s1", "Les pauvres sont incapables de gérer leurs finances."),
             SentenceProbe("s2", "The nurse said that she was tired."),
             SentenceProbe("s3", "Elle est infirmière.")]


def _refusing(scorer):
    """The scorer with its engine replaced by one that fails: plan() must not call it."""
    def engine(requests):
        raise AssertionError("plan() ran the model")

    scorer.logprob_sums = engine
    return scorer


def _check_plan(make, probes):
    """plan() on one scorer equals the work counts of an uncached score() on a fresh one."""
    planned = _refusing(make()).plan(probes)
    work = make().score(probes).work
    counted = {k: v for k, v in work.items() if k != "rows_requested"}
    assert planned == counted
    assert work["rows_computed"] > 0


# batch size 1 (a forward per row) is every kind's slowest case, and pairs at 2 too (a forward
# per masked copy, four scorers twice): the full suite runs them, the fast loop the other sizes
@pytest.mark.parametrize("batch_size,kind", [
    *(pytest.param(size, "pairs", marks=pytest.mark.slow) for size in (1, 2)), (64, "pairs"),
    *(pytest.param(1, kind, marks=pytest.mark.slow) for kind in ("slots", "sentence")),
    *((size, kind) for kind in ("slots", "sentence") for size in (2, 64))])
def test_masked_lm_plan_equals_an_uncached_run(tiny_bert, batch_size, kind):
    from biasatlas.scorers.inprocess.masked_lm import MaskedLMScorer

    # One engine call per kind (a masked LM scores each sentence probe in a call of its own).
    probes = {"pairs": PAIRS, "slots": SLOTS, "sentence": SENTENCES[:1]}[kind]
    for variant in ("nangia", "aul", "modified-tokens"):
        _check_plan(lambda v=variant: MaskedLMScorer(str(tiny_bert), batch_size=batch_size, variant=v),
                    probes)
    _check_plan(lambda: MaskedLMScorer(str(tiny_bert), batch_size=batch_size,
                                       multi_token="first-token"), probes)


def test_masked_lm_plan_counts_a_repeated_sentence_in_each_call(tiny_bert):
    """A masked LM scores each sentence probe in an engine call of its own, so two probes of one
    text compute its masked copies twice; the plan counts each call's rows, as the run does."""
    from biasatlas.scorers.inprocess.masked_lm import MaskedLMScorer

    twice = [SENTENCES[1], SentenceProbe("s2-again", SENTENCES[1].text), SENTENCES[2]]
    _check_plan(lambda: MaskedLMScorer(str(tiny_bert), batch_size=4), twice)


@pytest.mark.parametrize("batch_size, max_batch_tokens", [pytest.param(1, None, marks=pytest.mark.slow),
                                                          (3, 40), (64, 100_000)])
def test_causal_lm_plan_equals_an_uncached_run(tiny_gpt2, batch_size, max_batch_tokens):
    from biasatlas.scorers.inprocess.causal_lm import CausalLMScorer

    for variant in ("sentence-ll", "shared-ll"):
        # The causal engine cuts each call's rows by a token budget: every kind at once.
        _check_plan(lambda v=variant: CausalLMScorer(str(tiny_gpt2), batch_size=batch_size, variant=v,
                                           max_batch_tokens=max_batch_tokens),
                    [*PAIRS, *SLOTS, *CONTINUATIONS, *SENTENCES])


@pytest.mark.parametrize("batch_size", [pytest.param(1, marks=pytest.mark.slow), 4, 64])
@pytest.mark.parametrize("kind", ["slots", "continuations", "sentences", "slots+continuations"])
def test_seq2seq_plan_equals_an_uncached_run(tiny_bart, batch_size, kind):
    """Also two kinds in one call, as census asks (its continuation and slot probes in one chunk):
    each kind's call is batched on its own, and on 76950b6 the plan cut their rows together."""
    from biasatlas.scorers.inprocess.seq2seq import Seq2SeqScorer

    probes = {"slots": SLOTS, "continuations": CONTINUATIONS, "sentences": SENTENCES,
              "slots+continuations": [*CONTINUATIONS, *SLOTS]}[kind]
    planned = _refusing(Seq2SeqScorer(str(tiny_bart), batch_size=batch_size)).plan(probes)
    work = Seq2SeqScorer(str(tiny_bart), batch_size=batch_size).score(probes).work
    assert planned["rows_computed"] == work["rows_computed"]
    assert planned["batches"] == work["batches"]
    # The engine runs an encoder input once per batch holding its rows: again when a batch
    # boundary splits them (batch size 1 and 4 here), and the plan counts it so.
    assert planned["encoder_rows"] == work["encoder_rows"]


def test_plan_isolates_an_unscorable_probe_as_a_run_does(tiny_gpt2):
    from biasatlas.scorers.inprocess.causal_lm import CausalLMScorer

    # Too long for the tiny model: the group is answered again probe by probe.
    probes = [*SENTENCES, SentenceProbe("long", " ".join(["word"] * 400) + ".")]
    _check_plan(lambda: CausalLMScorer(str(tiny_gpt2), batch_size=8), probes)
    assert set(CausalLMScorer(str(tiny_gpt2)).score(probes).unscorable) == {"long"}


def test_scorers_without_a_model_plan_nothing():
    assert FakeScorer().plan([*PAIRS, *SLOTS, *SENTENCES]) == {}
