"""Talking to an OpenAI-compatible server: the endpoint, the API key, and requests with retries.

Everything that touches the network for a served model (:mod:`.completions`) goes through
:class:`ServedClient`, an ``httpx.Client`` bound to one endpoint, so the security rules hold in
one place:

- a URL with user-info (``https://user:pw@host``) is refused: a secret in a URL ends up in
  shell history, config files and logs; the key comes from an environment variable only
  (:func:`api_key`: the variable named, else ``OPENAI_API_KEY``), is sent as a bearer token to
  the endpoint given and nowhere else, and is masked out of every message this module raises;
- redirects are never followed (a redirect to another host would carry the key there): a 3xx
  is an error naming where the server pointed, so the user gives that URL;
- TLS certificates are verified (httpx's default, never turned off here).

- a key that cannot be a header value (a carriage return from a Windows key file read with
  ``$(cat key.txt)``, a space, a non-ASCII letter) is refused before any request, naming where
  it came from and what is wrong with it, never the key (:func:`checked_key`).

Bounds: each attempt takes at most ``timeout`` seconds in all, connect, send, wait and read, and
its body at most :data:`.wire.MAX_BODY` bytes decoded (:func:`.wire.fetch`).

Faults: connection errors, timeouts, 429 and 5xx are retried with bounded, jittered exponential
backoff ("full jitter": a uniform wait up to the capped exponential), then reported in one
line; any other 4xx is an error naming what the server refused, at once, and so is an answer
past the size cap, one that cannot be decoded, or a request that cannot be sent as it is.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urljoin, urlsplit

from ...errors import ModelError, UsageError
from ...values import check_seconds
from .wire import MAX_BODY, Reply, TimedOut, TooLarge, Unreadable, fetch

#: The environment variable read for the API key when the user names none (the OpenAI
#: client's own default, which vLLM's ``--api-key`` and most gateways accept).
DEFAULT_KEY_ENV = "OPENAI_API_KEY"
#: Attempts of one request before it fails (the first and this many minus one retries).
ATTEMPTS = 6
#: Backoff: the wait before retry ``k`` is uniform in [0, min(CAP, BASE · 2^k)] seconds.
BACKOFF_BASE, BACKOFF_CAP = 0.5, 8.0
#: Seconds one request may take (connect, send, wait, read) before it is retried.
DEFAULT_TIMEOUT = 120.0
#: Requests in flight at once unless ``--concurrency`` says otherwise.
DEFAULT_CONCURRENCY = 4
#: Which endpoint a served model is asked through (``--served-api``): ``/v1/completions`` (log-probabilities;
#: the chat template rendered here) or ``/v1/chat/completions`` (generated answers; the server's template).
ServedApi = Literal["completions", "chat"]
SERVED_APIS: tuple[str, ...] = ("completions", "chat")
_RETRIED = frozenset({408, 429, 500, 502, 503, 504})


class ServerError(ModelError):
    """A served model's server refused a request, could not be reached, or answered what
    cannot be read (a failure at run time, exit 1)."""


def is_endpoint(model: str) -> bool:
    """Whether a ``--model`` value names a server (an http or https URL) rather than a model."""
    return model.startswith(("http://", "https://"))


@dataclass(frozen=True)
class Endpoint:
    """An OpenAI-compatible API's base URL (``http://127.0.0.1:8000/v1``), checked: http or
    https, a host, no user-info, no query or fragment. :attr:`url` is what provenance
    records and messages show (the same URL: it holds no secret)."""

    url: str

    @classmethod
    def parse(cls, text: str) -> Endpoint:
        try:
            parts = urlsplit(text.strip())
            port = parts.port
        except ValueError as exc:
            raise UsageError(f"not a server URL: {exc}") from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise UsageError("a served model's URL starts with http:// or https:// and names a host, "
                             "e.g. http://127.0.0.1:8000/v1")
        if parts.username is not None or parts.password is not None or "@" in parts.netloc:
            raise UsageError("a server URL with user-info (user:password@) is refused: a secret in a URL ends "
                             "up in logs and run folders; put the key in an environment variable "
                             f"({DEFAULT_KEY_ENV}, or the one --api-key-env names)")
        if parts.path.rstrip("/").endswith("completions"):
            raise UsageError("give the API's base URL (e.g. http://127.0.0.1:8000/v1), not an endpoint: "
                             "biasatlas calls its /completions; a chat endpoint returns no prompt log-probabilities "
                             "(lm-evaluation-harness issues 942 and 1196)")
        if parts.query or parts.fragment:
            raise UsageError("a server URL takes no query or fragment (?… #…): give the API's base URL, "
                             "e.g. http://127.0.0.1:8000/v1")
        host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
        where = host + (f":{port}" if port is not None else "")
        return cls(f"{parts.scheme}://{where}{parts.path.rstrip('/')}")


def api_key(variable: str | None) -> str | None:
    """The API key: from the environment variable ``variable`` (which must then be set), else
    from :data:`DEFAULT_KEY_ENV` when that is set, else none (a local server needs none)."""
    if variable:
        value = os.environ.get(variable)
        if not value:
            raise UsageError(f"the environment variable {variable} (named for the API key) is not set")
        return checked_key(value, f"the environment variable {variable}")
    value = os.environ.get(DEFAULT_KEY_ENV) or None
    return None if value is None else checked_key(value, f"the environment variable {DEFAULT_KEY_ENV}")


_NAMED = {"\r": "a carriage return", "\n": "a line feed", " ": "a space", "\t": "a tab"}


def checked_key(key: str, source: str) -> str:
    """``key`` where it can be a bearer token's header value: visible ASCII only (``!`` to ``~``), as
    every API key is. Anything else is refused naming ``source`` (where the key came from), the
    character's kind and place, never the key: a carriage return or line feed (a key file written on
    Windows, read by ``$(cat key.txt)``) that httpx would refuse only as the request is sent, quoting
    the whole header, key and all; a non-ASCII letter it cannot encode at all."""
    for at, char in enumerate(key):
        if not "!" <= char <= "~":
            kind = _NAMED.get(char) or ("a non-ASCII character" if ord(char) > 127 else "a control character")
            hint = (": a key file with Windows line ends? Strip them, e.g. $(tr -d '\\r\\n' < key.txt)"
                    if char in "\r\n" else "")
            raise UsageError(f"the API key in {source} holds {kind} at character {at + 1} of {len(key)}, so it "
                             f"cannot be sent as a header (an API key is visible ASCII only){hint}")
    return key


def _renderings(key: str) -> list[str]:
    """The ways a message may spell ``key``: as text, inside a repr, inside a bytes repr (httpx quotes
    a header as ``b'Bearer ...'``), inside JSON; longest first, so one never hides part of another."""
    forms = {key, repr(key)[1:-1], repr(key.encode("utf-8", "backslashreplace"))[2:-1], json.dumps(key)[1:-1]}
    return sorted(forms, key=len, reverse=True)


class ServedClient:
    """Requests to one endpoint, with retries. ``transport`` (an ``httpx`` transport) and
    ``sleep`` are for tests: a fake server in the same process, and no real waits; ``max_body``
    too (a small cap, for a bomb of a few kilobytes)."""

    def __init__(self, endpoint: Endpoint, key: str | None, *, timeout: float = DEFAULT_TIMEOUT,
                 transport: Any = None, sleep: Callable[[float], None] = time.sleep,
                 attempts: int = ATTEMPTS, max_body: int = MAX_BODY) -> None:
        import httpx

        self._timeout = check_seconds("--request-timeout", timeout)
        headers = {"Authorization": f"Bearer {checked_key(key, 'the key given')}"} if key else {}
        self.endpoint, self._hidden = endpoint, _renderings(key) if key else []
        self._sleep, self._attempts, self._max_body = sleep, max(1, attempts), max_body
        self._http = httpx.Client(headers=headers, timeout=self._timeout, follow_redirects=False, verify=True,
                                  transport=transport)

    def close(self) -> None:
        self._http.close()

    def url(self, path: str) -> str:
        """The URL of ``path`` below the endpoint (``../version``: beside it), as requests go and messages name it."""
        return urljoin(self.endpoint.url + "/", path.lstrip("/"))

    def get(self, path: str) -> Any:
        """GET ``path`` (below the endpoint) → its JSON body."""
        return self._request("GET", path, None)

    def post(self, path: str, body: Mapping[str, Any]) -> Any:
        """POST ``body`` as JSON to ``path`` (below the endpoint) → its JSON body."""
        return self._request("POST", path, body)

    def _request(self, method: str, path: str, body: Mapping[str, Any] | None) -> Any:
        import httpx

        where, last = self.url(path), ""
        for attempt in range(self._attempts):
            if attempt:
                self._sleep(random.uniform(0, min(BACKOFF_CAP, BACKOFF_BASE * 2 ** (attempt - 1))))
            try:
                reply = fetch(self._http, method, where, body, timeout=self._timeout, max_body=self._max_body)
            except TimedOut:
                last = f"no whole answer within {self._timeout:g} s (--request-timeout: connect, send, wait and read)"
                continue
            except (httpx.LocalProtocolError, httpx.UnsupportedProtocol) as exc:  # ours, not the server's
                raise ServerError(self._masked(f"{where}: the request could not be sent ({_named(exc)})")) from None
            except httpx.TransportError as exc:  # connection refused, reset, timed out
                last = _named(exc)
                continue
            except (httpx.HTTPError, Unreadable) as exc:  # a body its encoding does not decode, or another encoding
                raise ServerError(self._masked(f"{where} answered what cannot be read ({_named(exc)})")) from None
            except TooLarge as exc:
                raise ServerError(f"{where} answered more than {self._max_body / 2 ** 20:g} MiB (decoded; "
                                  f"{exc.size} bytes when stopped): far more than any answer asked for, refused") \
                    from None
            if reply.status in _RETRIED:
                last = f"HTTP {reply.status} {_said(reply)}"
                continue
            return self._read(method, path, where, reply)
        raise ServerError(self._masked(f"{where} did not answer after {self._attempts} attempts (last: {last}); "
                                       "is the server up?"))

    def _read(self, method: str, path: str, where: str, response: Reply) -> Any:
        if response.is_redirect:
            target = response.location or "?"
            raise ServerError(self._masked(f"{where} redirects to {_no_userinfo(target)}; redirects are not "
                                           "followed (the API key would go with them): give that URL"))
        if response.status >= 400:
            hint = " (check the API key's environment variable)" if response.status in (401, 403) else ""
            if response.status in (404, 405) and path == "completions":
                hint = (" (no completions endpoint here: a chat-only endpoint returns no prompt "
                        "log-probabilities, lm-evaluation-harness issues 942 and 1196, so likelihood "
                        "benchmarks cannot be read through it)")
            raise ServerError(self._masked(f"{where} refused {method}: HTTP {response.status} "
                                           f"{_said(response)}{hint}"))
        try:
            return response.json()
        except ValueError:
            raise ServerError(self._masked(f"{where} answered something that is not JSON: "
                                           f"{response.text[:200]!r}")) from None

    def _masked(self, message: str) -> str:
        """``message`` with the API key blanked out in every spelling of it (:func:`_renderings`),
        wherever a server or a library echoed it."""
        for form in self._hidden:
            message = message.replace(form, "***")
        return message


def _named(exc: Exception) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def _said(response: Reply) -> str:
    """What a server's error body says, shortly (an OpenAI error's ``message``, else its text)."""
    try:
        body = response.json()
    except ValueError:
        return response.text[:300].strip()
    error = body.get("error", body) if isinstance(body, dict) else body
    message = (error.get("message") or error.get("detail") or error) if isinstance(error, dict) else error
    return str(message)[:300]


def _no_userinfo(url: str) -> str:
    """``url`` without any user-info, for a message."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "(an unreadable URL)"
    netloc = parts.netloc.rpartition("@")[2]
    return parts._replace(netloc=netloc).geturl()


def checked_concurrency(concurrency: Any) -> int:
    """``--concurrency``: a whole number of requests in flight, at least 1."""
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise UsageError(f"concurrency is a whole number of requests of at least 1, not {concurrency!r}")
    return concurrency
