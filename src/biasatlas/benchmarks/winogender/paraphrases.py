"""A Winogender paraphrase by a declared rule: the optional "that" before the pronoun deleted (issue 27).

Winogender's sentences are hand-written, one per schema (Rudinger et al. 2018), so there is no
template to reword; a paraphrase has to be a rule that rewrites many sentences alike and keeps
their meaning. English lets the word "that" go where it introduces a complement clause after a
verb of saying ("The technician told the customer that she could pay with cash." → "… told the
customer she could pay with cash.") or an object relative clause ("a petition that she had
organized" → "a petition she had organized"), and those are the only places the authors' files
put "that" straight before a subject pronoun but two: "so that she could", where "so she could"
may read as a result instead of a purpose, which the rule leaves as it is. The rule touches 29 of
the 120 templates (58 of the 240 contexts); every other sentence is scored as it is, so its
items cannot flip and the perturbed run asks nothing new of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from types import MappingProxyType

from ..sensitivity import Perturbation
from .data import Context, Slotted

THAT = "that "
KEPT_AFTER = " so "  # "so that" stays: without "that" it may read as a result


def _drop_that(sentence: Slotted) -> Slotted:
    """``sentence`` without the "that" straight before its pronoun (a nominative one, by the caller)."""
    left = sentence.left
    if left.endswith(" " + THAT) and not left.endswith(KEPT_AFTER + THAT):
        return replace(sentence, left=left[: -len(THAT)])
    return sentence


def without_that(contexts: Sequence[Context]) -> list[Context]:
    """Every context with the rule applied to its three sentences (subject pronouns only: "that"
    before "her" or "him" is not the complementizer the rule is about)."""
    out = []
    for c in contexts:
        if c.slot != "nom":
            out.append(c)
            continue
        sentences = {g: _drop_that(s) for g, s in c.sentences.items()}
        out.append(c if sentences == dict(c.sentences) else replace(c, sentences=MappingProxyType(sentences)))
    return out


PARAPHRASES: tuple[Perturbation, ...] = (
    Perturbation("paraphrase-no-that", "the optional 'that' before a subject pronoun deleted ('told the customer "
                 "that she' → 'told the customer she'; 29 of 120 templates)", items=without_that),
)
