"""Sentence splitting on Chinese end punctuation (the first step of SlguSet's mining).

A sentence ends at a run of 。！？；… (or their ASCII forms !?;), and any closing
quotes or brackets right after that run stay with it: ``他说：“好。”`` is one sentence,
not ``他说：“好。`` plus a stray ``”``. Nothing is dropped except surrounding
whitespace, so joining the pieces gives back the input modulo whitespace.
"""

from __future__ import annotations

import re

TERMINATORS = "。！？；!?;…"
CLOSERS = "”’」』》〉）)】\"'"
_T = re.escape(TERMINATORS)
_C = re.escape(CLOSERS)
# Either a stretch of non-terminators with its optional end, or an end run standing alone
# (text that starts with "……"). Every character falls in exactly one match.
_SENTENCE = re.compile(f"[^{_T}]+(?:[{_T}]+[{_C}]*)?|[{_T}]+[{_C}]*")


def split_sentences(text: str) -> list[str]:
    """Split ``text`` into sentences, stripped of surrounding whitespace, empty ones dropped."""
    pieces = (m.group().strip() for m in _SENTENCE.finditer(text))
    return [p for p in pieces if p]
