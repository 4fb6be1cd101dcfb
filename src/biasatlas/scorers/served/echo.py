"""Reading a server's echoed prompt: per-token log-probabilities placed by character offsets.

``/v1/completions`` with ``echo: true`` and ``logprobs`` returns, per prompt, the prompt's tokens
(``logprobs.tokens``), each one's log-probability given everything before it
(``token_logprobs``; the first is null: nothing precedes it) and where it starts in the text
(``text_offset``), followed by the generated token(s). Which tokens belong to a continuation or
a filler is read from these offsets, never guessed from a local tokenizer: the offsets must
tile the prompt exactly (each token starts where the last ended, and the tokens spell the
prompt), else the prompt is refused with :class:`Untiled`. Every value is checked as it is read,
in every answer, not only the canary's: a number no log-probability can be (not finite, or above
0) refuses the answer whole (:class:`NotLogprob`), so a server that answers the canary honestly
and the benchmark otherwise stops the run before any of its answers is kept.

Why checked so strictly: lm-evaluation-harness's ``local-completions`` sums
``token_logprobs[ctxlen:-1]`` by position (``lm_eval/models/openai_completions.py``), so a
server that returns fewer entries than tokens (llama.cpp's server returns the generated
token's only) or another tokenization gives a silently wrong sum; here it is an error.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .answer import Field, ordered_choices
from .http import ServerError


class Untiled(ServerError):
    """A server's tokens for a prompt do not tile its text (or are missing): its offsets
    cannot say which log-probability belongs to which part of the text."""


@dataclass(frozen=True)
class EchoedPrompt:
    """One prompt as the server read it: ``tokens[i]`` spans ``text[offsets[i]:offsets[i + 1]]``
    and ``logprobs[i]`` is log P(tokens[i] | tokens[:i]) (None for the first)."""

    text: str
    tokens: tuple[str, ...]
    logprobs: tuple[float | None, ...]
    offsets: tuple[int, ...]

    def untiled(self) -> str | None:
        """Why the tokens do not tile :attr:`text`, or None when they do."""
        if not self.tokens:
            return "the server returned no prompt tokens"
        if not len(self.tokens) == len(self.logprobs) == len(self.offsets):
            return (f"{len(self.tokens)} tokens, {len(self.logprobs)} log-probabilities and "
                    f"{len(self.offsets)} offsets")
        at = 0
        for token, offset in zip(self.tokens, self.offsets):
            if offset != at or self.text[at:at + len(token)] != token:
                found = self.text[at:at + max(len(token), 1)]
                return f"token {token!r} at offset {offset} where the text has {found!r}"
            at += len(token)
        return None if at == len(self.text) else f"the tokens end at character {at} of {len(self.text)}"

    def checked(self) -> EchoedPrompt:
        """This prompt, when each of its values can be a log-probability (:func:`checked_logprob`)."""
        for i, value in enumerate(self.logprobs):
            if value is not None:
                token = self.tokens[i] if i < len(self.tokens) else "?"
                checked_logprob(value, f"token {i} ({token!r})", self.text)
        return self

    def ends(self) -> list[int]:
        """Where each token ends in the text. A token of no text (a byte-level piece of a
        character that a later token completes: vLLM echoes ``''``, ``''``, ``' 🔥'``) ends
        where the token completing its character ends: it belongs to that character."""
        ends = [offset + len(token) for token, offset in zip(self.tokens, self.offsets)]
        for i in range(len(ends) - 2, -1, -1):
            if not self.tokens[i]:
                ends[i] = ends[i + 1]
        return ends

    def picked(self, start: int) -> list[int]:
        """The indices of the tokens ending after character ``start`` (those of the text from
        ``start`` on, a token straddling ``start`` included); at least one."""
        picked = [i for i, end in enumerate(self.ends()) if end > start]
        if not picked:
            raise Untiled(f"no token of {self.text!r} after character {start}")
        return picked

    def summed(self, start: int) -> tuple[float, int]:
        """Σ log P of the tokens ending after character ``start`` (:meth:`picked`), and how many they are."""
        picked = [self.logprobs[i] for i in self.picked(start)]
        if any(lp is None for lp in picked):
            raise Untiled(f"the first token of {self.text!r} has no log-probability (nothing precedes it)")
        return math.fsum(lp for lp in picked if lp is not None), len(picked)

    def overlapping(self, start: int, stop: int) -> int:
        """How many tokens overlap characters ``[start, stop)`` (a filler's tokens in context)."""
        return sum(1 for offset, end in zip(self.offsets, self.ends()) if end > start and offset < stop)

    def without_added_start(self) -> EchoedPrompt:
        """The prompt without a start token the server put before the text itself (a Llama
        tokenizer's ``<s>``: echoed, null log-probability, not in the text), offsets shifted back. A
        text that begins with the start token's own text keeps it unless the tokens tile the text
        only without it (the server added a second)."""
        if len(self.tokens) < 2 or self.logprobs[0] is not None or not self.tokens[0] \
                or self.offsets[1] != len(self.tokens[0]):
            return self
        if self.text.startswith(self.tokens[0]) and self.untiled() is None:
            return self
        shift = len(self.tokens[0])
        return EchoedPrompt(self.text, self.tokens[1:], self.logprobs[1:], tuple(o - shift for o in self.offsets[1:]))


def echoed(body: Any, prompts: Sequence[str], generated: int = 0, url: str = "the server") -> list[EchoedPrompt]:
    """The echoed prompts of a ``/v1/completions`` answer (from ``url``) to ``prompts`` (one choice each,
    by ``index``), without the ``generated`` tokens that follow each (``max_tokens``), every value
    checked (:meth:`EchoedPrompt.checked`)."""
    return [_prompt(choice, text, generated).checked()
            for choice, text in zip(ordered_choices(body, len(prompts), url), prompts)]


class NotLogprob(ServerError):
    """A number in a server's answer that no log-probability can be (not finite, or above 0): the
    answer is refused whole. ``detail`` says which value of which token of which text (``returned
    3.0 as …``); ``where`` names the server (its readers say it: :meth:`.completions.ServedScorer.ask`;
    the canary's ``finite`` check words it as its other checks)."""

    def __init__(self, detail: str, where: str = "the server") -> None:
        self.detail = detail
        super().__init__(f"{where} {detail}")


def checked_logprob(value: float, what: str, text: str) -> float:
    """``value`` when it can be a log-probability (finite, at most 0), else :class:`NotLogprob`
    naming ``what`` it was read for (a token, a token id) in ``text``."""
    if not (math.isfinite(value) and value <= 0):
        shown = text if len(text) <= 80 else text[:79] + "…"
        raise NotLogprob(f"returned {value!r} as the log-probability of {what} in {shown!r}, which no "
                         "log-probability is (they are finite and at most 0)")
    return value


class NoLogprobs(ServerError):
    """An echoed answer without any log-probabilities (``"logprobs": null``): llama.cpp's server (build
    0c1e570) answers so to ``logprobs`` 0, which asks for the chosen tokens' values and no alternatives."""


def _prompt(choice: Field, text: str, generated: int) -> EchoedPrompt:
    """One choice's echoed prompt, each field read as its type (:class:`.answer.Field`): tokens
    strings, log-probabilities numbers or null, offsets whole numbers; a list left out reads as empty
    (which the tiling checks then refuse)."""
    logprobs = choice.key("logprobs")
    if logprobs.absent:
        raise NoLogprobs("the server returned no log-probabilities (is `logprobs` supported by this endpoint?)")
    tokens = [t.text() for t in logprobs.key("tokens").maybe_items()]
    values = [v.maybe_number() for v in logprobs.key("token_logprobs").maybe_items()]
    offsets = [o.count() for o in logprobs.key("text_offset").maybe_items()]
    keep = max(len(tokens) - generated, 0)
    return EchoedPrompt(text, tuple(tokens[:keep]), tuple(values[:keep]), tuple(offsets[:keep])).without_added_start()
