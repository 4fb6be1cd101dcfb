"""Data lint: per-item findings on the data a benchmark scores, before any model reads it.

Blodgett et al. (2021) list the ways pair and multiple-choice bias data go wrong: pairs that
differ in more than the group, two identical sentences, broken text. These rules find the ones
a program can, item by item, so a user sees which items a score rests on (``biasatlas lint``).
A finding is not an error: the data is scored as stored, and the lint says what is in it.

Rules (each a name a finding carries):

- ``identical``: the two sentences of a pair (or two options of an item) are the same text.
- ``edit-spans``: the pair's sentences differ in more than one place (a minimal pair differs
  in one); ``edit-tokens``: more than ``max_tokens`` tokens change. Tokens are the lower-cased
  words and punctuation marks (``\\w+|[^\\w\\s]``), aligned by :class:`difflib.SequenceMatcher`;
  a changed span counts the longer of its two sides. On CrowS-Pairs this reproduces the
  counts measured for the issue: 239 and 73 of the 1,508 original English pairs, 204 and 51
  of the revised set, 3 identical pairs in French+210.
- ``group-absent``: none of the item's group terms (``LintItem.group``) is where it should be.
  For a pair without ``group_in``, that is the edit: no changed token (of either sentence)
  is one of the terms, read lower-cased and also without a plural or comparative ending
  (``-s``, ``-es``, ``-er``, ``-est``), and none matches the item's ``group_pattern`` (a
  regular expression searched at the token's start, as written: ``[A-Z]`` takes a capitalised
  word, a name or a proper noun, as naming the group, "Jamal" for "Jake"). With ``group_in``
  (StereoSet: the target term and its context), a term must occur in that text as a
  lower-cased substring ("Ethiopia" in "Ethiopian men are BLANK"). The terms are the
  benchmark's: a word list is a fact list with gaps, so a finding is a pair to read, and an
  edit that changes the group by a word the list lacks is flagged too (docs/lint.md gives
  the rule's precision measured by hand).
- ``brackets``: a text whose ( ) [ ] { } do not balance, or with an odd number of ``"``.
- ``encoding``: U+FFFD, a control character, or UTF-8 read as Latin-1 (``Ã©``, ``â€™``).
- ``duplicate``: an item whose texts are those of an earlier item (compared after collapsing
  whitespace); the finding names the earlier one.
- ``option-absent`` (multiple choice with a context, BBQ): an answer option naming a group whose
  words are not in the context. A word is a lower-cased ``\\w+`` run of 4 or more characters, or
  of 2 or more outside ASCII (Korean, Chinese: a Chinese option is one run); it is looked for as
  a substring, so "manager" finds "managers", and a plural is found by its singular
  ("attendants" for "attendant"). Generic person words and function words (:data:`GENERIC_WORDS`:
  "person", "child", "family", "with", "whose"; their Spanish, Catalan, Dutch and Turkish counterparts
  for EsBBQ, CaBBQ and MBBQ) never count as absent, nor a gendered person word
  ("woman") where the context names someone of that gender; where it names no gender the option
  adds one ("the gay woman" for "the other who's gay"), which is flagged: a finding to look at.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

#: Every rule, in the order a summary lists them.
RULES: tuple[str, ...] = ("identical", "edit-spans", "edit-tokens", "group-absent", "brackets", "encoding",
                          "duplicate", "option-absent")
#: More changed tokens than this is an ``edit-tokens`` finding (the issue's "more than three").
DEFAULT_MAX_TOKENS = 3

_TOKEN = re.compile(r"\w+|[^\w\s]")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# UTF-8 bytes of common accented letters and punctuation, decoded as Latin-1 / cp1252
_MOJIBAKE = re.compile(r"Ã[\u0080-\u00bf]|Â[\u00a0-\u00bf]|â€")
# The same bytes decoded as Mac Roman: a UTF-8 lead byte 0xC3 reads as "√", its continuation byte as one
# of the characters Mac Roman puts at 0x80-0xBF (the Dutch CrowS-Pairs file's "√©√©n" for "één")
_MAC_ROMAN_MOJIBAKE = re.compile("√[" + re.escape(bytes(range(0x80, 0xC0)).decode("mac_roman")) + "]")
_PAIRS = (("(", ")"), ("[", "]"), ("{", "}"))


@dataclass(frozen=True)
class LintItem:
    """One item as the lint reads it: its id and the line of its file (``None`` if the data has
    no lines), its texts by field, and its kind: a ``pair`` (two sentences meant to differ in
    the group only: ``texts`` holds exactly two) or a ``choice`` (options of one item, and any
    context; ``identical`` compares only the fields of ``in_context`` then, when it names any).
    ``group``, ``group_pattern`` and ``group_in`` are what the ``group-absent`` rule looks for
    (no terms: the rule does not apply to the item)."""

    id: str
    line: int | None
    texts: Mapping[str, str]
    kind: Literal["pair", "choice"] = "pair"
    #: Fields of ``texts`` whose words the ``context`` field should hold (BBQ's group answers).
    in_context: tuple[str, ...] = ()
    #: Words naming the item's group (lower-case), one of which the edit (or ``group_in``) should hold.
    group: tuple[str, ...] = ()
    #: An edited token matching this (at its start, case kept) names the group too: ``[A-Z]``, a name.
    group_pattern: str = ""
    #: (field, text) where a group term must occur instead of the edit (StereoSet: the context).
    group_in: tuple[str, str] | None = None


@dataclass(frozen=True)
class Finding:
    """One rule that fired on one item: which field, and what it saw."""

    id: str
    line: int | None
    rule: str
    field: str
    detail: str

    def as_dict(self) -> dict[str, object]:
        return {"id": self.id, "line": self.line, "rule": self.rule, "field": self.field, "detail": self.detail}


def lint(items: Sequence[LintItem], *, max_tokens: int = DEFAULT_MAX_TOKENS) -> list[Finding]:
    """Every finding on ``items``, item by item in their order, each item's in :data:`RULES` order."""
    seen: dict[tuple[str, ...], str] = {}
    found: list[Finding] = []
    for item in items:
        mine = [*_identical(item), *(_edits(item, max_tokens) if item.kind == "pair" else []),
                *_group_absent(item), *_texts(item), *_duplicate(item, seen), *_absent(item)]
        found += sorted(mine, key=lambda f: RULES.index(f.rule))
    return found


def counts(findings: Iterable[Finding]) -> dict[str, int]:
    """Items with a finding of each rule (an item counts once per rule), every rule listed."""
    per_rule = Counter(rule for rule, _ in {(f.rule, f.id) for f in findings})
    return {rule: per_rule.get(rule, 0) for rule in RULES}


def flagged(findings: Iterable[Finding]) -> set[str]:
    """The ids of the items with at least one finding."""
    return {f.id for f in findings}


def edit(a: str, b: str) -> tuple[int, int]:
    """How ``b`` differs from ``a``: the number of changed spans and of changed tokens."""
    changes = _changes(_TOKEN.findall(a.lower()), _TOKEN.findall(b.lower()))
    return len(changes), sum(max(i2 - i1, j2 - j1) for _, i1, i2, j1, j2 in changes)


def edited_tokens(a: str, b: str) -> list[str]:
    """The tokens (as written, case kept) of ``a`` then ``b`` inside the spans where they differ."""
    left, right = _TOKEN.findall(a), _TOKEN.findall(b)
    changes = _changes([t.lower() for t in left], [t.lower() for t in right])
    return [t for _, i1, i2, j1, j2 in changes for t in (*left[i1:i2], *right[j1:j2])]


def _changes(left: list[str], right: list[str]) -> list[tuple[str, int, int, int, int]]:
    """The opcodes of the spans where two token lists differ."""
    return [op for op in difflib.SequenceMatcher(None, left, right, autojunk=False).get_opcodes()
            if op[0] != "equal"]


# -- the rules -----------------------------------------------------------------------------------
def _finding(item: LintItem, rule: str, field: str, detail: str) -> Finding:
    return Finding(item.id, item.line, rule, field, detail)


def _identical(item: LintItem) -> list[Finding]:
    by_text: dict[str, str] = {}
    out = []
    compared = item.in_context or tuple(item.texts)
    for field, text in ((f, t) for f, t in item.texts.items() if f in compared):
        if text in by_text:
            out.append(_finding(item, "identical", field, f"the same text as {by_text[text]}"))
        by_text.setdefault(text, field)
    return out


def _edits(item: LintItem, max_tokens: int) -> list[Finding]:
    (first, a), (second, b) = item.texts.items()
    if a == b:
        return []
    spans, tokens = edit(a, b)
    out = []
    if spans > 1:
        out.append(_finding(item, "edit-spans", second, f"{spans} edited spans between {first} and {second}"))
    if tokens > max_tokens:
        out.append(_finding(item, "edit-tokens", second, f"{tokens} tokens changed (more than {max_tokens})"))
    return out


_ENDINGS = ("es", "s", "est", "er")


def _names_group(token: str, terms: frozenset[str], pattern: str) -> bool:
    """Whether an edited token names the group: a term, or a term with a plural or comparative
    ending ("whites", "older", "tallest"), or a token that ``pattern`` matches."""
    word = token.lower()
    if word in terms or (pattern and re.match(pattern, token)):
        return True
    return any(word.endswith(end) and word[:-len(end)] in terms for end in _ENDINGS)


def _group_absent(item: LintItem) -> list[Finding]:
    if not item.group:
        return []
    if item.group_in is not None:
        field, text = item.group_in
        if any(term in text.lower() for term in item.group):
            return []
        return [_finding(item, "group-absent", field, f"none of {', '.join(item.group)} in the {field}")]
    if item.kind != "pair" or len(set(item.texts.values())) < 2:
        return []  # an identical pair has no edit: ``identical`` says so
    (_, a), (second, b) = item.texts.items()
    changed = edited_tokens(a, b)
    terms = frozenset(item.group)
    if any(_names_group(t, terms, item.group_pattern) for t in changed):
        return []
    shown = " ".join(changed) if len(changed) <= 12 else " ".join(changed[:12]) + " …"
    return [_finding(item, "group-absent", second, f"no group word in the edit ({shown})")]


def _texts(item: LintItem) -> list[Finding]:
    out = []
    for field, text in item.texts.items():
        unbalanced = [f"{o}{c}" for o, c in _PAIRS if text.count(o) != text.count(c)]
        if text.count('"') % 2:
            unbalanced.append('"')
        if unbalanced:
            out.append(_finding(item, "brackets", field, "unbalanced " + " ".join(unbalanced)))
        damage = _damage(text)
        if damage:
            out.append(_finding(item, "encoding", field, damage))
    return out


def _damage(text: str) -> str:
    if "\ufffd" in text:
        return "U+FFFD (a character lost in decoding)"
    control = _CONTROL.search(text)
    if control:
        return f"control character U+{ord(control.group()):04X}"
    mojibake = _MOJIBAKE.search(text)
    if mojibake:
        return f"UTF-8 read as Latin-1: {mojibake.group()!r}"
    mojibake = _MAC_ROMAN_MOJIBAKE.search(text)
    if mojibake:
        return f"UTF-8 read as Mac Roman: {mojibake.group()!r}"
    return ""


def _duplicate(item: LintItem, seen: dict[tuple[str, ...], str]) -> list[Finding]:
    key = tuple(" ".join(text.split()) for text in item.texts.values())
    if key in seen:
        return [_finding(item, "duplicate", "", f"the same texts as item {seen[key]}")]
    seen[key] = item.id
    return []


_WORD = re.compile(r"\w+")
#: Words an option may add without naming anyone the context lacks: generic person nouns (BBQ's
#: options say "the person with PTSD", "the professors' child", "the clerk's family", "the Thai
#: girlfriend" of someone the context names otherwise) and function words ("with", "whose").
GENERIC_WORDS = frozenset((
    "person persons people individual individuals someone somebody child children kids family families "
    "friend friends girlfriend girlfriends boyfriend boyfriends student students "
    "with whose other others that this these those their them from both who's "
    # Spanish and Catalan (EsBBQ, CaBBQ, MBBQ-es): the same kinds of words, found by reading the
    # findings these sets gave with the English list alone ("la persona", "la gente", "el alumnado")
    "persona personas gente individuo alguien niño niña niños niñas familia familias amigo amiga amigos amigas "
    "novio novia novios novias estudiante estudiantes alumnado otro otra otros otras este esta está tiene cuyo "
    "cuya como "
    "gent individu algú nena nens nenes família famílies amic amics amigues xicot xicota estudiant "
    "estudiants alumnat altre altra altres aquest aquesta és meva "
    # Dutch (MBBQ-nl): "de persoon", "degene die"
    "persoon personen mensen iemand kind kinderen familie families vriend vrienden vriendin vriendinnen "
    "student studenten degene andere ander deze wiens "
    # Turkish (MBBQ-tr): "kişi" (person), "olan" (who is), "adı" (named)
    "kişi kişiler insan insanlar biri birisi çocuk çocuklar aile arkadaş arkadaşı olan diğer adı").split())
#: Gendered person words: present where the context names someone of that gender by any of them
#: ("the woman with a cane" for "two women, one who uses a cane"), absent where it names no
#: gender at all, since then the option adds one ("the straight woman" for "one who's straight").
GENDERED_WORDS = (frozenset("woman women girl girls lady ladies she her hers "
                             "mujer mujeres chica chicas señora señoras ella ellas "  # Spanish
                             "dona dones noia noies senyora senyores "  # Catalan
                             "vrouw vrouwen meisje meisjes dame dames zij haar "  # Dutch
                             "kadın kadınlar kız kızlar".split()),  # Turkish
                  frozenset("man men boy boys guy guys gentleman gentlemen he him his "
                            "hombre hombres chico chicos señor señores él ellos "
                            "home homes noi nois senyor senyors ell ells "
                            "mannen jongen jongens heer heren hij hem zijn "
                            "adam adamlar erkek erkekler oğlan".split()))


def _present(word: str, context: str, context_words: frozenset[str]) -> bool:
    """``word`` (lower-cased) is in ``context`` as a substring; or it is a generic word, a
    gendered one whose gender the context names, or a plural whose singular is there
    ("cashiers" for "a cashier"; "-ies" for "-y", "-es" and "-s" dropped)."""
    if word in GENERIC_WORDS or word in context:
        return True
    if any(word in gender and gender & context_words for gender in GENDERED_WORDS):
        return True
    stems = (word[:-3] + "y", word[:-2], word[:-1]) if word.endswith("ies") else (word[:-2], word[:-1])
    return word.endswith("s") and any(len(stem) >= 3 and stem in context for stem in stems)


def _absent(item: LintItem) -> list[Finding]:
    context = item.texts.get("context", "").lower()
    context_words = frozenset(_WORD.findall(context))
    out = []
    for field in item.in_context:
        words = [w for w in _WORD.findall(item.texts[field].lower())
                 if len(w) >= 4 or (len(w) >= 2 and not w.isascii())]
        missing = [w for w in words if not _present(w, context, context_words)]
        if missing:
            out.append(_finding(item, "option-absent", field, "not in the context: " + ", ".join(missing)))
    return out
