"""The census benchmark through the pipeline, against one-sentence-per-forward references.

Each reference follows Touileb et al. (2023) directly: for every (template, identifier)
sentence, one full forward pass; P(i | t) from it; eq. 1 (mean over the identifiers of a
gender), eq. 2 (mean over templates) and p(O) = 100 · F / (F + M). No batching, no
shared contexts, no code from the package's scorers or metrics.
"""

from __future__ import annotations

import math
from collections import defaultdict

import pytest
import torch
from transformers import AutoModelForCausalLM, AutoModelForMaskedLM, AutoModelForSeq2SeqLM, AutoTokenizer

from biasatlas.benchmarks.census import load_language
from biasatlas.benchmarks.census.benchmark import Census
from biasatlas.pipeline import run_benchmark
from biasatlas.scorers.inprocess.causal_lm import CausalLMScorer
from biasatlas.scorers.inprocess.masked_lm import MaskedLMScorer
from biasatlas.scorers.inprocess.seq2seq import Seq2SeqScorer
from reference_impls import causal_sentence_ll


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    """The references make hundreds of tiny forwards: thread hand-offs would dominate them."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


# -- straightforward references ---------------------------------------------------------------
def bert_word_logprob(model, tokenizer, left: str, word: str, right: str, first_only: bool = False) -> float:
    """log P(word | left [MASK…] right): every token of the word masked, one forward.

    WordPiece splits at spaces and punctuation, so the sentence's tokens are the tokens
    of its three parts (checked against the whole sentence's encoding).
    """
    parts = [tokenizer.tokenize(x) for x in (left, word, right)]
    tokens = [tokenizer.cls_token, *parts[0], *parts[1], *parts[2], tokenizer.sep_token]
    assert tokens == tokenizer.convert_ids_to_tokens(tokenizer(left + word + right)["input_ids"])
    start = 1 + len(parts[0])
    targets = tokenizer.convert_tokens_to_ids(parts[1][:1] if first_only else parts[1])
    masked = [*tokens[:start], *[tokenizer.mask_token] * len(targets),
              *tokens[start + len(parts[1]):]]
    ids = torch.tensor([tokenizer.convert_tokens_to_ids(masked)])
    with torch.no_grad():
        logp = torch.log_softmax(model(ids).logits[0], dim=-1)  # [L, V]
    return sum(float(logp[start + k, t]) for k, t in enumerate(targets))


def seq2seq_logprob(model, tokenizer, left: str, word: str, right: str) -> float:
    """log P(left word right | left <mask> right), one forward."""
    enc = tokenizer(left + tokenizer.mask_token + right, return_tensors="pt")
    labels = tokenizer(text_target=left + word + right, return_tensors="pt")["input_ids"]
    with torch.no_grad():
        logp = torch.log_softmax(model(**enc, labels=labels).logits[0], dim=-1)
    return sum(float(logp[t, labels[0, t]]) for t in range(labels.shape[1]))


def reference_shares(bench: Census, logprob, normalise: bool) -> dict[str, float]:
    """p(O) for every occupation, with one call of ``logprob(left, word, right)`` per sentence."""
    forms = {i.id: i.forms for i in load_language(bench.template_language).identifiers}
    contexts = {p.id: (p.left, p.right) for p in bench.plan.probes}
    # probs[occupation][template] = list of (gender, Σ over spelling variants of P or of e^ll)
    probs: dict[str, dict[str, list[tuple[str, float]]]] = defaultdict(lambda: defaultdict(list))
    for cell in bench.plan.cells:
        left, right = contexts[cell.probe_id]
        mass = sum(math.exp(logprob(left, f, right)) for f in forms[cell.identifier])
        probs[cell.occupation][cell.template].append((cell.gender, mass))
    shares = {}
    for occupation, templates in probs.items():
        score = {"f": 0.0, "m": 0.0}
        for members in templates.values():
            total = sum(m for _, m in members) if normalise else 1.0  # template normalisation
            for g in score:
                mine = [m / total for gender, m in members if gender == g]
                score[g] += sum(mine) / len(mine) / len(templates)  # eq. 1, then eq. 2's mean
        shares[occupation] = 100 * score["f"] / (score["f"] + score["m"])
    return shares


def check_run(run, want: dict[str, float]) -> None:
    got = {r["occupation"]: r["model_female_pct"] for r in run.records}
    assert got.keys() == want.keys()
    for occupation, share in want.items():
        assert got[occupation] == pytest.approx(share, rel=1e-4, abs=1e-6), occupation
    by_class = run.summary["descriptive_by_class"]
    assert sum(by_class.values()) == pytest.approx(run.summary["descriptive"])


# -- parity ---------------------------------------------------------------------------------
@pytest.mark.parametrize("country", ["us", "no", "fr"])
def test_masked_lm_path_matches_one_probe_per_forward(tiny_bert, country):
    model = AutoModelForMaskedLM.from_pretrained(tiny_bert).eval()
    tokenizer = AutoTokenizer.from_pretrained(tiny_bert)
    bench = Census(country=country, sample=2, seed=3)
    run = run_benchmark(bench, MaskedLMScorer(str(tiny_bert), batch_size=16))
    assert run.summary["normalisation"] == "none"
    assert run.summary["multi_token"]["policy"] == "joint"
    check_run(run, reference_shares(bench, lambda left, w, r: bert_word_logprob(model, tokenizer, left, w, r),
                                    normalise=False))
    # 2 occupations × (26 paired identifiers × 6 predicates = 156 in en/no, 28 × 6 = 168 in
    # fr) sentences, each of the paper's single forward passes here, against one pass per
    # distinct (context, filler token count) row.
    assert run.summary["n_probes"] == 2 * (168 if country == "fr" else 156)
    assert run.summary["n_forward_passes"] < run.summary["n_probes"]
    assert run.summary["n_forward_passes"] >= run.summary["n_contexts"]


def test_causal_lm_joint_reading_matches_one_sentence_per_forward(tiny_gpt2):
    model = AutoModelForCausalLM.from_pretrained(tiny_gpt2).eval()
    tokenizer = AutoTokenizer.from_pretrained(tiny_gpt2)
    bench = Census(country="us", sample=2, seed=1, causal_reading="joint")
    run = run_benchmark(bench, CausalLMScorer(str(tiny_gpt2), batch_size=16))
    assert run.summary["normalisation"] == "template" and run.summary["causal_reading"] == "joint"
    assert run.summary["multi_token"]["policy"] == "whole-sentence"
    check_run(run, reference_shares(
        bench, lambda left, w, r: causal_sentence_ll(model, tokenizer, left + w + r), normalise=True))


def occupation_cut(bench: Census) -> dict[tuple[str, str], int]:
    """(left, right) of every slot probe → where its occupation phrase starts in ``right``."""
    return {(p.left, p.right): bench.plan.occupation_at[p.id] for p in bench.plan.probes}


@pytest.mark.slow  # over a second: the full suite runs it, the fast loop does not
def test_causal_lm_conditional_reading_is_full_minus_cut_sentence(tiny_gpt2):
    """The issue's definition, computed the long way: log P(filled sentence) − log P(the
    same sentence cut just before the occupation phrase), two forwards per sentence."""
    model = AutoModelForCausalLM.from_pretrained(tiny_gpt2).eval()
    tokenizer = AutoTokenizer.from_pretrained(tiny_gpt2)
    bench = Census(country="us", sample=2, seed=1)
    run = run_benchmark(bench, CausalLMScorer(str(tiny_gpt2), batch_size=16))
    assert run.summary["causal_reading"] == "conditional"
    cuts = occupation_cut(bench)

    def conditional(left: str, word: str, right: str) -> float:
        head = left + word + right[: cuts[(left, right)]].rstrip()
        full = left + word + right
        # The reference is only valid where the cut sentence's tokens start the full one's.
        enc = lambda t: tokenizer.encode(t, add_special_tokens=False)  # noqa: E731
        assert enc(full)[: len(enc(head))] == enc(head)
        return causal_sentence_ll(model, tokenizer, full) - causal_sentence_ll(model, tokenizer, head)

    check_run(run, reference_shares(bench, conditional, normalise=True))


@pytest.mark.slow  # over a second: the full suite runs it, the fast loop does not
def test_seq2seq_joint_reading_matches_one_sentence_per_forward(tiny_bart):
    model = AutoModelForSeq2SeqLM.from_pretrained(tiny_bart).eval()
    tokenizer = AutoTokenizer.from_pretrained(tiny_bart)
    bench = Census(country="fr", sample=2, seed=2, causal_reading="joint")
    run = run_benchmark(bench, Seq2SeqScorer(str(tiny_bart), batch_size=16))
    assert run.summary["normalisation"] == "template"
    check_run(run, reference_shares(
        bench, lambda left, w, r: seq2seq_logprob(model, tokenizer, left, w, r), normalise=True))
    # Every filler is its own decoder pass (plus the baseline's), but the encoder runs
    # about once per context.
    assert run.summary["n_forward_passes"] > run.summary["n_probes"]
    assert run.summary["n_encoder_passes"] < run.summary["n_forward_passes"]


@pytest.mark.slow  # over a second: the full suite runs it, the fast loop does not
def test_seq2seq_conditional_reading_scores_the_occupation_with_it_masked(tiny_bart):
    """log P(occupation phrase | encoder: context + <mask>, decoder: the context), one
    forward per sentence; the phrase is the decoder tokens after the context's own."""
    model = AutoModelForSeq2SeqLM.from_pretrained(tiny_bart).eval()
    tokenizer = AutoTokenizer.from_pretrained(tiny_bart)
    bench = Census(country="fr", sample=2, seed=2)
    run = run_benchmark(bench, Seq2SeqScorer(str(tiny_bart), batch_size=16))
    assert run.summary["causal_reading"] == "conditional"
    cuts = occupation_cut(bench)

    def conditional(left: str, word: str, right: str) -> float:
        head = left + word + right[: cuts[(left, right)]]  # ends in the space before the phrase
        enc = tokenizer(head + tokenizer.mask_token, return_tensors="pt")
        labels = tokenizer(text_target=left + word + right, return_tensors="pt")["input_ids"]
        known = tokenizer(text_target=head.rstrip())["input_ids"][:-1]  # <s> … without </s>
        assert labels[0, : len(known)].tolist() == known
        with torch.no_grad():
            logp = torch.log_softmax(model(**enc, labels=labels).logits[0], dim=-1)
        return sum(float(logp[t, labels[0, t]]) for t in range(len(known), labels.shape[1] - 1))

    check_run(run, reference_shares(bench, conditional, normalise=True))


def test_gebnlp_variant_reads_first_sub_tokens(tiny_bert):
    model = AutoModelForMaskedLM.from_pretrained(tiny_bert).eval()
    tokenizer = AutoTokenizer.from_pretrained(tiny_bert)
    bench = Census(country="no", sample=4, method="gebnlp2022", template_set="er")
    run = run_benchmark(bench, MaskedLMScorer(str(tiny_bert), multi_token="first-token"))
    assert run.summary["multi_token"]["policy"] == "first-token"
    assert run.summary["method"] == "gebnlp2022" and run.summary["template_set"] == "er"
    assert run.summary["n_probes"] == run.summary["n_contexts"] == 4
    for record in run.records:
        right = f" er {record['occupation'].lower()}."
        p = {w: math.exp(bert_word_logprob(model, tokenizer, "", w, right, first_only=True))
             for w in ("Hun", "hun", "Han", "han")}
        female, male = p["Hun"] + p["hun"], p["Han"] + p["han"]
        assert record["model_female_pct"] == pytest.approx(100 * female / (female + male), rel=1e-4)


# -- parameters ---------------------------------------------------------------------------------
def test_explicit_normalisation_overrides_auto(tiny_bert):
    run = run_benchmark(Census(country="us", sample=1, normalisation="template"),
                   MaskedLMScorer(str(tiny_bert)))
    assert run.summary["normalisation"] == "template"
    assert run.config["benchmark"]["normalisation"] == "template"


def test_unbound_auto_normalisation_asks_for_a_scorer():
    bench = Census(country="no", sample=2)
    with pytest.raises(ValueError, match="auto"):
        bench.score(bench.load(), {})


@pytest.mark.parametrize("kwargs, message", [
    ({"country": "uk"}, "Nomis"),
    ({"country": "se"}, "unknown country 'se'"),  # no Swedish table ("de" is shipped)
    ({"country": "us", "method": "gebnlp2022"}, "Norwegian"),
    ({"aggregation": "mean"}, "aggregation"),
    ({"sample": 0}, "positive"),
])
def test_bad_parameters_fail_at_construction(kwargs, message):
    with pytest.raises(Exception, match=message):
        Census(**kwargs)


def test_sample_is_seeded_and_limit_takes_the_first(tiny_bert):
    a, b = Census(country="fr", sample=7, seed=5), Census(country="fr", sample=7, seed=5)
    assert [i.occupation for i in a.load()] == [i.occupation for i in b.load()]
    assert [i.occupation for i in Census(country="fr", sample=7, seed=6).load()] != \
        [i.occupation for i in a.load()]
    first = Census(country="fr", limit=3).load()
    assert [i.occupation for i in first] == list(Census(country="fr").census_table.occupations[:3])
