"""One attempt of a request to a served model, bounded in time and size: :func:`fetch`.

httpx's timeout bounds each socket operation (connect, one write, one read), never the request:
a server trickling one byte every half second never lets a read wait its full timeout, so a
``--request-timeout 2`` request of one ran on for minutes. And httpx inflates a gzip-encoded
body without limit (400 KB on the wire grew to 400 MiB in memory). So an attempt here:

- runs in a thread of its own while the caller waits for it ``timeout`` seconds *in all*
  (connect, send, wait, read); past that the caller gives up with :class:`TimedOut`, and the
  thread stops at its next chunk (each of its operations still bounded by httpx's timeout);
- reads the body as it is decoded, chunk by chunk, and stops past ``max_body`` bytes with
  :class:`TooLarge`. A chunk is one read of the wire (at most 64 KiB) inflated, at most about
  1,000 times by gzip or deflate, so memory stays within the cap and one chunk more; a body of
  any other encoding, or of two (``gzip, gzip`` inflates a millionfold per chunk), is refused
  before it is read (:class:`Unreadable`). Only these two are asked for (``Accept-Encoding``).

Anything the attempt raises (an httpx error; a test fake's ``KeyboardInterrupt``) is raised
again in the caller's thread, as if the request had run there.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from typing import Any

#: The largest body (decoded) an answer may have: far above any real one (a request of 256 prompts
#: of 100 tokens each, echoed with their log-probabilities, answers about 3 MB).
MAX_BODY = 64 * 2 ** 20


class TimedOut(Exception):
    """The attempt took more than its time in all (the caller stopped waiting)."""


#: The content encodings an answer may come in (one of them, or none): those whose inflation per chunk is bounded.
ENCODINGS = ("identity", "gzip", "deflate")
ACCEPT_ENCODING = "gzip, deflate"


class Unreadable(Exception):
    """The answer comes in an encoding (``Content-Encoding``) that is not read here."""


class TooLarge(Exception):
    """The answer's decoded body grew past the cap; ``size`` is how far it had grown when stopped."""

    def __init__(self, size: int) -> None:
        super().__init__(size)
        self.size = size


@dataclass(frozen=True)
class Reply:
    """A server's answer, read whole: its status, where it redirects (``Location``) and its body."""

    status: int
    location: str | None
    content: bytes

    @property
    def is_redirect(self) -> bool:
        return self.status in (301, 302, 303, 307, 308) and self.location is not None

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", "replace")

    def json(self) -> Any:
        """The body as JSON; ValueError where it is none (a body nested too deep to parse included)."""
        try:
            return json.loads(self.content)
        except RecursionError:
            raise ValueError("JSON nested too deep to read") from None


def fetch(http: Any, method: str, url: str, body: Any, *, timeout: float, max_body: int = MAX_BODY) -> Reply:
    """``method`` ``url`` through the ``httpx.Client`` ``http`` (``body`` sent as JSON), read whole
    within ``timeout`` seconds in all and ``max_body`` bytes (module docstring)."""
    outcome: list[Reply | BaseException] = []
    done, stop = threading.Event(), threading.Event()

    def attempt() -> None:
        try:
            outcome.append(_read(http, method, url, body, max_body, stop))
        except BaseException as exc:  # handed to the caller, raised again there
            outcome.append(exc)
        finally:
            done.set()

    threading.Thread(target=attempt, name="served-request", daemon=True).start()
    try:
        if not done.wait(timeout):
            raise TimedOut()
    finally:
        stop.set()  # the caller is gone (an answer, the time out, Ctrl-C): the thread stops at its next chunk
    got = outcome[0]
    if isinstance(got, BaseException):
        raise got
    return got


def _read(http: Any, method: str, url: str, body: Any, max_body: int, stop: threading.Event) -> Reply:
    with http.stream(method, url, json=body, headers={"accept-encoding": ACCEPT_ENCODING}) as response:
        encoding = response.headers.get("content-encoding", "").strip().lower() or "identity"
        if encoding not in ENCODINGS:
            raise Unreadable(f"Content-Encoding {encoding!r}, not one of {', '.join(ENCODINGS)}")
        parts: list[bytes] = []
        size = 0
        for chunk in response.iter_bytes():
            if stop.is_set():
                raise TimedOut()
            size += len(chunk)
            if size > max_body:
                raise TooLarge(size)
            parts.append(chunk)
        return Reply(response.status_code, response.headers.get("location"), b"".join(parts))
