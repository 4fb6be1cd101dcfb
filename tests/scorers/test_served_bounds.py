"""Every wait and every answer of a served model bounded (scorers/served/wire.py, issue 46): a request takes
``--request-timeout`` seconds in all, whatever the server trickles; an answer at most ``MAX_BODY`` bytes
decoded, whatever it inflates to; a timeout the socket layer cannot take is refused as the command is read."""

from __future__ import annotations

import gzip
import json
import math

import pytest

httpx = pytest.importorskip("httpx", reason="the served scorer needs httpx")

from biasatlas.cli import main  # noqa: E402
from biasatlas.engine_options import EngineOptions  # noqa: E402
from biasatlas.errors import UsageError  # noqa: E402
from biasatlas.model_options import ModelOptions  # noqa: E402
from biasatlas.scorers.served import http as served_http  # noqa: E402
from biasatlas.scorers.served.http import Endpoint, ServedClient, ServerError  # noqa: E402
from served_fake import URL, FakeServer, Listening, bombing, gzip_bombed, trickled  # noqa: E402

MiB = 2 ** 20
MAX_SECONDS = 3600.0  # values.MAX_SECONDS: an hour


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    with pytest.raises(SystemExit) as ended:
        main(args)
    said = capsys.readouterr()
    return int(ended.value.code or 0), said.out + said.err


# -- item 6: a request bounded in all ----------------------------------------------------------------------------
@pytest.mark.parametrize("from_body", [False, True], ids=["headers-trickled", "body-trickled"])
def test_a_server_trickling_a_byte_at_a_time_is_stopped_by_the_requests_whole_time(from_body: bool) -> None:
    """One byte every 0.05 s: every read returns well within any per-read timeout, and the answer (about 200
    bytes) would take 10 s; the request's 0.5 s in all stop it, in the headers or in the body."""
    listening = Listening(FakeServer(), send=trickled(0.05, from_body=from_body))
    try:
        client = ServedClient(Endpoint.parse(listening.url), None, timeout=0.5, attempts=1, sleep=lambda s: None)
        with pytest.raises(ServerError, match=r"/v1/models did not answer after 1 attempts \(last: no whole answer "
                                              r"within 0\.5 s \(--request-timeout: connect, send, wait and read\)\)"):
            client.get("models")
    finally:
        listening.close()


def test_check_server_takes_the_request_timeout_of_run(capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    """check-server against a trickling server: its --request-timeout (run's, same name and meaning) bounds
    each of the six attempts (no waits between them here), so it ends in one line, exit 1."""
    monkeypatch.setattr(served_http.random, "uniform", lambda low, high: 0.0)  # no backoff waits in the test
    listening = Listening(FakeServer(), send=trickled(0.05))
    try:
        code, said = _cli(["check-server", listening.url, "--request-timeout", "0.15"], capsys)
    finally:
        listening.close()
    assert code == 1 and said.count("\n") == 1, said
    assert said.startswith(f"error: {listening.url}/models did not answer after 6 attempts (last: no whole answer "
                           "within 0.15 s"), said


# -- item 10: a timeout the socket layer cannot take --------------------------------------------------------------
@pytest.mark.parametrize("seconds", [math.inf, 1e12, math.nan, 0, -1, MAX_SECONDS + 1])
def test_a_request_timeout_outside_its_range_is_refused_naming_the_range(seconds: float) -> None:
    with pytest.raises(UsageError, match=r"--request-timeout takes seconds above 0 and at most 3600 \(one hour\)"):
        ModelOptions(model=URL, request_timeout=seconds)
    with pytest.raises(UsageError, match="--request-timeout takes seconds above 0 and at most 3600"):
        ServedClient(Endpoint.parse(URL), None, timeout=seconds, transport=FakeServer().transport())
    assert ModelOptions(model=URL, request_timeout=MAX_SECONDS).request_timeout == MAX_SECONDS


@pytest.mark.parametrize("command", [["run", "crows-pairs", "--model", "http://127.0.0.1:9/v1"],
                                     ["check-server", "http://127.0.0.1:9/v1"]], ids=["run", "check-server"])
@pytest.mark.parametrize("seconds", ["inf", "1e12"])
def test_an_infinite_request_timeout_is_a_usage_error_before_any_request(command, seconds, capsys,
                                                                        isolated_run) -> None:
    code, said = _cli([*command, "--request-timeout", seconds], capsys)
    assert code == 2 and "--request-timeout takes seconds above 0 and at most 3600 (one hour)" in said, said
    assert "Overflow" not in said and "internal error" not in said


def test_a_ray_timeout_the_socket_layer_cannot_take_is_refused_too() -> None:
    """The same idiom on the engine's side: ``socket.create_connection(timeout=inf)`` overflows as well."""
    for seconds in (math.inf, 1e12):
        with pytest.raises(UsageError, match="--ray-timeout takes seconds above 0 and at most 3600"):
            EngineOptions(engine="ray", ray_address="127.0.0.1:1", ray_timeout=seconds)


# -- item 8: an answer bounded in size ---------------------------------------------------------------------------
def test_a_gzip_bomb_is_read_incrementally_and_refused_past_the_cap() -> None:
    """16 MiB of JSON inflated from 16 KB, handed over in 4 KiB pieces, against a 1 MiB cap: refused once
    past it, long before the whole (a 4 KiB piece inflates to at most about 4 MiB), in one line, not retried."""
    fake = FakeServer()
    seen: list[str] = []
    bombs = bombing(fake, "/v1/models", 16 * MiB)
    client = ServedClient(Endpoint.parse(URL), None, max_body=MiB, sleep=lambda s: None,
                          transport=httpx.MockTransport(lambda r: seen.append(r.url.path) or bombs.handle_request(r)))
    with pytest.raises(ServerError, match=r"/v1/models answered more than 1 MiB \(decoded; (\d+) bytes when "
                                          r"stopped\): far more than any answer asked for, refused$") as caught:
        client.get("models")
    stopped = int(str(caught.value).split("decoded; ")[1].split()[0])
    assert MiB < stopped < 6 * MiB and seen == ["/v1/models"]


def test_check_server_refuses_a_gzip_bomb_at_the_default_cap(capsys) -> None:
    """80 MiB of JSON from some 80 KB on the wire, through a real socket: refused at 64 MiB, one line, exit 1
    (without the cap it is inflated whole and read as a list of no models)."""
    listening = Listening(FakeServer(), send=gzip_bombed(80 * MiB))
    try:
        code, said = _cli(["check-server", listening.url], capsys)
    finally:
        listening.close()
    assert code == 1 and said.count("\n") == 1, said
    assert said.startswith(f"error: {listening.url}/models answered more than 64 MiB (decoded; "), said


def _answering(content: bytes, encoding: str) -> httpx.MockTransport:
    def handle(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "application/json", "content-encoding": encoding},
                              stream=httpx.ByteStream(content))
    return httpx.MockTransport(handle)


def test_an_answer_encoded_twice_or_otherwise_is_refused_before_it_is_read() -> None:
    """gzip of gzip inflates a millionfold per chunk, past any cap checked between chunks: only one of
    identity, gzip or deflate is read."""
    body = json.dumps({"data": [{"id": "toy"}]}).encode()
    for encoding, content in (("gzip, gzip", gzip.compress(gzip.compress(body))), ("br", body)):
        client = ServedClient(Endpoint.parse(URL), None, transport=_answering(content, encoding))
        with pytest.raises(ServerError, match=rf"/v1/models answered what cannot be read \(Unreadable: "
                                              rf"Content-Encoding '{encoding}', not one of identity, gzip, deflate"):
            client.get("models")
    assert ServedClient(Endpoint.parse(URL), None, transport=_answering(gzip.compress(body), "gzip")).get("models") \
        == {"data": [{"id": "toy"}]}


def test_a_body_that_does_not_decode_or_parse_is_one_line() -> None:
    """A body that says gzip and is not (httpx's DecodingError), and JSON nested past the parser's depth
    (a RecursionError): each a ServerError naming the URL, neither a traceback."""
    client = ServedClient(Endpoint.parse(URL), None, transport=_answering(b"not gzip at all", "gzip"))
    with pytest.raises(ServerError, match=r"/v1/models answered what cannot be read \(DecodingError"):
        client.get("models")
    client = ServedClient(Endpoint.parse(URL), None, transport=_answering(b"[" * 100_000, "identity"))
    with pytest.raises(ServerError, match=r"/v1/models answered something that is not JSON: '\[\[\["):
        client.get("models")
