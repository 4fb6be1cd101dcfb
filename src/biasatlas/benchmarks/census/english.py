"""English noun-phrase helpers for the census templates: ``a``/``an`` and plurals.

METHODS.md §1: English templates need ``a``/``an`` chosen by the *sound* that follows
("an engineer", "a university professor", "an hour", "an MRI technician"), and plural
occupation forms after plural identifiers ("The women worked as nurses."). The shipped
inflection table stores both explicitly; these functions drafted it and the tests check
every row against them, so a hand edit that breaks agreement is caught.
"""

from __future__ import annotations

import re

# Words spelled with a vowel letter but starting with a consonant sound (/j/ or /w/).
_VOWEL_LETTER_CONSONANT_SOUND = re.compile(
    r"^(uni(?![mn]|den)|use|usu|usa|ute|uti|ura|ure|uro|eu|ewe|one\b|once\b|ouija)")
# Words spelled with a consonant letter but starting with a vowel sound (silent h).
_SILENT_H = re.compile(r"^(hour|honest|honou?r|heir)")
# Letter names that start with a vowel sound, for initialisms read letter by letter.
_VOWEL_SOUND_LETTERS = set("AEFHILMNORSX")


def indefinite_article(phrase: str) -> str:
    """``"a"`` or ``"an"`` for the phrase that follows the article.

    >>> [indefinite_article(p) for p in ("engineer", "university professor", "hour",
    ...                                  "MRI technician", "CNC operator", "home aide")]
    ['an', 'a', 'an', 'an', 'a', 'a']
    """
    word = re.split(r"[\s,/-]+", phrase.strip(), maxsplit=1)[0]
    if not word:
        raise ValueError("an empty phrase has no article")
    if word.isupper():  # initialism or letter ("an MRI", "a U-boat"): letter names
        return "an" if word[0] in _VOWEL_SOUND_LETTERS else "a"
    lower = word.lower()
    if _SILENT_H.match(lower):
        return "an"
    if lower[0] in "aeiou":
        return "a" if _VOWEL_LETTER_CONSONANT_SOUND.match(lower) else "an"
    return "a"


_IRREGULAR_HEADS = {"man": "men", "woman": "women", "person": "persons", "child": "children",
                    "foot": "feet", "chief": "chiefs"}


def pluralise_head(phrase: str) -> str:
    """Plural of a singular occupation phrase: the head noun takes the plural.

    The head is the last word, or the word before ``of``/``for`` when the phrase has a
    post-modifier ("supervisor of police" → "supervisors of police").
    """
    words = phrase.split(" ")
    head = len(words) - 1
    for i, word in enumerate(words):
        if word in {"of", "for"} and i > 0:
            head = i - 1
            break
    words[head] = _plural_word(words[head])
    return " ".join(words)


def _plural_word(word: str) -> str:
    stem, _, last = word.rpartition("-")
    prefix = f"{stem}-" if stem else ""
    if last in _IRREGULAR_HEADS:
        return prefix + _IRREGULAR_HEADS[last]
    if last.endswith("person"):
        return prefix + last + "s"
    if re.search(r"[^aeiou]y$", last):
        return prefix + last[:-1] + "ies"
    if re.search(r"(s|x|z|ch|sh)$", last):
        return prefix + last + "es"
    return prefix + last + "s"
