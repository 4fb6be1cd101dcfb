"""The canary's trust checks (scorers/served/checks.py), each refused in one line naming the
check, the URL and what to do, against a fake server misbehaving as real ones do."""

from __future__ import annotations

import pytest

pytest.importorskip("httpx", reason="the served scorer needs httpx")

from biasatlas.scorers.served.completions import ServedScorer  # noqa: E402
from biasatlas.scorers.served.checks import CANARY, CHECKS, UntrustedServer, _one_per_token  # noqa: E402
from biasatlas.scorers.served.echo import echoed  # noqa: E402
from biasatlas.scorers.served.http import ServerError  # noqa: E402
from served_fake import LLAMA_SERVER_ANSWERS, URL, FakeServer  # noqa: E402


def build(fake: FakeServer, prefix: str | None = "<s>") -> ServedScorer:
    return ServedScorer(URL, served_prefix=prefix, transport=fake.transport(), sleep=lambda s: None)


@pytest.mark.parametrize(("fake", "check"), [
    (FakeServer(mode="one-value"), "one-per-token"),
    (FakeServer(mode="llama-content"), "one-per-token"),
    (FakeServer(mode="untiled"), "offsets-tile"),
    (FakeServer(mode="positive"), "finite"),
    (FakeServer(mode="noisy"), "deterministic"),
    (FakeServer(mode="noncausal"), "prefix-stable"),
])
def test_each_failing_check_is_named_with_the_url_and_what_to_do(fake: FakeServer, check: str) -> None:
    with pytest.raises(UntrustedServer) as caught:
        build(fake)
    assert caught.value.check == check and check in CHECKS
    message = str(caught.value)
    assert message.startswith(f"{URL} (model toy) fails the {check!r} check: ") and "\n" not in message
    assert message.split("; ")[-1]  # what to do


def test_no_start_token_is_refused_with_the_option_that_names_one() -> None:
    with pytest.raises(UntrustedServer, match="'start-token'.*--served-prefix"):
        build(FakeServer(), prefix=None)


def test_llama_cpps_one_value_answer_is_refused_though_each_value_is_a_fine_number() -> None:
    """llama.cpp's server with echo returns the generated token's log-probability only
    (ggml-org/llama.cpp issue 27174: "logprob_entries == prompt_tokens + 1 … actual is 1"); the
    shape below is reconstructed from that issue and llama-server's OpenAI-compatible output
    (``logprobs.content`` entries of ``token``/``logprob``/``bytes``), not captured from a server."""
    fake = FakeServer(mode="llama-content")
    with pytest.raises(UntrustedServer, match="0 log-probabilities.*llama.cpp"):
        build(fake)
    assert fake.completions >= 1  # refused on its answer, not before asking


def test_a_real_llama_servers_answers_are_refused_by_the_one_per_token_check() -> None:
    """The canary's answers of a real llama-server (tests/served_fake.py ``LLAMA_SERVER_ANSWERS``: none at
    ``logprobs`` 0, which the scorer asks; the generated token's value only at 1): refused before any scoring,
    by the named check, with what to do."""
    fake = FakeServer(mode="llama-server")
    with pytest.raises(UntrustedServer, match="'one-per-token' check: it returned no log-probabilities.*vLLM") \
            as caught:
        build(fake)
    assert caught.value.check == "one-per-token" and fake.completions >= 1  # refused on its answer, not before
    assert [seen[3].get("echo") for seen in fake.seen if seen[1].endswith("/v1/completions")][-1] is True


def test_the_one_value_answer_at_logprobs_1_is_refused_too() -> None:
    """Its answer at ``logprobs`` 1: one entry (the generated token's) for the canary's many tokens."""
    answer = LLAMA_SERVER_ANSWERS[1]
    echo = echoed({"choices": [answer]}, [CANARY])[0]
    with pytest.raises(UntrustedServer, match="returned 0 log-probabilities.*llama.cpp"):
        _one_per_token(echo, URL)


def test_a_server_refusing_echo_is_an_error_quoting_it() -> None:
    """llama-server without echo support answers ``Only no echo is supported`` (its
    ``oaicompat_completion_params_parse``)."""
    with pytest.raises(ServerError, match="refused POST: HTTP 400 Only no echo is supported"):
        build(FakeServer(mode="no-echo"))


def test_nothing_is_scored_before_the_checks_pass() -> None:
    fake = FakeServer(mode="noisy")
    with pytest.raises(UntrustedServer):
        build(fake)
    prompts = [p for _, _, _, body in fake.seen if body for p in body.get("prompt", [])]
    assert all("canary" in p or p == "x" for p in prompts)
