"""Whether a server's log-probabilities can be trusted, checked on a canary before any scoring.

A served model's weights cannot be hashed from here, and a server may answer likelihood
requests in ways that look like numbers but are not what a benchmark needs. So before a run
scores anything (and in ``biasatlas check-server``), a fixed canary text is sent and the answers
checked, in this order (:data:`CHECKS`):

``one-per-token``
    one log-probability per prompt token after the first. llama.cpp's own server returns, even
    with ``echo``, the log-probability of the generated token only; through it every likelihood
    choice scores the same (ggml-org/llama.cpp issue 27174; lm-evaluation-harness sums an empty
    slice to 0).
``offsets-tile``
    the returned ``text_offset`` s tile the text: each token starts where the last ended and
    the tokens spell the text (:meth:`.echo.EchoedPrompt.untiled`).
``start-token``
    the canary's first token has a log-probability: something precedes it (the prefix, or a
    start token the server adds), as the in-process scorer's prefix token precedes every text.
``finite``
    every value is a finite number ≤ 0 (a log-probability). Checked by the reader of every answer,
    the canary's and each benchmark prompt's (:class:`.echo.NotLogprob`): a server honest on
    the canary alone stops the run at its first other answer, which is never kept.
``deterministic``
    the same request twice gives the same numbers (to :data:`REPEAT_TOLERANCE`).
``prefix-stable``
    the canary's values do not change when the text is extended (a causal model reads left
    to right; to :data:`PREFIX_TOLERANCE`: another length runs other kernels).

The canary's log-probabilities, rounded to :data:`FINGERPRINT_DECIMALS` decimals, hashed, are
the served model's fingerprint: part of the cache key (another model behind the same name
never reuses answers) and read again before and after each chunk of a run (:func:`same_model`).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .echo import EchoedPrompt, NoLogprobs, NotLogprob
from .http import ServerError

#: The canary (plain ASCII words, so every tokenizer splits it into whole-word pieces) and the
#: words appended to it for the prefix check.
CANARY = "The canary reads every word of this sentence, and its numbers must not move."
EXTENSION = " Then it reads a few words more."
CHECKS = ("one-per-token", "offsets-tile", "start-token", "finite", "deterministic", "prefix-stable")
#: Nats two identical requests may differ by. vLLM 0.32 on a CPU repeats itself to the bit (40
#: CrowS-Pairs items gave byte-identical records with 8 prompts per request one request at a time
#: and with 64 per request four at a time); a busy shared server batches our requests with
#: others', whose kernels may round differently in the last places. A changed model moves the
#: canary by far more (a retrained or quantised one: tenths of a nat).
REPEAT_TOLERANCE = 1e-4
PREFIX_TOLERANCE = 1e-2
FINGERPRINT_DECIMALS = 3
#: Nats the canary may move during a run before the model is said to have changed.
CHANGE_TOLERANCE = 10 ** -FINGERPRINT_DECIMALS


class UntrustedServer(ServerError):
    """A server failed a trust check on the canary: its log-probabilities cannot be used."""

    def __init__(self, check: str, where: str, detail: str, todo: str) -> None:
        self.check = check
        super().__init__(f"{where} fails the {check!r} check: {detail}; {todo}")


@dataclass(frozen=True)
class Canary:
    """The canary's token log-probabilities (after the prefix) and their fingerprint."""

    tokens: tuple[str, ...]
    values: tuple[float, ...]

    @property
    def fingerprint(self) -> str:
        rounded = [[t, round(v, FINGERPRINT_DECIMALS) + 0.0] for t, v in zip(self.tokens, self.values)]
        return hashlib.sha256(json.dumps(rounded).encode()).hexdigest()[:16]


Ask = Callable[[Sequence[str]], list[EchoedPrompt]]
"""Sends prompts (one request), returns them echoed: :meth:`.completions.ServedScorer.ask`."""


def checked_canary(ask: Ask, prefix: str, where: str) -> Canary:
    """Run every check of :data:`CHECKS` on the canary (``prefix`` before it, as before every
    prompt); the first that fails raises :class:`UntrustedServer` naming it, ``where`` (the
    URL and model) and what to do. Returns the canary's values."""
    try:
        first = _asked(ask, prefix + CANARY, where)
    except NoLogprobs:  # llama.cpp's server: none at logprobs 0 (and the generated token's only at 1 or more)
        raise UntrustedServer("one-per-token", where, "it returned no log-probabilities for the echoed canary "
                              "(llama.cpp's server answers none, or the generated token's only)", _ONE_PER_TOKEN_TODO
                              ) from None
    _one_per_token(first, where)
    reason = first.untiled()
    if reason is not None:
        raise UntrustedServer("offsets-tile", where, f"its tokens do not tile the canary ({reason})",
                              "a server that echoes tokens with their text_offset is needed")
    if any(v is None for v, end in zip(first.logprobs, first.ends()) if end > len(prefix)):
        raise UntrustedServer("start-token", where, "the canary's first token has no log-probability (nothing "
                              "precedes it: the server adds no start token)",
                              "name the model's start token with --served-prefix (its BOS token as text, else its "
                              "EOS, as in-process scoring and lm-evaluation-harness put before every text; "
                              "e.g. '<|im_start|>' for SmolLM2)")
    canary = _canary(first, len(prefix))  # its values are log-probabilities: read by _asked
    again = _canary(_asked(ask, prefix + CANARY, where), len(prefix))
    moved = _moved(canary, again)
    if moved > REPEAT_TOLERANCE:
        raise UntrustedServer("deterministic", where, f"the same request twice moved a value by {moved:.3g} nats",
                              "serve the model with greedy, batch-invariant settings and nothing else running")
    extended = _canary(_asked(ask, prefix + CANARY + EXTENSION, where), len(prefix))
    head = Canary(extended.tokens[:len(canary.tokens)], extended.values[:len(canary.values)])
    moved = _moved(canary, head)
    if moved > PREFIX_TOLERANCE:
        raise UntrustedServer("prefix-stable", where, f"extending the text moved the canary's values by "
                              f"{moved:.3g} nats", "only a causal language model's log-probabilities can be read")
    return canary


class ModelChanged(ServerError):
    """The served model's identity (the canary's reading, or the chat canary's answer) moved during a
    run: another model behind the same name. Read before and after each ``score`` call (a chunk), so
    that no answer a new model gave is kept under the old one's fingerprint."""

    def __init__(self, where: str, how: str) -> None:
        super().__init__(f"the model behind {where} changed during the run ({how}): the answers of the chunks "
                         "the canary read the same before and after are kept in the score cache, none of the "
                         "chunk it moved in; rerun to score the rest against the model served now")


def same_model(ask: Ask, prefix: str, before: Canary, where: str) -> None:
    """Refuse to go on (:class:`ModelChanged`) when the canary moved since ``before`` (another model
    behind the name)."""
    now = _canary(ask([prefix + CANARY])[0], len(prefix))
    if _moved(before, now) > CHANGE_TOLERANCE:
        raise ModelChanged(where, f"canary fingerprint {before.fingerprint}, now {now.fingerprint}")


def _asked(ask: Ask, text: str, where: str) -> EchoedPrompt:
    """``text`` echoed; a value that cannot be a log-probability fails the ``finite`` check (the reader
    found it: :class:`.echo.NotLogprob`)."""
    try:
        return ask([text])[0]
    except NotLogprob as bad:
        raise UntrustedServer("finite", where, f"it {bad.detail}",
                              "this server returns something other than log-probabilities") from None


_ONE_PER_TOKEN_TODO = ("serve the model with a server that returns prompt log-probabilities with echo (vLLM; "
                       "docs/serving.md)")


def _one_per_token(echo: EchoedPrompt, where: str) -> None:
    values = list(echo.logprobs[1:])
    missing = len(echo.tokens) < 2 or len(echo.logprobs) != len(echo.tokens) or any(v is None for v in values)
    if missing:
        raise UntrustedServer(
            "one-per-token", where,
            f"it returned {sum(v is not None for v in echo.logprobs)} log-probabilities for the canary's "
            f"{len(echo.tokens) if len(echo.tokens) > 1 else 'many'} tokens (llama.cpp's server answers with the "
            "generated token's only)", _ONE_PER_TOKEN_TODO)


def _canary(echo: EchoedPrompt, start: int) -> Canary:
    """The canary's tokens and values: those after the prefix."""
    ends = echo.ends()
    kept = [(t, v) for t, v, end in zip(echo.tokens, echo.logprobs, ends) if end > start and v is not None]
    return Canary(tuple(t for t, _ in kept), tuple(v for _, v in kept))


def _moved(a: Canary, b: Canary) -> float:
    """The largest difference between two readings of the canary (infinite: other tokens)."""
    if a.tokens != b.tokens:
        return math.inf
    return max((abs(x - y) for x, y in zip(a.values, b.values)), default=0.0)
