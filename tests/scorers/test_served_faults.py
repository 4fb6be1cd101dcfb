"""Faults and secrets of the served scorer's client (scorers/served/http.py): retries with bounded
jittered backoff, refusals named at once, no user-info in URLs, the key only from the
environment, never in a message, never sent elsewhere."""

from __future__ import annotations

import pytest

httpx = pytest.importorskip("httpx", reason="the served scorer needs httpx")

from biasatlas.errors import UsageError  # noqa: E402
from biasatlas.request import ModelOptions  # noqa: E402
from biasatlas.scorers.served.completions import ServedScorer  # noqa: E402
from biasatlas.scorers.served.http import (ATTEMPTS, BACKOFF_CAP, Endpoint, ServedClient, ServerError,  # noqa: E402
                                           api_key)
from served_fake import URL, FakeServer  # noqa: E402

KEY = "sk-test-5ecret-never-written"


def client(fake: FakeServer, waits: list[float], key: str | None = None) -> ServedClient:
    return ServedClient(Endpoint.parse(URL), key, transport=fake.transport(), sleep=waits.append)


def test_connection_errors_429_and_5xx_are_retried_with_bounded_jittered_waits() -> None:
    fake = FakeServer(faults=[503, 429, httpx.ConnectError("refused"), 502])
    waits: list[float] = []
    assert client(fake, waits).get("models")["data"][0]["id"] == "toy"
    assert len(waits) == 4 and len(fake.seen) == 5
    # full jitter: wait k is uniform in [0, min(cap, 0.5 · 2^k)]
    assert all(0 <= w <= min(BACKOFF_CAP, 0.5 * 2 ** k) for k, w in enumerate(waits))


def test_a_server_that_keeps_failing_is_reported_after_the_last_attempt() -> None:
    fake = FakeServer(faults=[503] * ATTEMPTS)
    with pytest.raises(ServerError, match=rf"did not answer after {ATTEMPTS} attempts \(last: HTTP 503 fault 503\)"):
        client(fake, []).get("models")
    assert len(fake.seen) == ATTEMPTS


def test_a_timeout_is_retried_like_a_lost_connection() -> None:
    fake = FakeServer(faults=[httpx.ReadTimeout("slow")])
    assert client(fake, []).get("models")["data"]


def test_a_4xx_is_refused_at_once_naming_what_the_server_said() -> None:
    fake = FakeServer(faults=[422])
    with pytest.raises(ServerError, match=r"/v1/models refused GET: HTTP 422 fault 422$"):
        client(fake, []).get("models")
    assert len(fake.seen) == 1


def test_user_info_in_a_url_is_refused_everywhere_a_model_is_named() -> None:
    for url in ("http://user:pw@127.0.0.1:8000/v1", "https://token@host/v1"):
        with pytest.raises(UsageError, match="user-info"):
            Endpoint.parse(url)
        with pytest.raises(UsageError, match="user-info"):
            ModelOptions(model=url)
    with pytest.raises(UsageError, match="no query"):
        Endpoint.parse("http://127.0.0.1:8000/v1?key=x")


def test_the_key_comes_from_the_named_variable_else_openai_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("MY_KEY", raising=False)
    assert api_key(None) is None
    with pytest.raises(UsageError, match="MY_KEY .* is not set"):
        api_key("MY_KEY")
    monkeypatch.setenv("OPENAI_API_KEY", "fallback")
    monkeypatch.setenv("MY_KEY", KEY)
    assert (api_key(None), api_key("MY_KEY")) == ("fallback", KEY)


def test_the_key_is_sent_as_a_bearer_token_and_never_described(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_KEY", KEY)
    fake = FakeServer(key=KEY)
    served = ServedScorer(URL, served_prefix="<s>", api_key_env="MY_KEY", transport=fake.transport())
    assert all(headers["authorization"] == f"Bearer {KEY}" for _, _, headers, _ in fake.seen)
    assert KEY not in repr(served.describe()) and KEY not in served.fingerprint()
    assert KEY not in repr(ModelOptions(model=URL, api_key_env="MY_KEY").recorded())


def test_a_key_a_server_echoes_back_is_masked_in_the_message() -> None:
    def echoing(request: httpx.Request) -> httpx.Response:
        return httpx.Response(401, json={"error": {"message": f"key {KEY} is revoked"}})

    plain = ServedClient(Endpoint.parse(URL), KEY, transport=httpx.MockTransport(echoing))
    with pytest.raises(ServerError) as caught:
        plain.get("models")
    assert KEY not in str(caught.value) and "key *** is revoked" in str(caught.value)
    assert "check the API key's environment variable" in str(caught.value)


def test_a_redirect_is_not_followed_and_the_key_never_reaches_the_other_host() -> None:
    fake = FakeServer(redirect="https://user:pw@elsewhere.example/v1/models")
    with pytest.raises(ServerError, match=r"redirects to https://elsewhere\.example/v1/models; redirects are not "
                                          "followed") as caught:
        client(fake, [], key=KEY).get("models")
    assert "user:pw" not in str(caught.value)
    assert [url for _, url, _, _ in fake.seen] == [f"{URL}/models"]


def test_a_chat_endpoint_is_refused_with_the_reason() -> None:
    with pytest.raises(UsageError, match="chat endpoint returns no prompt log-probabilities"):
        Endpoint.parse("http://127.0.0.1:8000/v1/chat/completions")

    def chat_only(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/models":
            return httpx.Response(200, json={"data": [{"id": "chatty"}]})
        return httpx.Response(404, json={"detail": "Not Found"})

    with pytest.raises(ServerError, match="HTTP 404 Not Found .*chat-only endpoint returns no prompt log-prob"):
        ServedScorer(URL, transport=httpx.MockTransport(chat_only))
