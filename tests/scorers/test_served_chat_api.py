"""Generated answers through ``/v1/chat/completions`` (``--served-api chat``; biasatlas.scorers.served.chat_api)
against a chat-only gateway in this process: the request sent, the answer read, likelihoods refused with the
reason, the cache keys of the completions path left as they were, faults, and a swapped model."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from biasatlas.benchmarks.bbq import BBQ
from biasatlas.benchmarks.bbq.data import Example
from biasatlas.cache import probe_key
from biasatlas.errors import UnsupportedProbe, UsageError
from biasatlas.model_options import ModelOptions
from biasatlas.probes import GenerationAnswer, GenerationProbe, SentenceProbe
from biasatlas.scorers.served.chat import PROBE_MESSAGE

httpx = pytest.importorskip("httpx")

URL = "http://127.0.0.1:8012/v1"
EXAMPLE = Example(id="Age/1", category="Age", template="Age/1", polarity="neg", ambiguous=True, context="C.",
                  question="Who?", options=("The old", "Unknown", "The young"), label=1, unknown=1, target=0)


@dataclass
class ChatGateway:
    """A chat-only server: ``/v1/models`` and ``/v1/chat/completions``, nothing else (no completions, no
    /tokenize, no /version). Its "model" answers ``"<said> " + the message's last word`` and then a blank
    line and more text, which the stop string must cut; ``said`` changes to swap the model."""

    said: str = "The"
    faults: list[int] = field(default_factory=list)
    interrupt_at: int | None = None  # Ctrl-C as this chat request (counting the canaries) is answered
    swap_after: int | None = None  # chat requests (counting the canaries) after which another model answers
    seen: list[tuple[str, Any]] = field(default_factory=list)

    def handle(self, request: Any) -> Any:
        body = json.loads(request.content) if request.content else None
        self.seen.append((request.url.path, body))
        if self.faults:
            status = self.faults.pop(0)
            return httpx.Response(status, json={"error": {"message": f"fault {status}"}})
        if request.url.path == "/v1/models":
            return httpx.Response(200, json={"data": [{"id": "gw", "root": "/nowhere/gw", "owned_by": "gateway"}]})
        if request.url.path != "/v1/chat/completions":
            return httpx.Response(404, json={"detail": "Not Found"})
        if self.interrupt_at == sum(path == "/v1/chat/completions" for path, _ in self.seen):
            raise KeyboardInterrupt
        text = f"{self._said()} {body['messages'][-1]['content'].split()[-1]}\n\nAnd more."
        if body.get("stop"):
            text = text.split(body["stop"][0])[0]
        return httpx.Response(200, json={"choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                                      "finish_reason": "stop", "stop_reason": "\n\n"}],
                                         "usage": {"completion_tokens": 2}})

    def _said(self) -> str:
        asked = sum(path == "/v1/chat/completions" for path, _ in self.seen)
        return "Another" if self.swap_after is not None and asked > self.swap_after else self.said


def _scorer(gateway: ChatGateway) -> Any:
    from biasatlas.scorers.served import served_scorer

    return served_scorer(URL, served_api="chat", transport=httpx.MockTransport(gateway.handle), sleep=lambda s: None)


def test_a_chat_only_gateway_is_asked_one_user_message_at_temperature_zero() -> None:
    gateway = ChatGateway()
    scorer = _scorer(gateway)
    assert "/v1/completions" not in [path for path, _ in gateway.seen]  # never asked: it has none
    bench = BBQ(answers="generated", chat_template="model", max_new_tokens=7).bind(scorer.info)
    [probe] = bench.probes([EXAMPLE])
    user = "C.\n\nQ: Who?\nA:"  # lm-eval's bbq_generate text, unrendered: the server renders it
    assert probe == GenerationProbe("Age/1", user, 7, ("\n\n",), user=user)
    scored = scorer.score([probe])
    assert scored["Age/1"] == GenerationAnswer("Age/1", "The A:", 2, "stop")
    (path, body), canary = gateway.seen[-2], gateway.seen[-1]  # the chat canary is asked again after
    assert path == "/v1/chat/completions" and canary[1]["messages"][0]["content"] == PROBE_MESSAGE
    assert body == {"model": "gw", "messages": [{"role": "user", "content": user}], "max_tokens": 7,
                    "temperature": 0, "n": 1, "stop": ["\n\n"]}
    described = scorer.describe()
    assert (described["api"], described["chat_template"], described["root"]) == ("chat", "server", "/nowhere/gw")
    assert bench.chat_label() == "model (the server's)"


def test_only_the_servers_template_is_asked_for_and_likelihoods_are_refused_with_the_reason() -> None:
    info = _scorer(ChatGateway()).info
    with pytest.raises(UsageError, match=r"--chat-template none: --served-api chat .* use --chat-template model"):
        BBQ(answers="generated").bind(info)
    likelihood = BBQ(chat_template="model").bind(info)
    with pytest.raises(UsageError, match="no prompt log-probabilities .*issues 942 and 1196"):
        likelihood.probes([EXAMPLE])
    with pytest.raises(UnsupportedProbe, match="sentence probes need prompt log-probabilities.*942 and 1196"):
        _scorer(ChatGateway()).score([SentenceProbe("s", "A sentence.")])
    with pytest.raises(UnsupportedProbe, match="a text prompt, not a user message"):
        _scorer(ChatGateway()).score([GenerationProbe("g", "<|user|>rendered here")])


def test_a_text_prompts_cache_key_is_as_it_was_and_a_messages_is_another() -> None:
    plain = GenerationProbe("g", "C.\n\nQ: Who?\nA:", 7, ("\n\n",))
    # the key as it was before probes could carry a message: the kind and every field but the id
    want = hashlib.sha256(json.dumps(["generation", plain.prompt, 7, ["\n\n"]]).encode("utf-8")).hexdigest()
    assert probe_key(plain) == want
    assert probe_key(GenerationProbe("g", plain.prompt, 7, ("\n\n",), user=plain.prompt)) != want


def test_the_cache_key_is_the_chat_canarys_and_a_swapped_model_stops_the_run() -> None:
    from biasatlas.scorers.served.http import ServerError

    gateway = ChatGateway()
    scorer = _scorer(gateway)
    assert _scorer(ChatGateway()).fingerprint() == scorer.fingerprint()  # the same answers: the same key
    assert _scorer(ChatGateway(said="A")).fingerprint() != scorer.fingerprint()
    gateway.said = "Another"
    with pytest.raises(ServerError, match="changed during the run"):
        scorer.score([GenerationProbe("g", "x", 4, user="x")])


def test_a_model_swapped_inside_a_score_call_keeps_nothing_of_it() -> None:
    from biasatlas.scorers.served.http import ServerError

    gateway = ChatGateway()
    scorer = _scorer(gateway)
    gateway.swap_after = 1 + 1 + 2  # the construction's canary, the score call's, then two of the four probes
    probes = [GenerationProbe(f"g{i}", f"Q{i}", 4, user=f"Q{i}") for i in range(4)]
    with pytest.raises(ServerError, match="changed during the run .*none of the chunk it moved in"):
        scorer.score(probes)


def test_ctrl_c_through_the_engine_keeps_the_finished_requests() -> None:
    from biasatlas.scorers.engines import score_chunk
    from biasatlas.scorers.resume import Interrupted

    gateway = ChatGateway(interrupt_at=5)  # the construction's canary, the score call's, g0, g1; Ctrl-C in g2
    scorer = _scorer(gateway)
    scorer.concurrency = 1
    probes = [GenerationProbe(f"g{i}", f"Q{i}", 4, user=f"Q{i}") for i in range(4)]
    with pytest.raises(KeyboardInterrupt) as stopped:
        score_chunk(scorer, probes, frozenset())
    assert isinstance(stopped.value, Interrupted)  # not a bare KeyboardInterrupt, which keeps nothing
    assert sorted(stopped.value.finished) == ["g0", "g1"]


def test_faults_are_retried_and_a_refusal_is_named() -> None:
    gateway = ChatGateway()
    scorer = _scorer(gateway)
    gateway.faults = [429, 503]
    probe = GenerationProbe("g", "Who?", 4, ("\n\n",), user="Who?")
    assert scorer.score([probe])["g"].text == "The Who?"  # type: ignore[union-attr]
    gateway.faults = [400]
    with pytest.raises(Exception, match=r"chat/completions refused POST: HTTP 400 fault 400"):
        scorer.score([probe])


def test_ctrl_c_keeps_the_answers_of_the_requests_finished() -> None:
    from biasatlas.scorers.resume import Interrupted
    from biasatlas.scorers.served import served_scorer

    gateway = ChatGateway()
    scorer = served_scorer(URL, served_api="chat", concurrency=1, transport=httpx.MockTransport(gateway.handle))
    gateway.interrupt_at = 5  # the construction's canary, the score call's canary, g0, g1; Ctrl-C during g2
    probes = [GenerationProbe(f"g{i}", f"Q{i}", 4, user=f"Q{i}") for i in range(4)]
    with pytest.raises(Interrupted) as stopped:
        scorer.score(probes)
    assert sorted(stopped.value.finished) == ["g0", "g1"]
    assert stopped.value.finished["g1"] == GenerationAnswer("g1", "The Q1\n\nAnd more.", 2, "stop")


def test_the_setting_is_recorded_only_when_set_and_only_for_a_url() -> None:
    assert "served_api" not in ModelOptions(model=URL).recorded()
    assert ModelOptions(model=URL, served_api="chat").recorded()["served_api"] == "chat"
    with pytest.raises(UsageError, match="--served-api chat: completions or chat, with --model URL"):
        ModelOptions(model="smollm2-135m", served_api="chat")
