"""Property tests (Hypothesis) for the sentence splitter, the keyword matcher and t2s."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from biasatlas.mining.lexicon import DEFAULT_PAIRS, Lexicon
from biasatlas.mining.match import KeywordMatcher
from biasatlas.mining.split import CLOSERS, TERMINATORS, split_sentences

KEYWORDS = Lexicon(DEFAULT_PAIRS).keywords
# Text drawn from keyword characters, terminators, closers, whitespace and some others, so
# overlaps (男/男人/男孩), quotes after ends and runs of ends all turn up often.
ALPHABET = sorted(set("".join(KEYWORDS)) | set(TERMINATORS) | set(CLOSERS)
                  | set(" \t\u3000其来了的是a1“，"))
TEXT = st.text(alphabet=ALPHABET, max_size=80)


def _no_space(text: str) -> str:
    return "".join(c for c in text if not c.isspace())


@given(TEXT)
def test_split_loses_no_character(text):
    pieces = split_sentences(text)
    assert _no_space("".join(pieces)) == _no_space(text)
    assert all(p and p == p.strip() for p in pieces)


@given(TEXT)
def test_split_puts_end_punctuation_only_at_sentence_ends(text):
    for piece in split_sentences(text):
        body = piece.rstrip(CLOSERS + " \t\u3000").rstrip(TERMINATORS)
        # Inside a sentence (before its final end run) there is no terminator.
        assert not any(c in TERMINATORS for c in body), piece


@given(st.text(alphabet=ALPHABET, max_size=60))
def test_every_reported_offset_holds_its_keyword_and_none_is_missed(text):
    hits = KeywordMatcher(KEYWORDS).find(text)
    for hit in hits:
        assert text[hit.offset:hit.offset + len(hit.keyword)] == hit.keyword
    # Independent brute force: every keyword at every position.
    brute = {(k, i) for k in KEYWORDS for i in range(len(text)) if text.startswith(k, i)}
    assert {(h.keyword, h.offset) for h in hits} == brute


@settings(max_examples=40, deadline=None)
@given(st.text(alphabet=sorted("兒子們說學習認真他她来了个于乾隆著名干净后面发展"), max_size=20))
def test_t2s_shortcut_equals_plain_opencc(text):
    from opencc import OpenCC

    from biasatlas.mining.sources import Simplifier

    assert Simplifier()(text) == OpenCC("t2s").convert(text)
