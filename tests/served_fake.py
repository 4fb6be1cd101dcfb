"""A fake OpenAI-compatible server, in this process (an ``httpx.MockTransport``), for the served
scorer's fast tests: a toy causal "model" behind ``/v1/models``, ``/version`` and
``/v1/completions`` (echo with legacy logprobs, as vLLM answers), and switches that make it
misbehave the ways real servers do.

The toy model: a prompt is cut into tokens by :data:`TOKEN` (``<s>``, words with their leading
space, single punctuation marks, runs of spaces), and token ``i``'s log-probability is a
function of the tokens before it and itself only (:func:`toy_logprob`), so it is causal and
its sums can be computed directly in a test, independently of the scorer's offset arithmetic.
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

TOKEN = re.compile(r"<s>|\s?\w+|\s?[^\w\s]|\s+")
HOST = "127.0.0.1:8011"
URL = f"http://{HOST}/v1"


def toy_tokens(text: str) -> list[str]:
    return TOKEN.findall(text)


VOCAB: dict[str, int] = {}  # the toy tokenizer's ids, given in order of first sight (shared by the fake)


def toy_ids(text: str) -> list[int]:
    """The toy tokens of ``text`` as ids (the served scorer's ``token_ids`` in tests)."""
    return [VOCAB.setdefault(t, len(VOCAB) + 1) for t in toy_tokens(text)]


def toy_logprob(before: list[str], token: str, salt: str = "") -> float:
    """log P(token | before) of the toy model: in (-10, -0.01], a hash of both."""
    key = (salt + "\x00" + "".join(before) + "\x00" + token).encode()
    return -(0.01 + (zlib.crc32(key) % 999) / 100)


def toy_sum(text: str, start: int, prefix: str = "<s>", salt: str = "") -> float:
    """Σ log P of the tokens of ``prefix + text`` that end after character ``start`` of ``text``."""
    tokens = toy_tokens(prefix + text)
    total, at = 0.0, 0
    for i, token in enumerate(tokens):
        at += len(token)
        if at > len(prefix) + start:
            total += toy_logprob(tokens[:i], token, salt)
    return total


#: What a real llama.cpp server answered to the canary with ``echo`` (choice 0, by ``logprobs`` 0 and 1): llama.cpp
#: commit 0c1e570 (the copy vendored in llama-cpp-python 0.3.36), ``llama-server`` built here on 2026-12-03
#: (``GGML_NATIVE=OFF``), serving the packaged SmolLM2-135M-Instruct Q4_1 GGUF; ``max_tokens`` 0 and 1 answered
#: alike. The prompt is not echoed: the text is the one generated token, and its value is the only one.
LLAMA_SERVER_ANSWERS: tuple[dict[str, Any], ...] = (
    {"text": "\n", "index": 0, "logprobs": None, "finish_reason": "length"},
    {"text": "\n", "index": 0, "finish_reason": "length", "logprobs": {"content": [
        {"id": 198, "token": "\n", "bytes": [10], "logprob": -1.150149941444397,
         "top_logprobs": [{"id": 198, "token": "\n", "bytes": [10], "logprob": -1.150149941444397}]}]}},
)


@dataclass
class FakeServer:
    """The server's behaviour; ``seen`` keeps every request (method, URL, headers, body)."""

    model: str = "toy"
    salt: str = ""
    mode: str = "good"  # good | one-value | llama-content | llama-server | untiled | positive | noisy | noncausal
    #   | no-echo
    adds_start: bool = False  # the server puts "<s>" before every prompt itself
    faults: list[Any] = field(default_factory=list)  # served first, one per request: a status or an exception
    key: str | None = None  # the bearer token it requires
    swap_after: int | None = None  # completion requests after which another model answers
    redirect: str | None = None  # every request redirected there
    seen: list[tuple[str, str, dict[str, str], Any]] = field(default_factory=list)
    completions: int = 0
    max_tokens_zero: bool = True
    interrupt_at: int | None = None  # Ctrl-C (KeyboardInterrupt) as this completion request is answered
    untile_word: str | None = None  # prompts holding this word come back with offsets shifted by one
    root: str | None = None  # the model's root in /v1/models (default /models/<model>)
    tokenized: list[int] | None = None  # what /tokenize answers (vLLM's, at the root); None: no such endpoint
    by_id: bool = False  # honours logprob_token_ids (vLLM 0.32); else it generates as if the field were not there
    by_id_shift: float = 0.0  # added to every value it reads by id (a server whose two readings disagree)
    by_id_drop: str | None = None  # the token whose id it leaves out of its by-id answers
    lie_off_canary: float = 0.0  # added to every value it answers for a text without the canary (:func:`lied`)

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    def handle(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content) if request.content else None
        self.seen.append((request.method, str(request.url), dict(request.headers), body))
        if self.faults:
            fault = self.faults.pop(0)
            if isinstance(fault, Exception):
                raise fault
            return httpx.Response(fault, json={"error": {"message": f"fault {fault}"}})
        if self.redirect:
            return httpx.Response(307, headers={"location": self.redirect})
        if self.key is not None and request.headers.get("authorization") != f"Bearer {self.key}":
            return httpx.Response(401, json={"error": {"message": "invalid API key"}})
        path = request.url.path
        if path == "/v1/models":
            return httpx.Response(200, json={"object": "list", "data": [
                {"id": self.model, "object": "model", "root": self.root or f"/models/{self.model}",
                 "owned_by": "fake"}]})
        if path == "/version":
            return httpx.Response(200, json={"version": "fake-1.0"})
        if path == "/v1/completions":
            return self._complete(body)
        if path == "/tokenize" and self.tokenized is not None:
            return httpx.Response(200, json={"tokens": self.tokenized, "count": len(self.tokenized)})
        return httpx.Response(404, json={"detail": "Not Found"})

    def _complete(self, body: dict[str, Any]) -> httpx.Response:
        if body.get("model") != self.model:
            return httpx.Response(404, json={"error": {"message": f"model {body.get('model')} not found"}})
        if self.mode == "no-echo" and body.get("echo"):
            return httpx.Response(400, json={"error": {"message": "Only no echo is supported"}})
        if body.get("max_tokens") == 0 and not self.max_tokens_zero:
            return httpx.Response(400, json={"error": {"message": "max_tokens must be at least 1"}})
        self.completions += 1
        if self.completions == self.interrupt_at:
            raise KeyboardInterrupt
        salt = self.salt + ("swapped" if self.swap_after is not None and self.completions > self.swap_after else "")
        prompts = body["prompt"] if isinstance(body["prompt"], list) else [body["prompt"]]
        generated = int(body.get("max_tokens", 16))
        if self.mode == "llama-server":  # the answers of a real llama-server (LLAMA_SERVER_ANSWERS), whatever asked
            choices = [{**LLAMA_SERVER_ANSWERS[min(int(body.get("logprobs") or 0), 1)], "index": i}
                       for i in range(len(prompts))]
            return httpx.Response(200, json={"object": "text_completion", "model": self.model, "choices": choices,
                                             "system_fingerprint": "b1-0c1e570"})
        if body.get("logprob_token_ids") and self.by_id:
            choices = [self._by_id(i, p, body["logprob_token_ids"], salt) for i, p in enumerate(prompts)]
        elif not body.get("echo"):  # a generation: " and" max_tokens times, no log-probabilities of the prompt
            choices = [{"index": i, "text": " and" * generated, "finish_reason": "length",
                        "logprobs": {"tokens": [" and"] * generated}} for i in range(len(prompts))]
        else:
            choices = [self._choice(i, p, generated, salt) for i, p in enumerate(prompts)]
        return httpx.Response(200, json={"id": "cmpl-fake", "object": "text_completion", "model": self.model,
                                         "choices": choices})

    def _by_id(self, index: int, prompt: str, ids: list[int], salt: str) -> dict[str, Any]:
        """vLLM's answer with ``return_tokens_as_token_ids``: the generated token (" and") and each asked
        id's log-probability after the prompt, at the one generated position."""
        before, words = toy_tokens(("<s>" if self.adds_start else "") + prompt), {i: t for t, i in VOCAB.items()}
        top = {f"token_id:{VOCAB.setdefault(' and', len(VOCAB) + 1)}": -1.0}
        top.update({f"token_id:{i}": lied([toy_logprob(before, words[i], salt) + self.by_id_shift], prompt,
                                          self.lie_off_canary)[0]
                    for i in ids if words.get(i) is not None and words[i] != self.by_id_drop})
        return {"index": index, "text": " and", "finish_reason": "length",
                "logprobs": {"tokens": [next(iter(top))], "token_logprobs": [-1.0], "text_offset": [len(prompt)],
                             "top_logprobs": [top]}}

    def _choice(self, index: int, prompt: str, generated: int, salt: str) -> dict[str, Any]:
        text = ("<s>" if self.adds_start else "") + prompt
        tokens = toy_tokens(text)
        context = prompt if self.mode == "noncausal" else ""
        values: list[float | None] = [None] + [toy_logprob(tokens[:i], t, salt + context)
                                               for i, t in enumerate(tokens) if i]
        if self.mode == "noisy":
            values = [None if v is None else v + 1e-3 * (self.completions % 3) for v in values]
        if self.mode == "positive":
            values = [None if v is None else -v for v in values]
        values = lied(values, prompt, self.lie_off_canary)
        offsets, at = [], 0
        for t in tokens:
            offsets.append(at)
            at += len(t)
        if self.mode == "untiled" or (self.untile_word is not None and self.untile_word in prompt):
            offsets = [o + 1 if i > 1 else o for i, o in enumerate(offsets)]
        tokens += [" and"] * generated
        values += [-1.0] * generated
        offsets += [at] * generated
        if self.mode == "one-value":  # llama.cpp's answer: the generated token's only (issue 27174)
            tokens, values, offsets = [" and"], [-1.0], [at]
        logprobs: dict[str, Any] = {"tokens": tokens, "token_logprobs": values, "text_offset": offsets,
                                    "top_logprobs": [None] * len(tokens)}
        # llama-server's newer shape, one entry (see tests/scorers/test_served_checks.py)
        if self.mode == "llama-content":
            logprobs = {"content": [{"id": 323, "token": " and", "bytes": [32, 97, 110, 100], "logprob": -1.0,
                                     "top_logprobs": []}]}
        return {"index": index, "text": text + " and" * generated, "logprobs": logprobs, "finish_reason": "length"}


def lied(values: list[Any], text: str, shift: float) -> list[Any]:
    """``values`` with ``shift`` added to each, unless ``text`` holds the served scorer's canary or is a
    start of it (the one-token trust check reads a word of it after the words before): a server that
    answers the canary honestly and every other text otherwise (``FakeServer.lie_off_canary``)."""
    from biasatlas.scorers.served.checks import CANARY

    if not shift or CANARY in text or CANARY.startswith(text.removeprefix("<s>")):
        return values
    return [None if v is None else v + shift for v in values]


def whole(handler: Any, response: httpx.Response, closing: Any) -> None:
    """How :class:`Listening` sends an answer by default: at once, its length said."""
    handler.send_response(response.status_code)
    for name, value in response.headers.items():
        if name.lower() not in ("content-length", "transfer-encoding"):
            handler.send_header(name, value)
    handler.send_header("content-length", str(len(response.content)))
    handler.end_headers()
    handler.wfile.write(response.content)


class Listening:
    """``fake`` behind a real HTTP server on 127.0.0.1 (a free port), in a thread: for runs
    through the command line, which build their own client. ``url`` is its API's base URL.
    ``send(handler, response, closing)`` writes each answer (default :func:`whole`; :func:`trickled`,
    :func:`gzip_bombed`); ``closing`` is set as the server closes, for a sender that would go on."""

    def __init__(self, fake: FakeServer, send: Callable[[Any, httpx.Response, Any], None] = whole) -> None:
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        closing = self.closing = threading.Event()

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                request = httpx.Request(self.command, f"http://{HOST}{self.path}", headers=dict(self.headers),
                                        content=self.rfile.read(length) if length else b"")
                send(self, fake.handle(request), closing)

            do_GET = do_POST = _answer

            def log_message(self, *args: Any) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02},
                                       daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.closing.set()
        self.server.shutdown()
        self.server.server_close()


# -- a server too slow, too large or of another shape (issue 46) -----------------------------------------------


def trickled(every: float, *, from_body: bool = False) -> Callable[[Any, httpx.Response, Any], None]:
    """A :class:`Listening` sender that writes each answer one byte every ``every`` seconds: from its
    status line (a server that never finishes its headers), or ``from_body``, its headers at once and then
    its body byte by byte. Each read gets a byte well within any timeout, so only a bound on the request in
    all stops it; it stops at the end of the answer, when the client hangs up, or when the server closes."""
    def send(handler: Any, response: httpx.Response, closing: Any) -> None:
        head = f"HTTP/1.0 {response.status_code} OK\r\ncontent-type: application/json\r\n" \
               f"content-length: {len(response.content)}\r\n\r\n".encode()
        if from_body:
            handler.wfile.write(head)
        for byte in (response.content if from_body else head + response.content):
            if closing.wait(every):
                return
            try:
                handler.wfile.write(bytes([byte]))
            except OSError:  # the client gave up
                return

    return send


def gzip_bomb(size: int) -> bytes:
    """A JSON object of ``size`` bytes when inflated (``{"data": [`` and blanks), gzip-compressed: about a
    thousandth of that on the wire."""
    import gzip

    inside = b'{"data": [' + b" " * (size - 12) + b"]}"
    return gzip.compress(inside, compresslevel=9)


def gzip_bombed(size: int) -> Callable[[Any, httpx.Response, Any], None]:
    """A :class:`Listening` sender that answers every request with :func:`gzip_bomb` of ``size``."""
    bomb = gzip_bomb(size)

    def send(handler: Any, response: httpx.Response, closing: Any) -> None:
        handler.send_response(200)
        handler.send_header("content-type", "application/json")
        handler.send_header("content-encoding", "gzip")
        handler.send_header("content-length", str(len(bomb)))
        handler.end_headers()
        try:
            handler.wfile.write(bomb)
        except OSError:  # the client stopped reading
            return

    return send


class Chunks(httpx.SyncByteStream):
    """A body handed over ``size`` bytes at a time (as a socket reads it), never read whole by httpx
    itself (a response built with ``content=`` is decoded as it is built)."""

    def __init__(self, data: bytes, size: int = 4096) -> None:
        self.data, self.size = data, size

    def __iter__(self) -> Any:
        for at in range(0, len(self.data), self.size):
            yield self.data[at:at + self.size]


def bombing(fake: FakeServer, path: str, size: int) -> httpx.MockTransport:
    """``fake`` in this process, answering ``path`` with :func:`gzip_bomb` of ``size`` in 4 KiB chunks."""
    def handle(request: httpx.Request) -> httpx.Response:
        if request.url.path != path:
            return fake.handle(request)
        return httpx.Response(200, headers={"content-type": "application/json", "content-encoding": "gzip"},
                              stream=Chunks(gzip_bomb(size)))

    return httpx.MockTransport(handle)


@dataclass
class Reshaped:
    """``fake`` with each JSON answer to a request of path P replaced by ``change(P, answer)`` (an answer of
    another shape: ``change`` edits the answer it is given and returns it, or another); in this process
    (:meth:`transport`) or behind a socket (``Listening(Reshaped(...))``)."""

    fake: FakeServer
    change: Callable[[str, Any], Any]

    def handle(self, request: httpx.Request) -> httpx.Response:
        response = self.fake.handle(request)
        return httpx.Response(response.status_code, json=self.change(request.url.path, response.json()))

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)
