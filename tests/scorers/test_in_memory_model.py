"""``biasatlas.evaluate(name, model=...)`` with a model already in memory (issue 22, item 8):
a transformers model and its tokenizer, or a built Scorer.

Parity is against the same weights saved to a folder and loaded by path: the per-item
records (every score, outcome and flag) must be equal, not close. Fingerprints are checked
where they matter, in the score cache: other weights, or the same object changed in place,
must never be served the first model's answers.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import torch
from transformers import AutoModelForCausalLM, AutoModelForMaskedLM, AutoModelForSeq2SeqLM, AutoTokenizer

import biasatlas
from biasatlas.errors import ModelError, UsageError
from biasatlas.request import GivenModel

CROWS = {"dataset": "en", "limit": 10, "progress": False}


pytestmark = pytest.mark.usefixtures("isolated_run")  # each test: its own cache and working folder


def _in_memory(auto_class, folder: Path):
    return auto_class.from_pretrained(folder), AutoTokenizer.from_pretrained(folder)


def _nudged(model):
    """A copy of ``model`` with one weight moved by 0.01."""
    other = copy.deepcopy(model)
    with torch.no_grad():
        next(other.parameters()).view(-1)[0] += 0.01
    return other


# -- parity with the same model loaded by path ------------------------------------------------------
def test_a_model_built_in_code_scores_as_the_same_model_saved_and_loaded(tmp_path, shared_data):
    import tiny_models
    from tiny_tokenizers import bert_tokenizer

    tokenizer = bert_tokenizer(shared_data)
    torch.manual_seed(tiny_models.SEED)
    model = AutoModelForMaskedLM.from_config(tiny_models._bert_config(len(tokenizer)))
    folder = tiny_models._save(model, tokenizer, tmp_path / "saved")
    held = biasatlas.evaluate("crows-pairs", model=(model, tokenizer), cache=False, **CROWS)
    loaded = biasatlas.evaluate("crows-pairs", model=str(folder), cache=False, **CROWS)
    assert held.records == loaded.records and len(held.records) == 10
    assert held.summary.metric_score == loaded.summary.metric_score
    assert held.summary_dict["scorer"] == loaded.summary_dict["scorer"] == "masked-lm"


@pytest.mark.parametrize("fixture,auto_class,kind", [
    ("tiny_gpt2", AutoModelForCausalLM, "causal-lm"),
    # the slowest case of the file (two census runs on BART): the full suite runs it
    pytest.param("tiny_bart", AutoModelForSeq2SeqLM, "seq2seq", marks=pytest.mark.slow)])
def test_causal_and_seq2seq_models_get_their_scorer_and_the_loaded_scores(request, fixture, auto_class, kind):
    folder = request.getfixturevalue(fixture)
    options = {"country": "no", "sample": 3, "progress": False, "cache": False}
    held = biasatlas.evaluate("census", model=_in_memory(auto_class, folder), **options)
    loaded = biasatlas.evaluate("census", model=str(folder), **options)
    assert held.summary_dict["scorer"] == kind == loaded.summary_dict["scorer"]
    assert held.records == loaded.records and held.summary.normative == loaded.summary.normative


# -- what the run records ------------------------------------------------------------------------
def test_the_run_says_it_was_an_in_memory_model(tiny_bert):
    model, tokenizer = _in_memory(AutoModelForMaskedLM, tiny_bert)
    run = biasatlas.evaluate("crows-pairs", model=(model, tokenizer), out="held", **CROWS)
    described = run.summary_dict["provenance"]["scorer"]
    assert run.summary_dict["model"] == "BertForMaskedLM (in memory)" and described["location"] == "in memory"
    identity = described["in_memory"]
    assert identity["class"] == "transformers.models.bert.modeling_bert.BertForMaskedLM"
    assert "file_sha256" not in described and "revision" not in described  # nothing claimed it has not got
    assert json.loads(Path("held/config.json").read_text())["scorer"]["in_memory"] == identity
    owner = json.loads(Path("held/.biasatlas-run.json").read_text())
    assert owner["model"]["in_memory"] == identity
    from biasatlas.runs.folder import RunFolderError

    with pytest.raises(RunFolderError, match="another run"):  # other weights: another run, not a rewrite
        biasatlas.evaluate("crows-pairs", model=(_nudged(model), tokenizer), out="held", **CROWS)


def test_the_state_hash_is_of_every_tensor(tiny_bert):
    """An independent hash: each tensor of the state dict in order, as float32 bytes."""
    import hashlib

    model, tokenizer = _in_memory(AutoModelForMaskedLM, tiny_bert)
    digest = hashlib.sha256()
    for name, tensor in model.state_dict().items():
        digest.update(f"{name}\0{tensor.dtype}\0{tuple(tensor.shape)}\0".encode())
        digest.update(tensor.contiguous().numpy().tobytes())
    identity = GivenModel.of((model, tokenizer)).given.identity()
    assert identity["state_sha256"] == digest.hexdigest()


# -- the cache never confuses two models ---------------------------------------------------------
def test_different_weights_get_different_fingerprints_and_no_cached_answers(tiny_bert):
    model, tokenizer = _in_memory(AutoModelForMaskedLM, tiny_bert)
    first = biasatlas.evaluate("crows-pairs", model=(model, tokenizer), **CROWS)
    same = biasatlas.evaluate("crows-pairs", model=(model, tokenizer), **CROWS)
    other = biasatlas.evaluate("crows-pairs", model=(_nudged(model), tokenizer), **CROWS)
    key = [r.summary_dict["provenance"]["scorer_fingerprint"] for r in (first, same, other)]
    assert key[0] == key[1] != key[2]
    assert same.timing["cache_hits"] == 10 and other.timing["cache_hits"] == 0
    with torch.no_grad():  # the same object, changed in place (what a training step does)
        next(model.parameters()).view(-1)[0] -= 0.01
    changed = biasatlas.evaluate("crows-pairs", model=(model, tokenizer), **CROWS)
    assert changed.summary_dict["provenance"]["scorer_fingerprint"] not in (key[0], key[2])
    assert changed.timing["cache_hits"] == 0


# -- a Scorer instance ---------------------------------------------------------------------------
def test_a_scorer_instance_is_used_as_it_is(tiny_bert):
    from biasatlas.scorers.fake import FakeScorer
    from biasatlas.scorers.inprocess.masked_lm import MaskedLMScorer

    scorer = MaskedLMScorer(str(tiny_bert), batch_size=8)
    given = biasatlas.evaluate("crows-pairs", model=scorer, **CROWS)
    named = biasatlas.evaluate("crows-pairs", model=str(tiny_bert), batch_size=8, cache=False, **CROWS)
    assert given.records == named.records
    # a scorer of the user's, with a known preference: a sentence holding "the" gains 100 (fake.py)
    biased = biasatlas.evaluate("crows-pairs", model=FakeScorer(boost=("the",), bias=100.0), **CROWS)
    plain = biasatlas.evaluate("crows-pairs", model="fake", **CROWS)  # the same hashes, no bonus
    boosted = 0
    for mine, theirs in zip(biased.records, plain.records, strict=True):
        for side in ("sent_more", "sent_less"):
            bonus = 100.0 if "the" in mine[side] else 0.0
            boosted += bool(bonus)
            assert mine[f"{side}_score"] - theirs[f"{side}_score"] == pytest.approx(bonus, abs=2e-3), mine["id"]
    assert boosted  # the check above saw the bonus at work
    with pytest.raises(UsageError, match="set batch_size when you build it"):
        biasatlas.evaluate("crows-pairs", model=scorer, batch_size=4, **CROWS)


# -- refusals, before any scoring ----------------------------------------------------------------
def test_what_an_in_memory_model_cannot_do(tiny_bert):
    pair = _in_memory(AutoModelForMaskedLM, tiny_bert)
    with pytest.raises(UsageError, match="lives in this process"):
        biasatlas.evaluate("crows-pairs", model=pair, engine="ray", **CROWS)
    with pytest.raises(ModelError, match="holds float32 weights, not bfloat16"):
        biasatlas.evaluate("crows-pairs", model=pair, dtype="bfloat16", **CROWS)
    with pytest.raises(UsageError, match="not dict"):
        biasatlas.evaluate("crows-pairs", model={"weights": 1}, **CROWS)
    assert GivenModel.of(pair).kind() == "masked-lm"
