"""Probes: the typed questions a benchmark asks a scorer, and the typed answers.

Benchmarks build probes and never touch a model; scorers answer probes and never know
which benchmark asked (DESIGN.md, "a narrow model interface", after the three request
kinds of lm-evaluation-harness). Every probe carries a stable ``id`` chosen by the
benchmark, so answers can be cached, resumed and joined back to items.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union


@dataclass(frozen=True)
class PairProbe:
    """Score two minimal-pair sentences against each other.

    The scorer's pair variant decides what is summed (METHODS.md §2): ``nangia`` is the
    pseudo-log-likelihood of the tokens the two sentences share.
    """

    id: str
    a: str
    b: str


@dataclass(frozen=True)
class SlotProbe:
    """Ask for log P(filler | left + [slot] + right) for each filler.

    A masked LM masks the slot (one mask per filler token, see the scorer's
    multi-token policy); a causal LM scores each filled-in sentence; a seq2seq model
    scores each filled-in sentence given the masked input. ``left`` and ``right`` are
    the exact surrounding text, including spaces: ``left="The "``, ``right=" worked
    as a nurse."``. Probes that share ``(left, right)`` and filler token counts share one
    masked context, which the scorer evaluates once.
    """

    id: str
    left: str
    right: str
    fillers: tuple[str, ...]


@dataclass(frozen=True)
class ContinuationProbe:
    """Ask for log P(continuation | context) for each context (a conditional likelihood).

    The request lm-evaluation-harness calls ``loglikelihood(context, continuation)``,
    with several contexts sharing one continuation: the census conditional reading asks
    log P(" works as a nurse." … | "The woman") for every identifier at once. Only the
    continuation's tokens are summed, each given everything before it. Whitespace that
    ends a context belongs to the continuation (``"Han jobber som "`` + ``"lege."`` is read
    as ``"Han jobber som"`` + ``" lege."``), as word-initial tokens carry their space.
    Answered with a :class:`SlotAnswer`: one log-probability per context, and the
    continuation's token count after each. Masked LMs do not answer it.
    """

    id: str
    contexts: tuple[str, ...]
    continuation: str


@dataclass(frozen=True)
class SentenceProbe:
    """Ask for the log-likelihood of a whole sentence."""

    id: str
    text: str


Probe = Union[PairProbe, SlotProbe, ContinuationProbe, SentenceProbe]


@dataclass(frozen=True)
class PairAnswer:
    """Scores of the two sentences of a :class:`PairProbe`, in natural-log units."""

    id: str
    score_a: float
    score_b: float
    n_scored_a: int = 0
    n_scored_b: int = 0


@dataclass(frozen=True)
class SlotAnswer:
    """One log-probability per filler, in the order of ``SlotProbe.fillers``.

    Also the answer to a :class:`ContinuationProbe`: one log-probability per context,
    and ``n_tokens`` the continuation's token count after each context.

    ``n_tokens`` gives each filler's token count in context, so benchmarks can report
    multi-token targets.
    """

    id: str
    logprobs: tuple[float, ...]
    n_tokens: tuple[int, ...]


@dataclass(frozen=True)
class SentenceAnswer:
    id: str
    logprob: float
    n_tokens: int


Answer = Union[PairAnswer, SlotAnswer, SentenceAnswer]
