"""Generated answers through a server's ``/v1/chat/completions`` (issue 38): ``--served-api chat``.

Gateways and hosted APIs often offer only a chat endpoint; there the server renders the chat template. A
:class:`~biasatlas.probes.GenerationProbe` built for this scorer carries its user turn (``user``: the
benchmark sets it when :attr:`~biasatlas.probes.ChatTokens.server_renders` says so), sent as the one user
message, ``messages=[{"role": "user", "content": user}]``, at ``temperature`` 0 with ``max_tokens`` the
probe's ``max_new_tokens``, ``stop`` its stop strings and ``n`` 1: the request lm-evaluation-harness's
``local-chat-completions`` sends for ``generate_until``. The answer's text is ``message.content`` (cut again
on the stop strings, which changes nothing where the server cut it), its token count the response's
``usage.completion_tokens``, and ``finish`` read as on the completions path (:mod:`.generation`):
``length``; a stop string where the server names one (vLLM's ``stop_reason``) or the text was cut here;
else the end-of-sequence token. One conversation per request (the API takes no list), ``concurrency``
requests in flight.

Likelihoods are refused with the reason (a chat endpoint returns no prompt log-probabilities,
lm-evaluation-harness issues 942 and 1196): the server is never asked its ``/v1/completions``, so none of
the echo canary's checks run. The answers' identity is instead a **chat canary**: the greedy answer to a
fixed message (:data:`~.chat.PROBE_MESSAGE`), hashed; it keys the cache (with the API, so no answer of
the completions path is ever reused here) and is asked again before and after each ``score`` call (a chunk),
so a model swapped behind the same name stops the run with the answers of the chunks before it kept and none
of the chunk it came in. A Ctrl-C keeps the answers of the requests finished, as on the completions path.
Retries, the named 4xx, the key kept out of every message: :mod:`.http`'s client, as the completions
path's.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

from ...errors import ModelError, UnsupportedProbe
from ...probes import GenerationAnswer, GenerationProbe, ScorerInfo
from ...values import canonical_dtype, check_batch_size
from ..base import Progress
from ..generation import cut
from ..resume import Interrupted
from .completions import ServedScorer
from .answer import Field, ordered_choices
from .chat import PROBE_MESSAGE, served_chat
from .checks import ModelChanged
from .generation import finish
from ..start import StartToken
from .http import checked_concurrency
from .tokens import SingleToken

#: The chat canary's budget: enough tokens that another model's answer differs, few enough to be cheap.
CANARY_TOKENS = 16
NO_LIKELIHOODS = ("{kind} probes need prompt log-probabilities, and a chat endpoint returns none "
                  "(lm-evaluation-harness issues 942 and 1196): --served-api chat answers generated texts only "
                  "(bbq --answers generated); leave --served-api at completions for likelihood benchmarks")


class ServedChatScorer(ServedScorer):
    """The served model's greedy answers from ``/v1/chat/completions`` (module docstring); what the server
    says of itself (``/v1/models``, ``/version``) and the served folder's template are read as the
    completions path reads them."""

    def _check_settings(self, variant: str, batch_size: Any, dtype: str, start_token: StartToken,
                        concurrency: int) -> None:
        """As :class:`ServedScorer`'s, less what only likelihoods use (the prefix, the start token, the pair
        variant: ignored); ``batch_size`` is checked and recorded as 1 (one conversation per request)."""
        concurrency = checked_concurrency(concurrency)
        self.variant, self.dtype, self.start_token, self.prefix = "chat", canonical_dtype(dtype), "empty-context", ""
        check_batch_size(batch_size)
        self.batch_size = 1  # one conversation per request: the chat API takes no list of them
        self.concurrency = concurrency

    def _read_server(self, served_prefix: str | None, single_token: SingleToken | None, token_ids: Any) -> None:
        """The server renders the template, so no canary of the completions path runs: the chat facts are
        the served folder's, checked as the completions path checks them, and the chat canary keys the
        answers."""
        self.server_adds_start = True
        # the completions path's one-token reading (:mod:`.tokens`) reads likelihoods, which this path refuses
        self.single_token, self.single_token_why, self.encode = "echo", "a chat endpoint reads no likelihoods", None
        self.chat = replace(served_chat(self.local, "first-only", "", self.where), server_renders=True)
        self.chat_check = self._check_chat()
        self.chat_canary = self._chat_canary()

    @property
    def info(self) -> ScorerInfo:
        """Generated texts only, through the server's own template (``ChatTokens.server_renders``)."""
        return ScorerInfo(kind=self.name, reads="sequence", dtype=self.dtype, chat=self.chat, generates=True)

    def _chat_canary(self) -> str:
        """The sha256 of the greedy answer to :data:`PROBE_MESSAGE` (and of the model's id)."""
        body = {"model": self.facts.model, "messages": [{"role": "user", "content": PROBE_MESSAGE}],
                "max_tokens": CANARY_TOKENS, "temperature": 0, "n": 1}
        said = self.client.post("chat/completions", body)
        _, text = _content(said, self.where, "the chat canary", self.client.url("chat/completions"))
        return hashlib.sha256(json.dumps([self.facts.model, text]).encode()).hexdigest()[:16]

    def _same_model(self) -> None:
        """:class:`.checks.ModelChanged` when the chat canary's answer changed since the scorer was
        built (read before and after each ``score`` call: :meth:`ServedScorer.score`)."""
        now = self._chat_canary()
        if now != self.chat_canary:
            raise ModelChanged(self.where, f"chat canary {self.chat_canary}, now {now}")

    def _job_builders(self) -> tuple[tuple[type, Callable[[list[Any]], Iterable[Any]]], ...]:
        return tuple((kind, self._no_likelihoods) for kind, _ in super()._job_builders())

    @staticmethod
    def _no_likelihoods(probes: list[Any]) -> Iterable[Any]:
        kind = type(probes[0]).__name__.removesuffix("Probe").lower() if probes else "likelihood"
        raise UnsupportedProbe(NO_LIKELIHOODS.format(kind=kind))

    def _generations(self, probes: list[GenerationProbe], tick: Progress,
                     answered: frozenset[str] = frozenset()) -> list[GenerationAnswer]:
        """One request per probe not ``answered``, ``concurrency`` in flight; on Ctrl-C,
        :class:`~..resume.Interrupted` with the answers of the requests finished."""
        todo = [p for p in probes if p.id not in answered]
        for p in todo:
            if p.user is None:
                raise UnsupportedProbe(f"probe {p.id} is a text prompt, not a user message: a chat endpoint renders "
                                       "the template itself; ask with --chat-template model, or use --served-api "
                                       "completions")
        out: dict[str, GenerationAnswer] = {}
        pool = ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="served-chat")
        try:
            futures = [pool.submit(self.client.post, "chat/completions", self._body(p)) for p in todo]
            for probe, future in zip(todo, futures):
                out[probe.id] = _answer(probe, future.result(), self.where, self.client.url("chat/completions"))
                tick(1)
        except KeyboardInterrupt:
            raise Interrupted(dict(out)) from None
        finally:
            pool.shutdown(wait=False, cancel_futures=True)
        return [out[p.id] for p in todo]

    def _body(self, probe: GenerationProbe) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.facts.model, "messages": [{"role": "user", "content": probe.user}],
                                "max_tokens": probe.max_new_tokens, "temperature": 0, "n": 1}
        if probe.stop:
            body["stop"] = list(probe.stop)
        return body

    def describe(self) -> dict[str, Any]:
        return {"scorer": self.name, "api": "chat", "model": f"{self.facts.model} @ {self.endpoint.url}",
                "endpoint": self.endpoint.url, "served_model": self.facts.model, "root": self.facts.root,
                "server": self.facts.owned_by, "server_version": self.facts.version,
                "chat_template": "server", "chat_template_from": None if self.local is None else self.local.folder,
                "chat_template_check": self.chat_check, "chat_canary": self.chat_canary, "dtype": self.dtype,
                "batch_size": self.batch_size, "concurrency": self.concurrency, **self.weights}

    def fingerprint(self) -> str:
        """The cache key: the API and the chat canary (never a completions-path answer's key)."""
        key = {"scorer": self.name, "api": "chat", "canary": self.chat_canary}
        return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]


def _content(said: Any, where: str, what: str, url: str) -> tuple[Field, str]:
    """The answer's one choice (``index`` 0: ``n`` is 1) and its ``message.content``; a message without
    text (a refusal as a tool call, ``content`` null) is named as such, any other shape as a field."""
    choice = ordered_choices(said, 1, url)[0]
    message = choice.key("message")
    text = None if message.absent else message.key("content").maybe_text()
    if text is None:
        raise ModelError(f"{where} gave no message text for {what}")
    return choice, text


def _answer(probe: GenerationProbe, said: Any, where: str, url: str) -> GenerationAnswer:
    choice, text = _content(said, where, f"probe {probe.id}", url)
    text, cut_here = cut(text, probe.stop)
    usage = Field(said, url).key("usage")
    n_tokens = None if usage.absent else usage.key("completion_tokens").maybe_count()
    return GenerationAnswer(probe.id, text, n_tokens or 0, finish(choice, cut_here))
