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
from typing import Any

from ....probes import Answer, GenerationAnswer, GenerationProbe, Probe
from ..data import Example
from ..evaluation import Outcome
from .lm_eval_parse import PARSERS

#: lm-eval's ``until`` for ``bbq_generate`` (its few-shot delimiter; the yaml sets no generation_kwargs).
STOP: tuple[str, ...] = ("\n\n",)


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


def parsed(items: Sequence[Example], answers: Mapping[str, Answer], parser: str
           ) -> tuple[list[Outcome], list[dict[str, Any]], list[dict[str, Any]], int]:
    """(outcomes to score, items.jsonl records, skips, unparsed count): a parsed answer is an
    :class:`Outcome` like a likelihood choice; an unparsed one a record only."""
    rule = PARSERS[parser]
    outcomes, records, skipped, unparsed = [], [], [], 0
    for e in items:
        answer = answers.get(e.id)
        if e.target is None or not isinstance(answer, GenerationAnswer):
            reason = "no biased option known for this item" if e.target is None else "no answer from the model"
            skipped.append({"id": e.id, "category": e.category, "reason": reason})
            continue
        choice = rule(e, answer.text)
        o = Outcome(e, choice)
        if choice is None:
            unparsed += 1
        else:
            outcomes.append(o)
        records.append(record(o, answer))
    return outcomes, records, skipped, unparsed


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
