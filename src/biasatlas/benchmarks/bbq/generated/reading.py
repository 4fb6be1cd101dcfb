"""The generated reading (issue 38): what is asked, what is recorded and how the answers are scored, kept
apart from the likelihood reading of :mod:`..benchmark`, each step handed to the protocol ``--parser``
names (:mod:`.table`: lm-eval's ``bbq_generate``, KoBBQ's and MBBQ's own).

``auto`` (the default) takes the dataset's own rule (:func:`.table.own`); the rule used is what config.json
records.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ....errors import UsageError
from ....probes import Answer, Probe
from ...chat import NONE
from ...contract import BenchmarkResult
from ...options import UNRECORDED
from ..data import Example
from .protocol import GeneratedProtocol
from .table import PROTOCOLS, chosen, needs_generated_answers


class GeneratedReading:
    """The BBQ benchmark's generated reading (a mixin of :class:`..benchmark.BBQ`, whose options it reads)."""

    dataset: str
    answers: str
    parser: str
    rule: str
    options: str
    max_new_tokens: int | None
    kobbq_prompts: str
    mbbq_prompts: str
    n_resamples: int
    seed: int
    prompt: Callable[..., str]
    messaged: Callable[[list[Probe]], list[Probe]]
    chat_label: Callable[[], str]

    @property
    def reading(self) -> str:
        """How an option was read (:attr:`..benchmark.BBQ.reading` says)."""
        raise NotImplementedError

    @property
    def protocol(self) -> GeneratedProtocol:
        """The protocol in use: ``--parser``'s, with ``auto`` resolved for the dataset."""
        return chosen(self.parser, self.dataset)

    @property
    def parse_rule(self) -> str:
        """The rule in use, by name (config.json's ``parser``)."""
        return self.protocol.name

    def check_generated(self) -> None:
        """A rule reads only its datasets, and each rule its own prompt choice; the likelihood options stay at
        defaults."""
        if self.answers != "generated":
            if needs_generated_answers(self.parser):
                raise UsageError(f"--parser {self.parser} maps generated answers: add --answers generated")
            return
        protocol = self.protocol
        if self.dataset not in protocol.reads:
            raise UsageError(f"--answers generated with --parser {protocol.name} reads {', '.join(protocol.reads)}, "
                             f"not {self.dataset} (--parser auto takes each dataset's own rule)")
        if self.rule != "sum" or self.options != "3":
            raise UsageError("--answers generated reads what the model writes: leave --rule and --options at their "
                             "defaults (sum, 3)")
        for each in PROTOCOLS.values():
            each.check(self)

    @property
    def new_tokens(self) -> int:
        """``--max-new-tokens`` as set, else the rule's: lm-eval's 32 (ours, below its 256), KoBBQ's 30, MBBQ's 100."""
        return self.protocol.max_new_tokens if self.max_new_tokens is None else self.max_new_tokens

    def generation_provenance(self) -> dict[str, Any]:
        """The generated reading's settings and stop rule; none of them in a likelihood run's config."""
        unasked = {"kobbq_prompts": UNRECORDED, "mbbq_prompts": UNRECORDED}
        if self.answers == "likelihood":
            return {"answers": UNRECORDED, "parser": UNRECORDED, "max_new_tokens": UNRECORDED, **unasked}
        protocol = self.protocol
        return {"answers": self.answers, "parser": protocol.name, "max_new_tokens": self.new_tokens, **unasked,
                **protocol.provenance(self)}

    def generated_user(self, first: Example) -> str | None:
        """The user turn config.json shows for the chat template, where the rule asks its own prompts."""
        return self.protocol.chat_user(self, first) if self.answers == "generated" else None

    def generated_probes(self, items: Sequence[Example]) -> list[Probe]:
        """The rule's generation probes, each prompt rendered for the scorer (its chat template or none)."""
        def render(text: str) -> str:
            return self.prompt(text, "", generated=True)
        return self.messaged(self.protocol.probes(self, items, render))

    def score_generated(self, items: Sequence[Example], answers: Mapping[str, Answer]) -> BenchmarkResult:
        """The answers parsed by the rule and scored by the likelihood path's own code (:mod:`..evaluation`)."""
        return self.protocol.score(self, items, answers)

    def labelled(self) -> str | None:
        """The chat template's label for the summary (:meth:`...chat.ChatOptions.chat_label`); None (not
        written) where there is nothing to say: plain text to a scorer that knows no template (fake, masked)."""
        label = self.chat_label()
        return None if label == NONE else label
