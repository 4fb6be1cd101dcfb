"""An API key that cannot be a header is refused before any request, without a word of it; a key is masked in
every spelling a message may hold (scorers/served/http.py, issue 46)."""

from __future__ import annotations

import json

import pytest

httpx = pytest.importorskip("httpx", reason="the served scorer needs httpx")

from biasatlas.cli import main  # noqa: E402
from biasatlas.errors import UsageError  # noqa: E402
from biasatlas.scorers.served.http import Endpoint, ServedClient, ServerError, api_key  # noqa: E402
from served_fake import URL, FakeServer, Listening  # noqa: E402

SECRET = "sk-win-" + "7" * 24


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    with pytest.raises(SystemExit) as ended:
        main(args)
    said = capsys.readouterr()
    return int(ended.value.code or 0), said.out + said.err


@pytest.mark.parametrize("command", [["check-server"], ["run", "crows-pairs", "--limit", "2", "--model"]],
                         ids=["check-server", "run"])
def test_a_key_read_from_a_windows_file_is_refused_before_any_request_and_never_shown(
        command, capsys, monkeypatch: pytest.MonkeyPatch, isolated_run) -> None:
    """``KEY=$(cat key.txt)`` of a file with Windows line ends keeps the carriage return; httpx refused it
    only as the request went out, quoting the header, key and all, six times over, blamed on the server."""
    monkeypatch.setenv("WIN_KEY", SECRET + "\r")
    fake = FakeServer(key=SECRET)
    listening = Listening(fake)
    try:
        code, said = _cli([*command, listening.url, "--served-prefix", "<s>", "--api-key-env", "WIN_KEY"], capsys)
    finally:
        listening.close()
    assert code == 2 and said.count("\n") <= 2, said
    assert "error: the API key in the environment variable WIN_KEY holds a carriage return at character 32 of 32" \
        in said and "Windows line ends" in said, said
    assert SECRET not in said and "7777" not in said
    assert fake.seen == []  # refused before any request


@pytest.mark.parametrize(("key", "kind", "at"), [("sk-sécret", "a non-ASCII character", 5),
                                                 ("sk-a b", "a space", 5), ("sk-ab\n", "a line feed", 6),
                                                 ("sk-\x1bab", "a control character", 4)])
def test_a_key_that_cannot_be_a_header_is_a_usage_error_naming_what_and_where(
        key: str, kind: str, at: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", key)
    with pytest.raises(UsageError, match=f"the API key in the environment variable OPENAI_API_KEY holds {kind} at "
                                         f"character {at} of {len(key)}") as caught:
        api_key(None)
    assert key not in str(caught.value) and "sk-" not in str(caught.value)
    fake = FakeServer()
    with pytest.raises(UsageError, match=f"the API key in the key given holds {kind}"):
        ServedClient(Endpoint.parse(URL), key, transport=fake.transport())
    assert fake.seen == []


def test_a_key_is_masked_in_its_text_repr_bytes_repr_and_json() -> None:
    """A key with both quotes and a backslash is spelled three ways (its text; inside a ``repr`` or a bytes
    repr, as httpx quotes a header; inside JSON); a server echoing each gets none of them into the message."""
    key = "sk-a'b\"c\\d"
    renderings = (key, repr(key), repr(key.encode()), json.dumps(key))
    assert len({key, repr(key)[1:-1], json.dumps(key)[1:-1]}) == 3

    def echoing(request: httpx.Request) -> httpx.Response:
        return httpx.Response(401, text=" | ".join(renderings))

    with pytest.raises(ServerError) as caught:
        ServedClient(Endpoint.parse(URL), key, transport=httpx.MockTransport(echoing)).get("models")
    assert str(caught.value).endswith("refused GET: HTTP 401 *** | '***' | b'***' | \"***\" (check the API key's "
                                      "environment variable)"), str(caught.value)


def test_an_error_of_our_own_request_is_not_retried_nor_blamed_on_the_server() -> None:
    """httpx's LocalProtocolError (a request h11 refuses to write) is this side's: at once, not six times."""
    fake = FakeServer(faults=[httpx.LocalProtocolError("Illegal header value")])
    with pytest.raises(ServerError, match=r"/v1/models: the request could not be sent \(LocalProtocolError: "
                                          r"Illegal header value\)$"):
        ServedClient(Endpoint.parse(URL), None, transport=fake.transport(), sleep=lambda s: None).get("models")
    assert len(fake.seen) == 1
