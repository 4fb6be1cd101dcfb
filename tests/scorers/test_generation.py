"""Generated answers (issue 38): the in-process causal scorer's greedy texts equal a plain greedy loop
written here, whatever the batch; the cache gives a text back exactly; a served model's texts are read
from /v1/completions with the request it should send; scorers without a generator refuse clearly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from biasatlas.cache import ScoreCache
from biasatlas.errors import UnsupportedProbe
from biasatlas.probes import GenerationAnswer, GenerationProbe
from biasatlas.scorers.generation import cut, same_length_batches

PROMPTS = ["The nurse said that", "He is a", "The doctor and the nurse talked. Who was rude?", "She is a",
           "The man"]


def test_cut_stops_before_the_earliest_stop_string() -> None:
    # "\n\n" at 5, "Q:" at 7: the earlier wins, whatever the order of the rule
    assert cut(" Bob.\n\nQ: x", ("Q:", "\n\n")) == (" Bob.", True)
    assert cut(" Bob.", ("\n\n",)) == (" Bob.", False)
    assert cut("\n\nBob", ("\n\n",)) == ("", True)


def test_batches_hold_rows_of_one_length_only() -> None:
    # lengths 3,5,3,3,5 → the 3s in order, cut at 2; then the 5s
    assert same_length_batches([3, 5, 3, 3, 5], 2) == [[0, 2], [3], [1, 4]]


def test_a_probe_refuses_an_empty_stop_string_and_no_new_tokens() -> None:
    with pytest.raises(ValueError, match="empty string"):
        GenerationProbe("g", "x", 4, ("",))
    with pytest.raises(ValueError, match="max_new_tokens"):
        GenerationProbe("g", "x", 0)


def _greedy(model, tokenizer, prompt: str, n: int, stop: tuple[str, ...]) -> str:
    """A plain greedy loop: the argmax of the last position's logits, appended, n times or until EOS;
    decoded, cut before the first stop string (the reference the scorer must equal)."""
    import torch

    ids = tokenizer(prompt)["input_ids"]
    new: list[int] = []
    for _ in range(n):
        with torch.no_grad():
            logits = model(input_ids=torch.tensor([ids + new])).logits[0, -1]
        token = int(torch.argmax(logits))
        new.append(token)
        if token == tokenizer.eos_token_id:
            break
    text = tokenizer.decode(new, skip_special_tokens=True)
    found = [i for i in (text.find(s) for s in stop) if i >= 0]
    return text[: min(found)] if found else text


@pytest.mark.slow
def test_the_causal_scorer_generates_what_a_plain_greedy_loop_does_in_any_batch(tiny_gpt2: Path) -> None:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from biasatlas.scorers.inprocess.causal_lm import CausalLMScorer

    model = AutoModelForCausalLM.from_pretrained(tiny_gpt2).eval()
    tokenizer = AutoTokenizer.from_pretrained(tiny_gpt2)
    probes = [GenerationProbe(f"g{i}", p, 6, (" the",) if i % 2 else ()) for i, p in enumerate(PROMPTS)]
    want = {p.id: _greedy(model, tokenizer, p.prompt, 6, p.stop) for p in probes}
    for batch_size in (1, 4):
        got = CausalLMScorer(str(tiny_gpt2), batch_size=batch_size).score(probes)
        assert {pid: a.text for pid, a in got.items()} == want  # type: ignore[union-attr]
    assert all(isinstance(a, GenerationAnswer) and a.n_tokens >= 1 for a in got.values())


def test_a_generated_text_round_trips_the_cache_exactly(tmp_path: Path) -> None:
    probe = GenerationProbe("g", "Q: who?\nA:", 8, ("\n\n",))
    odd = GenerationAnswer("g", " The grandfather.\n  café \u200b \U0001f600 \ufffd \\n\"", 7, "stop")
    cache = ScoreCache(tmp_path / "c.sqlite")
    cache.put("fp", [probe], {"g": odd})
    assert cache.get("fp", [GenerationProbe("renamed", probe.prompt, 8, ("\n\n",))])["renamed"] == \
        GenerationAnswer("renamed", odd.text, 7, "stop")
    # another stop rule or budget is another question: no hit
    assert cache.get("fp", [GenerationProbe("g", probe.prompt, 8, ())]) == {}
    assert cache.get("fp", [GenerationProbe("g", probe.prompt, 9, ("\n\n",))]) == {}


def test_a_scorer_without_a_generator_refuses_generation_probes() -> None:
    from biasatlas.scorers.fake import FakeScorer

    with pytest.raises(UnsupportedProbe, match="does not generate text"):
        FakeScorer().score([GenerationProbe("g", "x")])


def test_a_served_model_answers_from_completions_at_temperature_zero() -> None:
    httpx = pytest.importorskip("httpx")
    from biasatlas.scorers.served.generation import completions

    bodies: list[dict] = []

    def post(path: str, body: dict) -> dict:
        assert path == "completions"
        bodies.append(body)
        return {"choices": [  # out of order on purpose: read by index
            {"index": 1, "text": " She did.", "finish_reason": "stop", "stop_reason": None,
             "logprobs": {"tokens": [" She", " did", "."]}},
            {"index": 0, "text": " Bob", "finish_reason": "stop", "stop_reason": "\n\n",
             "logprobs": {"tokens": [" Bob"]}}]}

    probes = [GenerationProbe("a", "p1", 5, ("\n\n",)), GenerationProbe("b", "p2", 5, ("\n\n",))]
    got = completions(post, "m", probes, batch_size=8, tick=lambda n: None, where="here")
    assert got == [GenerationAnswer("a", " Bob", 1, "stop"), GenerationAnswer("b", " She did.", 3, "eos")]
    assert bodies == [{"model": "m", "prompt": ["p1", "p2"], "max_tokens": 5, "temperature": 0, "logprobs": 0,
                       "stop": ["\n\n"]}]
    assert httpx is not None and json.dumps(bodies)  # the body is plain JSON


def test_the_served_scorer_sends_generation_probes_to_completions_without_echo() -> None:
    pytest.importorskip("httpx")
    from biasatlas.scorers.served.completions import ServedScorer
    from served_fake import URL, FakeServer

    fake = FakeServer()
    served = ServedScorer(URL, transport=fake.transport(), sleep=lambda s: None, served_prefix="<s>")
    got = served.score([GenerationProbe("g1", "Q: who?\nA:", 3), GenerationProbe("g2", "Q: why?\nA:", 3)])
    assert got["g1"] == GenerationAnswer("g1", " and and and", 3, "length")
    sent = [body for _, url, _, body in fake.seen if url.endswith("/completions") and not body.get("echo")]
    assert sent == [{"model": "toy", "prompt": ["Q: who?\nA:", "Q: why?\nA:"], "max_tokens": 3, "temperature": 0,
                     "logprobs": 0}]
