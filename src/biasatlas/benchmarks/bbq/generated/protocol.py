"""What a generated-answer protocol is: one frozen record per rule (:mod:`.table` lists them all), with what
the reading (:mod:`.reading`) asks of it; and the items.jsonl row and skip every protocol writes alike.

A protocol says what it reads (its datasets), which datasets ``--parser auto`` gives it, its decoding (new
tokens, stop strings), which prompts it asks (rules asking the same prompts are each other's perturbations
in a sensitivity run), and how it builds its probes, checks its own option, records its settings and scores
its answers. The reading never names a protocol: it looks the one in use up in the table and calls it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ....probes import Answer, GenerationAnswer, Probe
from ....scorers.generation import STOP_RULE
from ...contract import BenchmarkResult
from ..data import Example
from ..evaluation import Outcome


class Asking(Protocol):
    """The benchmark's side a protocol reads (:class:`..benchmark.BBQ`): its options and resolved settings."""

    @property
    def dataset(self) -> str: ...
    @property
    def rule(self) -> str: ...
    @property
    def options(self) -> str: ...
    @property
    def kobbq_prompts(self) -> str: ...
    @property
    def mbbq_prompts(self) -> str: ...
    @property
    def n_resamples(self) -> int: ...
    @property
    def seed(self) -> int: ...
    @property
    def reading(self) -> str: ...
    @property
    def new_tokens(self) -> int: ...
    def labelled(self) -> str | None: ...


@dataclass(frozen=True)
class GeneratedProtocol:
    """One rule of ``--parser``: ``name`` is its value (recorded as config.json's and summary.json's
    ``parser``), ``reads`` the datasets it reads, ``owns`` those whose ``auto`` is this rule, ``asks`` the
    prompts it asks, ``headline_reading`` (when set) its headlines are the diff-bias columns read so."""

    name: str
    reads: tuple[str, ...]
    owns: tuple[str, ...]
    max_new_tokens: int
    stop: tuple[str, ...]
    asks: str
    headline_reading: str | None = None

    def check(self, bench: Asking) -> None:
        """This rule's own option (its prompt choice), checked on every generated run whichever rule is used."""

    def provenance(self, bench: Asking) -> dict[str, Any]:
        """What config.json records of this rule after the settings every rule records."""
        return {"stop": list(self.stop), "generation": STOP_RULE}

    def chat_user(self, bench: Asking, example: Example) -> str | None:
        """The user turn config.json shows for the chat template, or None: the likelihood reading's prompt."""
        return None

    def probes(self, bench: Asking, items: Sequence[Example], render: Callable[[str], str]) -> list[Probe]:
        """The generation probes, each prompt made the text sent by ``render`` (``--chat-template``)."""
        raise NotImplementedError

    def score(self, bench: Asking, items: Sequence[Example], answers: Mapping[str, Answer]) -> BenchmarkResult:
        """The answers read by this rule and scored."""
        raise NotImplementedError


def skip(e: Example, **where: Any) -> dict[str, Any]:
    """One skipped.jsonl row: no biased option known, or no generated answer (``where``: the prompt asked)."""
    reason = "no biased option known for this item" if e.target is None else "no answer from the model"
    return {"id": e.id, "category": e.category, **where, "reason": reason}


def record(o: Outcome, answer: GenerationAnswer) -> dict[str, Any]:
    """One items.jsonl row: the likelihood path's fields (no option values), the generated text,
    why generation ended, and whether the rule parsed it (``answer`` null when not)."""
    e = o.example
    return {"id": e.id, "category": e.category, "group": e.group, "template": e.template,
            "context_condition": "ambig" if e.ambiguous else "disambig", "polarity": e.polarity,
            "context": e.context, "question": e.question, "control": e.control, "options": list(e.options),
            "label": e.label, "unknown": e.unknown, "target": e.target, "weight": e.weight,
            "generated": answer.text, "finish": answer.finish, "n_generated_tokens": answer.n_tokens,
            "parsed": o.choice is not None, "choice": o.choice, "answer": o.answer,
            "correct": o.choice == e.label if o.choice is not None else None}
