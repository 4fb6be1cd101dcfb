"""Served answers of the wrong shape (issue 46): every field a reader takes from a server's answer is read
as its type (scorers/served/answer.py), so each of these is one line naming the URL and the field (a
``WrongShape``, a :class:`ServerError`: exit 1), never a TypeError, never a value coerced or skipped."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

httpx = pytest.importorskip("httpx", reason="the served scorer needs httpx")

from biasatlas.cli import main  # noqa: E402
from biasatlas.probes import ChatTokens, ContinuationProbe, GenerationAnswer, GenerationProbe, PairProbe  # noqa: E402
from biasatlas.scorers.served import completions as served  # noqa: E402
from biasatlas.scorers.served.completions import ServedScorer  # noqa: E402
from biasatlas.scorers.served.chat import LocalTokenizer  # noqa: E402
from biasatlas.scorers.served.http import ServerError as WrongShape  # noqa: E402  (WrongShape's base)
from served_fake import URL, FakeServer, Listening, Reshaped, toy_ids  # noqa: E402

COMPLETIONS = f"{URL}/completions"


def _choices(edit: Callable[[dict[str, Any]], None], *, generated: bool) -> Callable[[str, Any], Any]:
    """A change of each completions choice: the echoed prompts' (``generated`` False) or the generated texts'."""
    def change(path: str, body: Any) -> Any:
        if path == "/v1/completions":
            for choice in body["choices"]:
                if ("token_logprobs" not in choice["logprobs"]) == generated:
                    edit(choice)
        return body
    return change


def _at(path: str, answer: Any) -> Callable[[str, Any], Any]:
    return lambda seen, body: answer if seen == path else body


def _logprobs(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda choice: choice["logprobs"].__setitem__(key, value)


def _first(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """An edit of a logprobs list's first element (of ``token_logprobs``, whose first is null: its second)."""
    at = 1 if key == "token_logprobs" else 0

    def edit(choice: dict[str, Any]) -> None:
        if len(choice["logprobs"][key]) > at:
            choice["logprobs"][key][at] = value
    return edit


def _scorer(change: Callable[[str, Any], Any]) -> ServedScorer:
    return ServedScorer(URL, served_prefix="<s>", transport=Reshaped(FakeServer(), change).transport(),
                        sleep=lambda s: None)


ECHOED = [  # (id, change, the message's end): the canary is refused as the scorer connects
    ("index-null", _choices(lambda c: c.__setitem__("index", None), generated=False),
     f"{COMPLETIONS} answered choices[0].index = None, not a whole number"),
    ("index-missing", _choices(lambda c: c.pop("index"), generated=False),
     f"{COMPLETIONS} answered choices[0].index = nothing, not a whole number"),
    ("text_offset-5", _choices(_logprobs("text_offset", 5), generated=False),
     f"{COMPLETIONS} answered choices[0].logprobs.text_offset = 5, not a list"),
    ("offset-text", _choices(_first("text_offset", "0"), generated=False),
     f"{COMPLETIONS} answered choices[0].logprobs.text_offset[0] = '0', not a whole number of at least 0"),
    ("token-number", _choices(_first("tokens", 5), generated=False),
     f"{COMPLETIONS} answered choices[0].logprobs.tokens[0] = 5, not a string"),
    ("logprob-text", _choices(_first("token_logprobs", "-1.5"), generated=False),
     f"{COMPLETIONS} answered choices[0].logprobs.token_logprobs[1] = '-1.5', not a number"),
    ("logprobs-5", _choices(lambda c: c.__setitem__("logprobs", 5), generated=False),
     f"{COMPLETIONS} answered choices[0].logprobs = 5, not an object"),
    ("choice-5", _at("/v1/completions", {"choices": [5]}), f"{COMPLETIONS} answered choices[0] = 5, not an object"),
    ("body-list", _at("/v1/completions", []), f"{COMPLETIONS} answered a body = [], not an object"),
    ("data-5", _at("/v1/models", {"data": 5}), f"{URL}/models answered data = 5, not a list"),
    ("model-id-5", _at("/v1/models", {"data": [{"id": 5}]}), f"{URL}/models answered data[0].id = 5, not a string"),
    ("model-5", _at("/v1/models", {"data": [5]}), f"{URL}/models answered data[0] = 5, not an object"),
    ("root-object", _at("/v1/models", {"data": [{"id": "toy", "root": {"a": 1}}]}),
     f"{URL}/models answered data[0].root = {{'a': 1}}, not a string"),
    ("version-5", _at("/version", {"version": 5}), "http://127.0.0.1:8011/version answered version = 5, not a string"),
]


@pytest.mark.parametrize(("change", "message"), [c[1:] for c in ECHOED], ids=[c[0] for c in ECHOED])
def test_an_answer_of_the_wrong_shape_is_refused_naming_the_url_and_the_field(change, message) -> None:
    with pytest.raises(WrongShape, match=f"^{re.escape(message)}$"):
        _scorer(change)


GENERATED = [  # (id, change, the message's end): refused as a generation probe is answered
    ("index-first", _choices(lambda c: c.__setitem__("index", "first"), generated=True),
     f"{COMPLETIONS} answered choices[0].index = 'first', not a whole number"),
    ("text-5", _choices(lambda c: c.__setitem__("text", 5), generated=True),
     f"{COMPLETIONS} answered choices[0].text = 5, not a string"),
    ("tokens-5", _choices(_logprobs("tokens", 5), generated=True),
     f"{COMPLETIONS} answered choices[0].logprobs.tokens = 5, not a list"),
    ("finish-5", _choices(lambda c: c.__setitem__("finish_reason", 5), generated=True),
     f"{COMPLETIONS} answered choices[0].finish_reason = 5, not a string"),
    ("stop-list", _choices(lambda c: c.__setitem__("stop_reason", [1]), generated=True),
     f"{COMPLETIONS} answered choices[0].stop_reason = [1], not a whole number"),
]


@pytest.mark.parametrize(("change", "message"), [c[1:] for c in GENERATED], ids=[c[0] for c in GENERATED])
def test_a_generated_answer_of_the_wrong_shape_is_refused_naming_the_url_and_the_field(change, message) -> None:
    scorer = _scorer(change)
    with pytest.raises(WrongShape, match=f"^{re.escape(message)}$"):
        scorer.score([GenerationProbe("g", "Q: who?\nA:", 3)])


def test_a_stop_tokens_id_as_stop_reason_is_read_as_vllm_says_it() -> None:
    """vLLM's ``stop_reason`` is the stop string, or the id of a stop token (an int), or null."""
    scorer = _scorer(_choices(lambda c: c.update(finish_reason="stop", stop_reason=2), generated=True))
    assert scorer.score([GenerationProbe("g", "Q?", 3)])["g"] == GenerationAnswer("g", " and and and", 3, "eos")


def test_two_choices_of_one_index_are_refused_rather_than_given_to_the_wrong_prompt() -> None:
    """Both prompts of a pair go in one request; a server answering both as index 0 would have the second
    answer scored as the first's, so the pair's two sentences would be read from one (index 1 is missing)."""
    def twice(path: str, body: Any) -> Any:
        if path == "/v1/completions" and len(body["choices"]) == 2:
            body["choices"][1]["index"] = 0
        return body

    def once(path: str, body: Any) -> Any:
        if path == "/v1/completions" and len(body["choices"]) == 2:
            body["choices"].pop()
        return body

    pair = PairProbe("p", "The man cried.", "The woman cried.")
    with pytest.raises(WrongShape, match=re.escape(f"{COMPLETIONS} answered choices of index [0] for 2 prompts "
                                                   "(0 to 1, each once)")):
        _scorer(twice).score([pair])
    with pytest.raises(WrongShape, match=re.escape(f"{COMPLETIONS} answered 1 choices for 2 prompts")):
        _scorer(once).score([pair])


def test_a_by_id_value_of_the_wrong_shape_is_refused_not_skipped() -> None:
    """A ``token_id:N`` whose value is no number was skipped, then read as 'no log-probability'; at start, a
    by-id answer of the wrong shape leaves the run on the echo reading, saying why."""
    broken = {"on": False}

    def change(path: str, body: Any) -> Any:
        for choice in body.get("choices", []) if broken["on"] else []:
            tops = choice["logprobs"].get("top_logprobs") or [None]
            if isinstance(tops[0], dict):
                tops[0].update({k: str(v) for k, v in tops[0].items()})
        return body

    scorer = ServedScorer(URL, served_prefix="<s>", start_token="always", token_ids=toy_ids, sleep=lambda s: None,
                          transport=Reshaped(FakeServer(by_id=True), change).transport())
    assert scorer.single_token == "logprob_token_ids"
    broken["on"] = True
    with pytest.raises(WrongShape, match=re.escape(f"{COMPLETIONS} answered choices[0].logprobs.top_logprobs[0]"
                                                   "['token_id:")):
        scorer.score([ContinuationProbe("q", ("Is she hired? Answer:",), " yes")])
    at_start = ServedScorer(URL, served_prefix="<s>", start_token="always", token_ids=toy_ids, sleep=lambda s: None,
                            transport=Reshaped(FakeServer(by_id=True), change).transport())
    assert at_start.single_token == "echo" and f"{COMPLETIONS} answered choices[0].logprobs.top_logprobs[0]" \
        in str(at_start.single_token_why)


class _Tokenizer:
    """Just enough of a tokenizer for the /tokenize cross-check (its ids never match: [1, 2])."""

    def apply_chat_template(self, messages: Any, **_: Any) -> str:
        return "rendered"

    def __call__(self, text: str, add_special_tokens: bool = True) -> dict[str, list[int]]:
        return {"input_ids": [1, 2]}


def test_a_tokenize_answer_of_the_wrong_shape_is_named_not_read_as_another_rendering(monkeypatch) -> None:
    """``/tokenize`` answering tokens that are no ids was compared with ours and called another template."""
    monkeypatch.setattr(served, "local_tokenizer", lambda root: LocalTokenizer(_Tokenizer(), "/models/toy"))
    monkeypatch.setattr(served, "served_chat", lambda *args: ChatTokens("{{ x }}"))
    with pytest.raises(WrongShape, match=re.escape("http://127.0.0.1:8011/tokenize answered tokens[1] = '2', "
                                                   "not a whole number")):
        ServedScorer(URL, served_prefix="<s>", single_token="echo", sleep=lambda s: None,
                     transport=FakeServer(tokenized=[1, "2"]).transport())  # type: ignore[list-item]


CHAT = f"{URL}/chat/completions"


def _chat(answer: dict[str, Any]) -> httpx.MockTransport:
    def handle(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/models":
            return httpx.Response(200, json={"data": [{"id": "gw"}]})
        if request.url.path == "/v1/chat/completions":
            return httpx.Response(200, json=answer)
        return httpx.Response(404, json={"detail": "Not Found"})
    return httpx.MockTransport(handle)


@pytest.mark.parametrize(("answer", "message"), [
    ({"choices": [{"index": 0, "message": {"content": 5}}]},
     f"{CHAT} answered choices[0].message.content = 5, not a string"),
    ({"choices": [{"message": {"content": "Yes"}}]}, f"{CHAT} answered choices[0].index = nothing, not a whole number"),
    ({"choices": [{"index": 0, "message": {"content": "Yes"}}], "usage": {"completion_tokens": "2"}},
     f"{CHAT} answered usage.completion_tokens = '2', not a whole number of at least 0"),
    ({"choices": 5}, f"{CHAT} answered choices = 5, not a list"),
], ids=["content-5", "index-missing", "usage-text", "choices-5"])
def test_a_chat_answer_of_the_wrong_shape_is_refused_naming_the_url_and_the_field(answer, message) -> None:
    from biasatlas.scorers.served.chat_api import ServedChatScorer

    canary = {"choices": [{"index": 0, "message": {"content": "Yes"}}]}
    scorer = ServedChatScorer(URL, transport=_chat(canary), sleep=lambda s: None)
    scorer.client = type(scorer.client)(scorer.endpoint, None, transport=_chat(answer), sleep=lambda s: None)
    with pytest.raises(WrongShape, match=f"^{re.escape(message)}$"):
        scorer._generations([GenerationProbe("g", "Q?", 3, user="Q?")], lambda n: None)


def test_check_server_refuses_an_answer_of_the_wrong_shape_in_one_line(capsys) -> None:
    listening = Listening(Reshaped(FakeServer(), _at("/v1/models", {"data": 5})))  # type: ignore[arg-type]
    try:
        with pytest.raises(SystemExit) as ended:
            main(["check-server", listening.url, "--served-prefix", "<s>"])
    finally:
        listening.close()
    said = capsys.readouterr()
    assert ended.value.code == 1 and said.err == f"error: {listening.url}/models answered data = 5, not a list\n", said
