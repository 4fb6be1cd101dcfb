"""Keyword matching with an Aho–Corasick automaton (``pyahocorasick``).

One pass over a sentence finds every occurrence of every keyword string, overlapping
ones included (男 inside 男人 is reported too): deciding which hits are whole words is
the segmentation stage's job, because only a tokeniser knows that 他 in 其他 is not a
pronoun.
"""

from __future__ import annotations

from collections.abc import Iterable

import ahocorasick

from biasatlas.mining.records import Hit


class KeywordMatcher:
    """Find all keyword strings in a text; offsets are code-point offsets into that text."""

    def __init__(self, keywords: Iterable[str]) -> None:
        self._automaton = ahocorasick.Automaton()
        for keyword in keywords:
            if not keyword:
                raise ValueError("empty keyword")
            self._automaton.add_word(keyword, keyword)
        if len(self._automaton) == 0:
            raise ValueError("no keywords to match")
        self._automaton.make_automaton()

    def find(self, text: str) -> tuple[Hit, ...]:
        """All hits, sorted by offset then longest first (the automaton reports by end)."""
        hits = [Hit(kw, end - len(kw) + 1) for end, kw in self._automaton.iter(text)]
        hits.sort(key=lambda h: (h.offset, -len(h.keyword)))
        return tuple(hits)

    def any(self, text: str) -> bool:
        """Whether any keyword occurs: lets a document without one skip the splitter."""
        for _ in self._automaton.iter(text):
            return True
        return False
