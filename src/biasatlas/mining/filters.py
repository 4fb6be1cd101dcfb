"""Text rules of the mining pipeline (SlguSet's "rule filters", Zhao et al. 2021 §3):
length bounds, URLs and noise, biological-sex cues, and the normalised text key used
to drop duplicates. Each rule returns the reason it rejects a sentence, or None.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

import ahocorasick

_URL = re.compile(r"https?://|www\.|[A-Za-z0-9-]+\.(?:com|cn|net|org|html?)\b|\S+@\S+\.\w+")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_REPEAT = re.compile(r"(.)\1{4,}")  # five identical characters: 哈哈哈哈哈, ……… or =====
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\ufffd]")


@dataclass(frozen=True, slots=True)
class RuleParams:
    """Bounds in characters; ``min_cjk_share`` is the share of CJK ideographs below which a
    sentence is taken for a table, code or a foreign-language line."""

    min_len: int = 10
    max_len: int = 128
    min_cjk_share: float = 0.6

    def __post_init__(self) -> None:
        if not 1 <= self.min_len <= self.max_len:
            raise ValueError(f"need 1 <= min_len <= max_len, got {self.min_len}, {self.max_len}")
        if not 0.0 <= self.min_cjk_share <= 1.0:
            raise ValueError(f"min_cjk_share must lie in [0, 1], got {self.min_cjk_share}")


class CueFinder:
    """Substring search for a cue lexicon (one automaton pass, not one ``in`` per word)."""

    def __init__(self, cues: Iterable[str]) -> None:
        self._automaton = ahocorasick.Automaton()
        for cue in cues:
            self._automaton.add_word(cue, cue)
        self._empty = len(self._automaton) == 0
        if not self._empty:
            self._automaton.make_automaton()

    def first(self, text: str) -> str | None:
        if self._empty:
            return None
        for _, cue in self._automaton.iter(text):
            return cue
        return None


def length_rule(text: str, params: RuleParams) -> str | None:
    if len(text) < params.min_len:
        return "too_short"
    if len(text) > params.max_len:
        return "too_long"
    return None


def noise_rule(text: str, params: RuleParams) -> str | None:
    """URLs and e-mail addresses, control or replacement characters, long repeats, and
    sentences that are mostly not Chinese."""
    if _URL.search(text):
        return "url"
    if _CONTROL.search(text) or _REPEAT.search(text):
        return "noise"
    if len(_CJK.findall(text)) < params.min_cjk_share * len(text):
        return "not_chinese"
    return None


def bio_rule(text: str, cues: CueFinder) -> str | None:
    """A biological-sex cue (pregnancy, anatomy) fixes the referent's sex: not neutral."""
    return "bio_cue" if cues.first(text) is not None else None


def apply_rules(text: str, params: RuleParams, cues: CueFinder) -> str | None:
    """The first rule that rejects ``text``, cheapest first; None when it passes them all."""
    return length_rule(text, params) or noise_rule(text, params) or bio_rule(text, cues)


def normalise(text: str) -> str:
    """The duplicate key's text: NFKC (full-width → half-width), lower case, and no
    whitespace or punctuation, so 他来了。 and 他来了！ count as one sentence."""
    folded = unicodedata.normalize("NFKC", text).lower()
    return "".join(c for c in folded
                   if not c.isspace() and not unicodedata.category(c).startswith("P"))


def dedupe_key(text: str) -> str:
    """A 128-bit BLAKE2 digest of the normalised text: also the candidate's stable id."""
    return hashlib.blake2b(normalise(text).encode("utf-8"), digest_size=16).hexdigest()
