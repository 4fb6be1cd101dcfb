"""Served causal LM: the causal-lm scorer's answers, read from an OpenAI-compatible server.

``--model http://127.0.0.1:8000/v1`` (with ``--served-model NAME`` when the server serves
several) scores any causal model behind vLLM, a gateway, or any server whose
``/v1/completions`` echoes prompt log-probabilities. Every probe kind the causal benchmarks ask is
answered as :mod:`..inprocess.causal_lm` answers it (DESIGN.md, "Served models and saved outputs"):

- a sentence (and each side of a pair, ``sentence-ll``): Σ log P(token | prefix, earlier tokens)
  over the sentence's tokens;
- a continuation after each context (census's conditional reading, BBQ's options): the same
  sum over the continuation's tokens only, the context's trailing whitespace moved to the
  continuation (:func:`..spans.split_continuation`);
- a slot: each filled-in sentence's log-likelihood, with the filler's token count in context.

What each text is read after is the ``start_token`` convention, as in-process
(:mod:`.start` turns each into prompts): the prefix (the model's start token as text, e.g.
``<|im_start|>``) stands for the in-process scorer's prefix token and is never scored; a server
whose tokenizer adds its own start token needs none (and is refused one, and refuses
``first-only``, which reads tokens without any start token); :mod:`.jobs` builds the jobs. Which tokens
belong to what is read from the returned character offsets (:mod:`.echo`), checked to
tile the prompt; a prompt they do not tile stops the run naming its probe.

Engine: the distinct prompts of an engine call are sent ``batch_size`` per request (the API
takes a list), at most ``concurrency`` requests in flight (a thread pool over one ``httpx``
client); each finished request counts as a batch for Ctrl-C (:mod:`..resume`), and a Ctrl-C keeps the
answers of the requests finished (the engine hands this scorer whole chunks: :attr:`scores_whole_chunks`).
Before any scoring, the canary checks run (:mod:`.checks`); their fingerprint keys the cache, and
each ``score`` call (a chunk) reads the canary again before and after, so that a model swapped mid-run
stops the run with the answers of the chunks before it kept and none of the chunk it came in. Every
value of every answer is checked to be a log-probability as it is read (:class:`.echo.NotLogprob`).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from functools import partial
from typing import Any

from ...errors import UnsupportedProbe, UsageError
from ...probes import Answer, GenerationProbe, Probe, Scored, ScorerInfo
from ...values import canonical_dtype, check_batch_size
from ..base import Progress
from ..batch_size import DEFAULT_BATCH_SIZE
from ..batching import chunks
from ..resume import EVERY_ROW, Interrupted, Stopped, Watch
from .generation import completions
from .chat import cross_check, default_prefix, local_tokenizer, served_chat
from .checks import CANARY, Canary, checked_canary, same_model
from .echo import EchoedPrompt, NotLogprob, Untiled, echoed
from .facts import served_facts, served_weights
from .http import (DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT, Endpoint, ServedClient, ServerError, api_key,
                          checked_concurrency)
from .jobs import ServedJobs
from .start import Ask, read, refusal
from .tokens import (SingleToken, TokenAsk, TokenRow, answered, batches, body, encoder, ids_of, token_value,
                            trusted)
from ..start import DEFAULT_START, StartToken, check_start_token


class ServedScorer(ServedJobs):
    name = "served"
    #: :func:`..engines.score_chunk` hands this scorer whole chunks with ``answered`` (its :meth:`score`
    #: wraps :meth:`Scorer.score`'s, which batches them), and keeps its finished answers on Ctrl-C.
    scores_whole_chunks = True

    def __init__(self, model: str, *, served_model: str | None = None, served_prefix: str | None = None,
                 variant: str = "sentence-ll", batch_size: Any = DEFAULT_BATCH_SIZE,
                 concurrency: int = DEFAULT_CONCURRENCY, api_key_env: str | None = None,
                 request_timeout: float = DEFAULT_TIMEOUT, dtype: str = "float32",
                 start_token: StartToken = DEFAULT_START, single_token: SingleToken | None = None,
                 transport: Any = None, sleep: Any = None, token_ids: Any = None, **_: Any) -> None:
        """``model`` is the API's base URL; ``served_model`` the model's id there (default: the
        only one it lists); ``served_prefix`` the text before every prompt (default: none, which
        needs a server that adds its own start token). ``batch_size`` prompts per request,
        ``concurrency`` requests in flight; ``api_key_env`` names the key's environment variable
        (default ``OPENAI_API_KEY``, when set); ``dtype`` is what the server computes in, as the
        user declares it (it bounds which outcomes are called fragile). ``start_token``: what each
        text is read after (:mod:`.start`; one this server cannot give is refused before
        any scoring). ``single_token``: ``auto`` (None) reads an option of one token after its
        context through ``logprob_token_ids`` where the server is trusted with it (:mod:`.tokens`),
        ``echo`` never.
        ``transport``, ``sleep`` and ``token_ids`` (the server's tokenizer, text → ids, where no served
        folder is here) are for tests (an in-process server, no real waits)."""
        self._check_settings(variant, batch_size, dtype, start_token, concurrency)
        self._connect(model, served_model, api_key_env, request_timeout, transport, sleep)
        self.max_tokens = 0
        self._read_server(served_prefix, single_token, token_ids)

    def _check_settings(self, variant: str, batch_size: Any, dtype: str, start_token: StartToken,
                        concurrency: int) -> None:
        """The settings checked before the server is asked anything (a subclass checks its own)."""
        if variant != "sentence-ll":
            raise UnsupportedProbe(f"served pair variant {variant!r} unknown; the served scorer reads sentence-ll")
        if check_batch_size(batch_size) == "auto":  # a server's memory is its own: auto is the default
            batch_size = DEFAULT_BATCH_SIZE
        self.variant, self.dtype, self.start_token = variant, canonical_dtype(dtype), check_start_token(start_token)
        self.batch_size, self.concurrency = batch_size, checked_concurrency(concurrency)

    def _read_server(self, served_prefix: str | None, single_token: SingleToken | None, token_ids: Any) -> None:
        """What the completions path learns from the server once connected: the prefix, the canary checks,
        the start token it adds, the chat facts and the one-token reading."""
        self.prefix = served_prefix if served_prefix is not None else default_prefix(self.local)
        self._owner: dict[Any, str] = {}  # prompt → the first probe that asked it (for errors)
        self._counts: dict[Any, int] = {}
        self._late: dict[str, EchoedPrompt] = {}  # prompts read after the job's (start.read's lead)
        self.canary = self._trusted()
        self.server_adds_start = self._adds_start()
        refused = refusal(self.start_token, self.prefix, self.server_adds_start)
        if refused is not None:
            raise UsageError(f"{self.where}: {refused}")
        self.chat = served_chat(self.local, self.start_token, self.prefix, self.where)
        self.chat_check = self._check_chat()
        self.encode = token_ids if token_ids is not None else None if self.local is None else \
            encoder(self.local.tokenizer)
        self.single_token, self.single_token_why = self._single_token(single_token or "auto")

    # -- the server --------------------------------------------------------------------------
    def _connect(self, model: str, served_model: str | None, api_key_env: str | None, request_timeout: float,
                 transport: Any, sleep: Any) -> None:
        """The endpoint's client, the served model's ``/v1/models`` facts, its folder's tokenizer (both APIs)."""
        self.endpoint = Endpoint.parse(model)
        extra = {"sleep": sleep} if sleep is not None else {}
        self.client = ServedClient(self.endpoint, api_key(api_key_env), timeout=request_timeout,
                                   transport=transport, **extra)
        self.facts = served_facts(self.client, served_model)
        self.weights = served_weights(self.facts.root)  # hashed once here: describe() is asked per chunk
        self.local = local_tokenizer(self.facts.root)  # the served folder's tokenizer, where it is here

    def _check_chat(self) -> str:
        """The served folder's chat facts checked against the server's own tokenizer (both APIs)."""
        if self.local is None:
            return "unchecked"
        return cross_check(self.client.post, self.facts.model, self.local, self.chat, self.where,
                           self.client.url("../tokenize"))

    @property
    def where(self) -> str:
        """The endpoint and model, as messages name them (no credentials: the URL holds none)."""
        return f"{self.endpoint.url} (model {self.facts.model})"

    def _trusted(self) -> Canary:
        """The canary checks (:mod:`.checks`), with ``max_tokens`` 0 where the server takes it."""
        try:
            self.ask(["x"])
        except NotLogprob:
            pass  # max_tokens 0 taken; the canary's `finite` check says what is wrong with the answer
        except ServerError:
            self.max_tokens = 1  # a server that must generate: its one token is dropped
        return checked_canary(self.ask, self.prefix, self.where)

    def _adds_start(self) -> bool:
        """Whether the server puts a start token of its own before a prompt: the canary's first
        token, sent without the prefix, has a log-probability (without a prefix, the canary's
        ``start-token`` check has already said so)."""
        if not self.prefix:
            return True
        bare = self.ask([CANARY])[0]
        return bool(bare.logprobs) and bare.logprobs[0] is not None

    def _single_token(self, wanted: SingleToken) -> tuple[str, str | None]:
        """How one-token options are read, decided once (:func:`.tokens.trusted`), and why not
        through ``logprob_token_ids`` where they are not."""
        if wanted == "echo":
            return "echo", "asked (--single-token echo)"
        if self.encode is None:
            return "echo", "no tokenizer of the served model here to tell one-token options"
        why = trusted(lambda text, start: self.ask([text])[0].summed(start)[0], self.ask_ids, self.encode,
                      self.prefix + CANARY)
        return ("echo", why) if why is not None else ("logprob_token_ids", None)

    def ask_ids(self, contexts: Sequence[str], ids: Collection[int]) -> list[dict[int, float]]:
        """One request reading each context's next-token log-probabilities of ``ids``."""
        with self._refusing_impossible():
            return answered(self.client.post("completions", body(self.facts.model, contexts, list(ids))), contexts,
                            self.client.url("completions"))

    def ask(self, prompts: Sequence[str]) -> list[EchoedPrompt]:
        """One ``/v1/completions`` request for ``prompts``: each echoed with its log-probabilities."""
        body = {"model": self.facts.model, "prompt": list(prompts), "echo": True, "logprobs": 0,
                "max_tokens": self.max_tokens, "temperature": 0}
        with self._refusing_impossible():
            return echoed(self.client.post("completions", body), prompts, self.max_tokens,
                          self.client.url("completions"))

    @contextmanager
    def _refusing_impossible(self) -> Iterator[None]:
        """A value in an answer that no log-probability can be (:class:`.echo.NotLogprob`, found as
        the answer is read, whichever request it answers) stops the run in one line naming the server:
        raised where the request was sent, before anything of the answer is kept, so a chunk holding one
        is never cached (nor the canary's fingerprint taken from one)."""
        try:
            yield
        except NotLogprob as bad:
            raise NotLogprob(bad.detail, self.where) from None

    @property
    def info(self) -> ScorerInfo:
        """Sentence log-likelihoods; the model's chat template read from its folder where that is here
        (:mod:`.chat`), else unknown: a benchmark asked for it then refuses, suggesting a
        template file (:mod:`...benchmarks.chat`)."""
        return ScorerInfo(kind=self.name, reads="sequence", dtype=self.dtype, chat=self.chat, generates=True)

    def score(self, probes: Sequence[Probe], progress: Progress | None = None, *,
              answered: Collection[str] = frozenset()) -> Scored:
        """:meth:`Scorer.score` between two readings of the model's identity (:meth:`_same_model`: one
        request each). The reading before stops a run whose model changed since the last chunk before
        paying for this one; the reading after, before any answer of this chunk is kept (committed, or
        kept by Ctrl-C), refuses them all when the model changed while they were asked (a second Ctrl-C
        during that reading is a bare KeyboardInterrupt: the pipeline then keeps none of them)."""
        self._same_model()
        self._owner, self._counts, self._late = {}, {}, {}
        try:
            scored = super().score(probes, progress, answered=answered)
        except Interrupted:
            self._same_model()  # the finished answers are kept only if no other model gave them
            raise
        self._same_model()
        return scored

    def _same_model(self) -> None:
        """:class:`.checks.ModelChanged` when the canary moved since the scorer was built."""
        same_model(self.ask, self.prefix, self.canary, self.where)

    def _generations(self, probes: list[GenerationProbe], tick: Progress,
                     answered: frozenset[str] = frozenset()) -> Sequence[Answer]:
        """Greedy texts from ``/v1/completions`` (:mod:`.generation`), the prompt sent as it is."""
        return completions(self.client.post, self.facts.model, [p for p in probes if p.id not in answered],
                           batch_size=max(int(self.batch_size), 1), tick=tick, where=self.where,
                           url=self.client.url("completions"))

    # -- the engine --------------------------------------------------------------------------
    def _model_input(self, request: Any) -> Any:
        return request.row if isinstance(request, TokenAsk) else request.prompt

    def _batch_plan(self, requests: Sequence[Any]) -> list[list[Any]]:
        """Echoed prompts ``batch_size`` per request; contexts read by token id likewise, at most
        128 ids per request (:func:`.tokens.batches`)."""
        rows = list(dict.fromkeys(map(self._model_input, requests)))
        size = max(self.batch_size, 1)
        by_id = [r for r in rows if isinstance(r, TokenRow)]
        echoed_rows = chunks([r for r in rows if not isinstance(r, TokenRow)], size)
        return [*echoed_rows, *batches(by_id, ids_of(requests), size)] if by_id else echoed_rows

    def _planned_batches(self, calls: list[Sequence[Any]], rows: set[Any]) -> int:
        return sum(len(self._batch_plan(call)) for call in calls)

    def logprob_sums(self, requests: Sequence[Any], work: dict[str, int] | None = None) -> list[float]:
        return self._launch(requests, {} if work is None else work)()

    def _launch(self, requests: Sequence[Any], work: dict[str, int], watch: Watch = EVERY_ROW) -> Any:
        """Send the batches ``watch`` wants, ``concurrency`` at a time; the reader sums each request's
        tokens from the echoed prompts (NaN for a prompt not sent)."""
        wanted = [b for b in self._batch_plan(requests) if watch.wants(b)]
        echoes: dict[Any, Any] = {}  # a prompt's echo, a token row's {id: log P}
        ids = ids_of(requests)
        pool = ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="served")
        try:
            futures: list[Future[list[Any]]] = [
                pool.submit(self.ask_ids, [r.context for r in batch], set().union(*(ids[r] for r in batch)))
                if isinstance(batch[0], TokenRow) else pool.submit(self.ask, batch) for batch in wanted]
            for batch, future in zip(wanted, futures):
                echoes.update(zip(batch, future.result()))
                work["rows_computed"] = work.get("rows_computed", 0) + len(batch)
                work["batches"] = work.get("batches", 0) + 1
                watch.done(batch)
        except KeyboardInterrupt:
            pool.shutdown(wait=False, cancel_futures=True)
            raise Stopped(partial(self._values, requests, dict(echoes))) from None
        finally:
            pool.shutdown(wait=False, cancel_futures=True)
        return partial(self._values, requests, echoes)

    def _values(self, requests: Sequence[Any], echoes: dict[Any, Any]) -> list[float]:
        values = []
        for ask in requests:
            echo = echoes.get(self._model_input(ask))
            if echo is None:
                values.append(math.nan)
            elif isinstance(ask, TokenAsk):
                values.append(self._read_id(ask, echo))
            else:
                values.append(self._read(ask, echo))
        return values

    def _read_id(self, ask: TokenAsk, got: dict[int, float]) -> float:
        """A one-token option's log-probability; one the server left out stops the run naming the probe."""
        try:
            found = token_value(ask, got)
        except ServerError as exc:
            raise ServerError(f"probe {self._owner.get(ask, '?')}: {self.where}: {exc}") from None
        self._counts[ask] = 1
        return found

    def _read(self, ask: Ask, echo: EchoedPrompt) -> float:
        """The request's sum, its token count kept for the answer; a prompt whose tokens do not
        tile it stops the run naming the probe that asked it."""
        reason = echo.untiled()
        try:
            if reason is not None:
                raise Untiled(reason)
            value, n = read(ask, echo, self._echo_late)
        except Untiled as exc:
            raise Untiled(f"probe {self._owner.get(ask.prompt, '?')}: {self.where} read {ask.prompt!r} so that "
                          f"its offsets cannot be trusted ({exc})") from None
        self._counts[ask] = echo.overlapping(*ask.count) if ask.count is not None else n
        return value

    def _echo_late(self, prompt: str) -> EchoedPrompt:
        """``prompt`` echoed by a request of its own (a reading's ``lead``: rare), checked to tile."""
        echo = self._late.get(prompt)
        if echo is None:
            echo = self._late[prompt] = self.ask([prompt])[0]
        reason = echo.untiled()
        if reason is not None:
            raise Untiled(reason)
        return echo

    def describe(self) -> dict[str, Any]:
        return {"scorer": self.name, "variant": self.variant, "model": f"{self.facts.model} @ {self.endpoint.url}",
                "endpoint": self.endpoint.url, "served_model": self.facts.model, "root": self.facts.root,
                "server": self.facts.owned_by, "server_version": self.facts.version, "prefix": self.prefix,
                "chat_template_from": None if self.local is None else self.local.folder,
                "chat_template_check": self.chat_check, "start_token": self.start_token,
                "server_adds_start": self.server_adds_start, "single_token_reading": self.single_token,
                "single_token_echo_because": self.single_token_why,
                "dtype": self.dtype, "canary_fingerprint": self.canary.fingerprint,
                "batch_size": self.batch_size, "concurrency": self.concurrency, **self.weights}

    def fingerprint(self) -> str:
        """The cache key: what the answers are (the canary's fingerprint, the prefix, the variant,
        the start-token convention),
        not where the server is or how the requests are cut."""
        import hashlib
        import json

        key = {"scorer": self.name, "variant": self.variant, "prefix": self.prefix,
               "start_token": self.start_token, "canary": self.canary.fingerprint}
        if self.single_token != "echo":  # answers read another way: never the echo reading's cache
            key["single_token"] = self.single_token
        return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]
