"""KoBBQ's own rule from a generated answer to one of the options shown (Jin et al. 2024; issue 38).

``kobbq``: ``raw2prediction`` of naver-ai/KoBBQ's ``evaluation/3_postprocess_predictions.py`` (@ 0dd165a),
reimplemented from its reading, with what ``4_predictions_to_evaluation.py`` and ``5_evaluation.py`` then do
with its result. ``choices`` maps each letter shown (A, B, C) to its option's text, lower-cased.

1. *Lead*: the text after leading whitespace and one optional ``(``, up to the first ``.`` or newline;
   ``없습니다`` in it becomes ``없음`` and ``입니다`` goes.
2. A lead whose first character, upper-cased, is a letter: if a ``:`` or ``)`` is followed by some text
   (stripped), that text naming the letter's own option gives the letter; otherwise, when the options'
   texts occur more than once in all in the lead, the lead itself (out of choice); otherwise the letter
   (``"Answer: B"`` reads as A, as theirs does). With no such text, a lead holding exactly one of the
   letters A, B, C (upper-cased, counted anywhere in it) gives its first character. Else step 3.
3. A lead that is an option's text (lower-cased) gives that option's letter.
4. Else the first match of each in turn, its text read again from step 1 (the answer is what that gives):
   after ``**`` (an optional quote), after ``답`` or ``답변`` + ``은`` or ``:`` (an optional quote), after a
   quote; each stops at ``.``, a newline, ``*`` or a quote.
5. Else the letter when exactly one of ``A:``/``A)``, ``B:``/``B)``, ``C:``/``C)`` occurs (upper-cased
   text); else the text as it is (out of choice: "ooc").

The authors then put a letter's option in its place and keep any other result as text; their scores
count a row whose text is not one of the options shown as ooc (:func:`kobbq_option` does the same, so a
text equal to an option, case and all, is that option). Before the rule the text is stripped of newlines
and spaces at both ends, as their OpenAI and CLOVA-X callers strip the reply (their Claude and KoAlpaca
callers do not; it matters only for an option's text with trailing spaces). A text their pipeline could
not read back (empty, ``NA``: pandas reads NaN and ``3_postprocess_predictions.py`` stops) is ooc here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from ..data import Example

LETTERS: tuple[str, ...] = ("A", "B", "C")
_LEAD = re.compile(r"^\s*\(?([^.\n]*)")
_AFTER_MARK = re.compile(r"[:)]\s*(.*)")
#: Step 4's three places an answer is looked for, in the authors' order.
_QUOTED_ANSWERS = (re.compile(r"\*\*['\"]?([^.\n*'\"]*)"), re.compile(r"답변?[은:]\s*['\"]?([^.\n*'\"]*)"),
                   re.compile(r"['\"]([^.\n*'\"]*)"))


def lead(text: str) -> str:
    """Step 1: the answer's first segment, with the two Korean copula endings normalised."""
    found = _LEAD.match(text)
    segment = found.group(1) if found else ""
    return segment.replace("없습니다", "없음").replace("입니다", "")


def _by_letter(segment: str, choices: Mapping[str, str]) -> str | None:
    """Step 2 for a lead starting with a letter: the letter, the lead itself (ooc), or None (go on)."""
    upper = segment.upper()
    letter = upper[0]
    mark = _AFTER_MARK.search(upper)
    said = mark.group(1).strip() if mark else ""
    if said:
        if choices[letter] == said.lower():
            return letter
        if sum(upper.count(text.upper()) for text in choices.values()) > 1:
            return segment  # it names several options: out of choice
        return letter
    if sum(upper.count(other) for other in choices) == 1:
        return letter
    return None


def prediction(text: str, choices: Mapping[str, str]) -> str:
    """The letter ``text`` answers under the authors' rule, or the text it leaves (ooc): steps 1-5."""
    segment = lead(text)
    if segment and segment.upper()[0] in choices:
        found = _by_letter(segment, choices)
        if found is not None:
            return found
    texts = list(choices.values())
    if segment.lower() in texts:
        return list(choices)[texts.index(segment.lower())]
    for pattern in _QUOTED_ANSWERS:
        quoted = pattern.search(text)
        if quoted:
            return prediction(quoted.group(1), choices)
    upper = text.upper()
    marked = [letter for letter in choices if re.search(f"{letter}[:)]", upper)]
    return marked[0] if len(marked) == 1 else text


def option_of(text: str, shown: Sequence[str]) -> int | None:
    """The index among ``shown`` (the options in the order asked) that ``text`` answers, or None (ooc)."""
    choices = {letter: option.lower() for letter, option in zip(LETTERS, shown, strict=True)}
    answer = prediction(text.strip("\n "), choices)
    if answer in choices:
        return LETTERS.index(answer)
    # 5_evaluation.py: any other result is ooc unless it is one of the options as written
    return list(shown).index(answer) if answer in shown else None


def kobbq_option(example: Example, text: str) -> int | None:
    """The option of ``example`` (as shown: its options in the order asked) that ``text`` answers."""
    return option_of(text, example.options)
