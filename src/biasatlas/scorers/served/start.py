"""What a served prompt is read after: the start-token conventions of :mod:`..start`, as text prompts.

The in-process causal scorer builds each row from token ids (:meth:`..start.Start.read`); a server
gets text and tokenizes it itself, so each convention becomes which prompts are sent and which of
their echoed tokens are summed (``prefix``: ``--served-prefix``, the start token as text, for a
server that adds none; a server that adds its own start token gets no prefix):

- ``always``: ``prefix + text``, every token of the text summed (the prefix never is).
- ``empty-context``: a text with no context as ``always`` (a text that already begins with the
  prefix is sent as it is, its own first token not read, as lm-eval does); a continuation after
  a non-empty context as ``context + continuation`` alone, as lm-evaluation-harness 0.4.13
  tokenizes it: the server adds its own start token where its tokenizer adds one (Gemma, Llama),
  nothing where it adds none (GPT-2, SmolLM2). A continuation merged into the context's first
  token has then nothing before it to be read from: that prompt is read again after the prefix,
  as the in-process scorer reads it (one more request, sent as it is read: a one-token context).
- ``first-only`` (the original StereoSet): the text alone, every token but the first summed from
  it, and the first token's log-probability from ``prefix + text`` (P(t1 | start token): a causal
  model's reading of t1 after the prefix is its reading after the prefix alone). Two prompts per
  text, so possible only where the server adds no start token of its own: a server that adds one
  reads every text after it, and the run is refused before scoring (:func:`refusal`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

from .echo import EchoedPrompt, Untiled
from ..start import StartToken

Part = Literal["all", "rest", "first"]


@dataclass(frozen=True)
class Ask:
    """One prompt and what to read of it: the tokens ending after character ``start``; ``count``
    (start, stop) characters whose tokens the answer counts (a filler).

    ``part``: ``all`` sums those tokens; ``rest`` sums them but the prompt's first token (read
    from nothing), which it counts and whose log-probability another request reads; ``first`` is
    the log-probability of the first of them alone. ``lead``: where the prompt's first token is
    among those read, the prompt is read again after ``lead`` (``all``: the whole read; ``rest``:
    its first token)."""

    prompt: str
    start: int
    count: tuple[int, int] | None = None
    part: Part = "all"
    lead: str | None = None


#: One text's reading: the requests whose values add up to its log-likelihood (the first
#: counts its tokens).
Reading = tuple[Ask, ...]


def reading(mode: StartToken, prefix: str, text: str, start: int = 0, count: tuple[int, int] | None = None,
            *, context: bool = False) -> Reading:
    """The requests that read ``text`` from character ``start`` under ``mode`` (module docstring);
    ``context``: whether ``text`` begins with a non-empty context (``start`` is where it ends).
    ``prefix`` is empty where the server adds its own start token."""
    if mode == "first-only":
        rest = Ask(text, start, count, "rest", prefix if context else None)
        return (rest,) if context else (rest, Ask(prefix + text, len(prefix), None, "first"))
    if mode == "empty-context" and context:
        return (Ask(text, start, count, "all", prefix or None),)
    if mode == "empty-context" and prefix and text.startswith(prefix):  # lm-eval: the text's own start token
        return (Ask(text, max(start, len(prefix)), count),)
    shifted = None if count is None else (len(prefix) + count[0], len(prefix) + count[1])
    return (Ask(prefix + text, len(prefix) + start, shifted),)


def read(ask: Ask, echo: EchoedPrompt, late: Callable[[str], EchoedPrompt]) -> tuple[float, int]:
    """The value of ``ask`` from its prompt's ``echo`` and the tokens it counts; ``late`` echoes a
    prompt not sent with the job (the ``lead`` reading). Raises :class:`Untiled` on a token that
    should have a log-probability and has none."""
    picked = echo.picked(ask.start)
    if ask.part == "first":
        return _value(echo, picked[:1]), 1
    from_nothing = picked[0] == 0 and echo.logprobs[0] is None
    if ask.part == "all":
        if from_nothing and ask.lead is not None:
            shift = len(ask.lead)
            again = replace(ask, prompt=ask.lead + ask.prompt, start=shift + ask.start, lead=None,
                            count=None if ask.count is None else (shift + ask.count[0], shift + ask.count[1]))
            return read(again, late(again.prompt), late)
        return _value(echo, picked), len(picked)
    first = 0.0
    if from_nothing and ask.lead is not None:  # P(t1 | start token), from the prompt read after it
        after = late(ask.lead + ask.prompt)
        first = _value(after, after.picked(len(ask.lead))[:1])
    summed = picked[1:] if from_nothing else picked
    return (_value(echo, summed) if summed else 0.0) + first, len(picked)


def _value(echo: EchoedPrompt, indices: list[int]) -> float:
    values = [echo.logprobs[i] for i in indices]
    if any(v is None for v in values):
        raise Untiled(f"the first token of {echo.text!r} has no log-probability (nothing precedes it)")
    return math.fsum(v for v in values if v is not None)


def refusal(mode: StartToken, prefix: str, server_adds: bool) -> str | None:
    """Why ``mode`` cannot be read through text prompts on this server, and what to do; None when
    it can. ``server_adds``: the server puts a start token of its own before every prompt."""
    if server_adds and prefix:
        return (f"it puts its own start token before every prompt, so --served-prefix {prefix!r} would read every "
                "text after two: leave --served-prefix out")
    if server_adds and mode == "first-only":
        return ("it puts its own start token before every prompt, so the 'first-only' start-token convention "
                "(every token after the first read without a start token) cannot be read through it: run with "
                "--start-token always (or empty-context), or serve the model with a tokenizer that adds none")
    return None
