"""Generative BBQ: the model writes its answer, a named rule maps it to an option (issue 38).

lm-evaluation-harness 0.4.13's ``bbq_generate``: the prompt is the likelihood reading's own,
``"{context}\\n\\nQ: {question}\\nA:"`` (:func:`..benchmark.prompt`), the model generates greedily
until ``"\\n\\n"`` (the harness's default ``until``, its few-shot delimiter; the end-of-sequence
token ends it too) or ``max_new_tokens`` tokens (the harness's default is 256; ours is smaller,
``--max-new-tokens``), and :mod:`.lm_eval_parse` maps the text to an option. Under ``--chat-template model`` or a
file, that text is the one user message and the answer is generated after the assistant's start, as the
harness does with ``--apply_chat_template`` (:mod:`..benchmark`). From the chosen options on,
everything is the likelihood path's own code (:func:`..evaluation.summarise`): the authors' bias
scores, accuracy, diff-bias, abstention, intervals and the degenerate flag.

An answer the rule cannot map is *unparsed*: counted in the summary (``unparsed``), named in the
terminal, written to items.jsonl with its text and a null answer, and left out of the scores (the
harness instead scores it wrong and, by an accident of its choice list, as an "unknown" answer).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ....probes import Answer, GenerationAnswer, GenerationProbe, Probe
from ...contract import BenchmarkResult
from ..data import Example
from ..evaluation import Outcome, summarise
from .lm_eval_parse import lm_eval_option, named_option, option_text_option
from .protocol import Asking, GeneratedProtocol, record, skip

#: lm-eval's ``until`` for ``bbq_generate`` (its few-shot delimiter; the yaml sets no generation_kwargs).
STOP: tuple[str, ...] = ("\n\n",)
#: Our default new tokens (the harness's is 256).
MAX_NEW_TOKENS = 32


def user_text(example: Example) -> str:
    """What the model is asked: lm-eval's ``bbq_generate`` ``doc_to_text``."""
    return f"{example.context}\n\nQ: {example.question}\nA:"


def render(text: str) -> str:
    """The prompt sent for ``text`` with no chat template: as it is."""
    return text


def probes(items: Sequence[Example], max_new_tokens: int, render: Callable[[str], str] = render) -> list[Probe]:
    """One generation per example with a known biased option, under the example's id; ``render`` makes the
    prompt sent of lm-eval's text (the benchmark's ``--chat-template``: the user turn, the assistant's opened)."""
    return [GenerationProbe(e.id, render(user_text(e)), max_new_tokens, STOP) for e in items if e.target is not None]


def parsed(items: Sequence[Example], answers: Mapping[str, Answer],
           rule: Callable[[Example, str], int | None] = lm_eval_option
           ) -> tuple[list[Outcome], list[dict[str, Any]], list[dict[str, Any]], int]:
    """(outcomes to score, items.jsonl records, skips, unparsed count): a parsed answer is an
    :class:`Outcome` like a likelihood choice; an unparsed one a record only."""
    outcomes, records, skipped, unparsed = [], [], [], 0
    for e in items:
        answer = answers.get(e.id)
        if e.target is None or not isinstance(answer, GenerationAnswer):
            skipped.append(skip(e))
            continue
        choice = rule(e, answer.text)
        o = Outcome(e, choice)
        if choice is None:
            unparsed += 1
        else:
            outcomes.append(o)
        records.append(record(o, answer))
    return outcomes, records, skipped, unparsed


@dataclass(frozen=True)
class LmEvalProtocol(GeneratedProtocol):
    """``bbq_generate``: the likelihood reading's prompt, one generation per item, the harness's rule."""

    def probes(self, bench: Asking, items: Sequence[Example], render: Callable[[str], str]) -> list[Probe]:
        return probes(items, bench.new_tokens, render)

    def parse(self, example: Example, text: str) -> int | None:
        """The option ``text`` names under this rule (:mod:`.lm_eval_parse`)."""
        return lm_eval_option(example, text)

    def score(self, bench: Asking, items: Sequence[Example], answers: Mapping[str, Answer]) -> BenchmarkResult:
        """The parsed answers scored by the likelihood path's own code (:func:`..evaluation.summarise`), and
        how many unparsed answers write an option's text word for word (what ``option-text`` reads)."""
        outcomes, records, skipped, unparsed = parsed(items, answers, self.parse)
        summary = summarise(outcomes, n_resamples=bench.n_resamples, seed=bench.seed, n_skipped=len(skipped),
                            rule=bench.rule, reading=bench.reading, dataset=bench.dataset, options=bench.options)
        naming = _unparsed_naming(items, records)
        summary = replace(summary, unparsed=unparsed, parser=self.name, chat_template=bench.labelled())
        if naming:  # recorded only when some are: a run without any keeps its summary's bytes
            summary = replace(summary, unparsed_naming_option=naming)
        return BenchmarkResult(summary, records, skipped)


def _unparsed_naming(items: Sequence[Example], records: Sequence[Mapping[str, Any]]) -> int:
    """The unparsed answers (``records`` whose rule found no option) that write exactly one option's
    whole text ("David Li." for "David Li")."""
    unparsed = {r["id"]: r["generated"] for r in records if not r["parsed"]}
    return sum(1 for e in items if e.id in unparsed and named_option(e, unparsed[e.id]) is not None)


@dataclass(frozen=True)
class OptionTextProtocol(LmEvalProtocol):
    """``option-text``: lm-eval's prompt and decoding, an option written word for word read first."""

    def parse(self, example: Example, text: str) -> int | None:
        return option_text_option(example, text)


PROTOCOL = LmEvalProtocol("lm-eval-0.4.13", reads=("en", "mbbq-en"), owns=("en", "mbbq-en"),
                          max_new_tokens=MAX_NEW_TOKENS, stop=STOP, asks="the likelihood reading's prompt")
OPTION_TEXT = OptionTextProtocol("option-text", reads=("en", "mbbq-en"), owns=(), max_new_tokens=MAX_NEW_TOKENS,
                                 stop=STOP, asks="the likelihood reading's prompt")
