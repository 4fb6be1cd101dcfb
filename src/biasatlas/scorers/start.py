"""What a causal LM reads a text after: the start-token conventions, named (issue 34, item 8).

A causal LM cannot predict a text's first token from nothing; each harness decides what comes
before it, and the choice moves every log-likelihood (up to 2.45 nats per BBQ option on
SmolLM2-135M). The conventions, as ``start_token`` names them (a model option, recorded in the
run's config with the scorer; each benchmark defaults to its reference's, see its card):

- ``always``: the start token (the tokenizer's BOS, else its EOS) before every text, context or
  none: every token is read, each after the start token and what precedes it.
- ``empty-context``: lm-evaluation-harness 0.4.13 (``api/model.py``, ``loglikelihood``): the start
  token only before an *empty* context (a whole sentence), and not when the text already begins
  with it; a non-empty context begins as the tokenizer begins a text by itself (Gemma's and
  Llama's add their BOS; GPT-2's and SmolLM2's add nothing, so the context's first token is read
  from nothing before it and is itself never scored). lm-eval's ``add_bos_token=True`` is
  ``always`` on these tokenizers.
- ``first-only``: the original StereoSet GPT-2 reading (``code/eval_generative_models.py``,
  ``evaluate_intrasentence``; bias-bench's runner agrees): the first token's probability is
  P(t1 | start token), from one pass over the start token alone; every later token t_j is read
  from a second pass over the text *without* the start token, P(t_j | t_1 … t_{j-1}). A
  continuation after a context is read like those later tokens.

No torch here: :mod:`biasatlas.request` names the choices.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ..errors import UnscorableProbe, did_you_mean
from .batching import Request, Row

StartToken = Literal["always", "empty-context", "first-only"]
START_TOKENS: tuple[StartToken, ...] = ("always", "empty-context", "first-only")
#: What a causal scorer reads after when no benchmark names a convention: every release before
#: the choice was named read so.
DEFAULT_START: StartToken = "always"


@dataclass(frozen=True)
class Reading:
    """One text's read: its request (a row and the target token at each read position), the
    tokens it counts, and ``first``, the token whose log-probability after the start token alone
    is added to the request's sum (``first-only``), else None."""

    request: Request
    n_tokens: int
    first: int | None = None


@dataclass(frozen=True)
class Start:
    """A convention applied: ``prefix`` is the start token, ``leading`` the tokens the tokenizer
    puts before a text by itself (``tokenizer(text)`` against ``add_special_tokens=False``)."""

    mode: StartToken
    prefix: int
    leading: tuple[int, ...]
    limit: int | None = None  # the model's positions (max_position_embeddings), if it has a table

    def read(self, ids: Sequence[int], scored: Sequence[int], *, context: bool) -> Reading:
        """The reading of tokens ``scored`` (indices into ``ids``, increasing) of the text
        ``ids``; ``context``: whether ``ids`` begins with a non-empty context.

        Token ``ids[i]`` sits at row index ``len(lead) + i`` and is read at the position before.
        Without a lead, ``ids[0]`` has no position to be read at: ``first-only`` reads it after
        the start token alone (:attr:`Reading.first`); ``empty-context`` leaves it unscored, as
        lm-eval does for a text that begins with the start token.
        """
        lead = self._lead(ids, scored, context)
        first = None
        if not lead and scored and scored[0] == 0:
            first = ids[0] if self.mode == "first-only" else None
            scored = scored[1:]
        if self.limit and len(lead) + len(ids) > self.limit:
            raise UnscorableProbe(f"{len(lead) + len(ids)} tokens exceed the model's {self.limit}")
        positions = tuple(len(lead) + i - 1 for i in scored)
        # A row ends at its last read position: the token after it is a target, never an input, so the
        # rows of one context's one-token continuations (DiscrimEval's yes/Yes/no/No) are one row, run once.
        tokens = (*lead, *ids)
        row = Row(tokens[: positions[-1] + 1] if positions else tokens, positions)
        return Reading((row, tuple(ids[i] for i in scored)), len(scored) + (first is not None), first)

    def _lead(self, ids: Sequence[int], scored: Sequence[int], context: bool) -> tuple[int, ...]:
        if self.mode == "always":
            return (self.prefix,)
        if self.mode == "first-only":
            return ()
        if not context:  # lm-eval: the start token, unless the text already begins with it
            return () if ids and ids[0] == self.prefix else (self.prefix,)
        # The tokenizer's own start; a continuation that merged into the context's first token
        # (nothing before it to read it from) gets the start token instead.
        return self.leading if self.leading or not scored or scored[0] > 0 else (self.prefix,)


def leading_tokens(tokenizer: object, sample: str = "a") -> tuple[int, ...]:
    """The tokens ``tokenizer`` puts before a text when asked for its special tokens: what
    lm-eval's ``tok_encode`` starts a non-empty context with (BOS for Gemma and Llama, none for
    GPT-2 and SmolLM2)."""
    with_specials = list(tokenizer(sample)["input_ids"])  # type: ignore[operator]
    plain = list(tokenizer(sample, add_special_tokens=False)["input_ids"])  # type: ignore[operator]
    for n in range(len(with_specials) - len(plain) + 1):
        if with_specials[n:n + len(plain)] == plain:
            return tuple(with_specials[:n])
    return ()


def check_start_token(value: object) -> StartToken:
    """``value`` if it names a convention, else a "did you mean" error listing them."""
    if value not in START_TOKENS:
        raise did_you_mean("start token convention", str(value), START_TOKENS)
    return value  # type: ignore[return-value]
