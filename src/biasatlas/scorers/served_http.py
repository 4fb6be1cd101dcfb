"""Talking to an OpenAI-compatible server: the endpoint, the API key, and requests with retries.

Everything that touches the network for a served model (:mod:`.served`) goes through
:class:`ServedClient`, an ``httpx.Client`` bound to one endpoint, so the security rules hold in
one place:

- a URL with user-info (``https://user:pw@host``) is refused: a secret in a URL ends up in
  shell history, config files and logs; the key comes from an environment variable only
  (:func:`api_key`: the variable named, else ``OPENAI_API_KEY``), is sent as a bearer token to
  the endpoint given and nowhere else, and is masked out of every message this module raises;
- redirects are never followed (a redirect to another host would carry the key there): a 3xx
  is an error naming where the server pointed, so the user gives that URL;
- TLS certificates are verified (httpx's default, never turned off here).

Faults: connection errors, timeouts, 429 and 5xx are retried with bounded, jittered exponential
backoff ("full jitter": a uniform wait up to the capped exponential), then reported in one
line; any other 4xx is an error naming what the server refused, at once.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

from ..errors import ModelError, UsageError

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
        return value
    return os.environ.get(DEFAULT_KEY_ENV) or None


class ServedClient:
    """Requests to one endpoint, with retries. ``transport`` (an ``httpx`` transport) and
    ``sleep`` are for tests: a fake server in the same process, and no real waits."""

    def __init__(self, endpoint: Endpoint, key: str | None, *, timeout: float = DEFAULT_TIMEOUT,
                 transport: Any = None, sleep: Callable[[float], None] = time.sleep,
                 attempts: int = ATTEMPTS) -> None:
        import httpx

        if timeout <= 0:
            raise UsageError(f"a request timeout is a number of seconds above 0, not {timeout!r}")
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self.endpoint, self._key = endpoint, key
        self._sleep, self._attempts = sleep, max(1, attempts)
        self._http = httpx.Client(base_url=endpoint.url, headers=headers, timeout=timeout,
                                  follow_redirects=False, verify=True, transport=transport)

    def close(self) -> None:
        self._http.close()

    def get(self, path: str) -> Any:
        """GET ``path`` (below the endpoint) → its JSON body."""
        return self._request("GET", path, None)

    def post(self, path: str, body: Mapping[str, Any]) -> Any:
        """POST ``body`` as JSON to ``path`` (below the endpoint) → its JSON body."""
        return self._request("POST", path, body)

    def _request(self, method: str, path: str, body: Mapping[str, Any] | None) -> Any:
        import httpx

        last = ""
        for attempt in range(self._attempts):
            if attempt:
                self._sleep(random.uniform(0, min(BACKOFF_CAP, BACKOFF_BASE * 2 ** (attempt - 1))))
            try:
                response = self._http.request(method, path.lstrip("/"), json=body)
            except httpx.TransportError as exc:  # connection refused, reset, timed out
                last = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
                continue
            if response.status_code in _RETRIED:
                last = f"HTTP {response.status_code} {_said(response)}"
                continue
            return self._read(method, path, response)
        raise ServerError(self._masked(f"{self.endpoint.url}/{path.lstrip('/')} did not answer after "
                                       f"{self._attempts} attempts (last: {last}); is the server up?"))

    def _read(self, method: str, path: str, response: Any) -> Any:
        where = f"{self.endpoint.url}/{path.lstrip('/')}"
        if response.is_redirect:
            target = response.headers.get("location", "?")
            raise ServerError(self._masked(f"{where} redirects to {_no_userinfo(target)}; redirects are not "
                                           "followed (the API key would go with them): give that URL"))
        if response.status_code >= 400:
            hint = " (check the API key's environment variable)" if response.status_code in (401, 403) else ""
            if response.status_code in (404, 405) and path == "completions":
                hint = (" (no completions endpoint here: a chat-only endpoint returns no prompt "
                        "log-probabilities, lm-evaluation-harness issues 942 and 1196, so likelihood "
                        "benchmarks cannot be read through it)")
            raise ServerError(self._masked(f"{where} refused {method}: HTTP {response.status_code} "
                                           f"{_said(response)}{hint}"))
        try:
            return response.json()
        except ValueError:
            raise ServerError(self._masked(f"{where} answered something that is not JSON: "
                                           f"{response.text[:200]!r}")) from None

    def _masked(self, message: str) -> str:
        """``message`` with the API key blanked out, wherever a server echoed it."""
        return message.replace(self._key, "***") if self._key else message


def _said(response: Any) -> str:
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


def ordered_choices(body: Any, prompts: int) -> list[Any]:
    """A ``/v1/completions`` answer's choices, one per prompt sent, in prompt order (by ``index``; a server
    may answer a list of prompts out of order); a count other than ``prompts`` is a :class:`ServerError`."""
    choices = body.get("choices") if isinstance(body, dict) else None
    if not isinstance(choices, list) or len(choices) != prompts:
        raise ServerError(f"the server answered {len(choices) if isinstance(choices, list) else 'no'} choices "
                          f"for {prompts} prompts")
    return sorted(choices, key=lambda c: c.get("index", 0) if isinstance(c, dict) else 0)


def checked_concurrency(concurrency: Any) -> int:
    """``--concurrency``: a whole number of requests in flight, at least 1."""
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise UsageError(f"concurrency is a whole number of requests of at least 1, not {concurrency!r}")
    return concurrency
