"""MBBQ's answer-detection vocabulary and prompts, read at run time from the authors' own file.

``answer_detection.py`` of GitHub ``Veranep/MBBQ`` @ ``adaa401`` (Neplenbroek, Bisazza & Fernández 2024) holds,
as module-level literals, everything ``--parser mbbq`` needs besides the rule itself (:mod:`.mbbq`):
the letter forms (``a_list``, ``b_list``, ``c_list``), the phrases that come before an answer, after one, or say
the model cannot answer, in English (``before_ans``, ``after_ans``, ``unknown_ans``), translated
(``trans_*_ans_dict``: each English phrase mapped to its nl, es, tr form) and gathered from the models' answers
(``extra_ans_detect``), and the five prompts (``prompts``; ``trans_prompt_dict``: each mapped to its translation).
(``mbbq.py``, whose ``get_samples`` and ``detect_answer`` use them, holds code only: nothing of it is read.)

The repository states no licence, so none of this is copied into ours: the file is a pinned :class:`DataFile`,
found by :func:`...fetch.locate` (``$BIASATLAS_DATA_DIR``, the cache, else downloaded and checked against the pin)
and read with :mod:`ast`: only the module-level assignments named above, each through ``ast.literal_eval``, so
nothing of theirs is imported or run. A literal of another shape, a call, or a missing name is a
:class:`~biasatlas.errors.DataError` naming the file, line and field.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ....errors import DataError
from ....hashing import sha256_file
from ...fetch import DataFile, locate

COMMIT = "adaa40172cdcf52eb403c01954a1aef8b0b1e97d"
DETECTION = DataFile("answer_detection.py",
                     f"https://raw.githubusercontent.com/Veranep/MBBQ/{COMMIT}/answer_detection.py",
                     "ae2b9f8c722ea6ce243d8465019d4d6c6937d66ee7cd725560ee51775fb34b99")
#: The languages with translations (English is the tables themselves).
TRANSLATED = ("nl", "es", "tr")
KINDS = ("before_ans", "after_ans", "unknown_ans")
PROMPT_NUMBERS = (1, 2, 3, 4, 5)
NAMES = ("a_list", "b_list", "c_list", "extra_ans_detect", *KINDS, "prompts",
         *(f"trans_{k}_dict" for k in KINDS), "trans_prompt_dict")


@dataclass(frozen=True)
class Tables:
    """What ``detect_answer`` and ``get_samples`` read, per language, in the order they read it.

    ``forms``: the forms naming (A), (B), (C) (an index above 2 is a marked form); ``before``, ``after``,
    ``unknown``: each language's phrases as ``detect_answer`` tries them (English, English extras, then the
    translations in English order and the language's extras); ``prompts``: the five prompts, stripped."""

    forms: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]
    before: Mapping[str, tuple[str, ...]]
    after: Mapping[str, tuple[str, ...]]
    unknown: Mapping[str, tuple[str, ...]]
    prompts: Mapping[str, tuple[str, ...]]
    path: str
    sha256: str


def load() -> Tables:
    """The tables of the pinned file, wherever :func:`locate` finds it (read once per path)."""
    return read(locate(DETECTION))


@functools.lru_cache(maxsize=4)
def read(path: Path) -> Tables:
    """The :class:`Tables` of an ``answer_detection.py`` at ``path``."""
    values, lines = literals(path, NAMES)
    fields = _Fields(path, lines)
    a, b, c = (fields.strings(name, values[name]) for name in ("a_list", "b_list", "c_list"))
    forms = (a, b, c)
    if len({len(f) for f in forms}) != 1:
        raise DataError("a_list, b_list and c_list must have one form per index", path=path, line=lines["b_list"])
    extra = fields.table(values, "extra_ans_detect")
    phrases = {kind: _per_language(fields, values, kind, extra) for kind in KINDS}
    english = fields.strings("prompts", values["prompts"])
    if len(english) != len(PROMPT_NUMBERS):  # --mbbq-prompts names them 1-5
        raise fields.fail("prompts", f"{len(PROMPT_NUMBERS)} prompts")
    translated = fields.translation(values, "trans_prompt_dict", english)
    prompts = {"en": english, **translated}
    return Tables(forms, phrases["before_ans"], phrases["after_ans"], phrases["unknown_ans"],
                  {k: tuple(p.strip() for p in v) for k, v in prompts.items()}, str(path), sha256_file(path))


def _per_language(fields: _Fields, values: Mapping[str, object], kind: str,
                  extra: Mapping[str, Mapping[str, tuple[str, ...]]]) -> dict[str, tuple[str, ...]]:
    """``detect_answer``'s list of one kind for each language: English and its extras, then (not en) each
    English phrase's translation and the language's extras."""
    own = fields.strings(kind, values[kind])
    english = (*own, *extra["en"][kind])
    translated = fields.translation(values, f"trans_{kind}_dict", own)
    return {"en": english, **{lang: (*english, *translated[lang], *extra[lang][kind]) for lang in TRANSLATED}}


def literals(path: Path, names: tuple[str, ...]) -> tuple[dict[str, object], dict[str, int]]:
    """The values of the module-level ``name = <literal>`` assignments of ``names`` in the Python file at
    ``path`` (``ast.literal_eval``: nothing is run), and the line of each; every name must be there."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (OSError, SyntaxError, ValueError) as error:
        raise DataError(f"cannot read it as Python source ({error})", path=path) from error
    values: dict[str, object] = {}
    lines: dict[str, int] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            if name in names:
                try:
                    values[name] = ast.literal_eval(node.value)
                except ValueError as error:
                    raise DataError(f"not a literal ({error}): it is read, never run", path=path,
                                    line=node.lineno, field=name) from error
                lines[name] = node.lineno
    missing = [n for n in names if n not in values]
    if missing:
        raise DataError(f"no module-level assignment of {', '.join(missing)} (is it MBBQ's answer_detection.py "
                        f"@ {COMMIT[:7]}?)", path=path)
    return values, lines


@dataclass(frozen=True)
class _Fields:
    """Typed reads of the literals, each error naming the file, the assignment's line and the field."""

    path: Path
    lines: Mapping[str, int]

    def fail(self, name: str, what: str) -> DataError:
        return DataError(f"expected {what}", path=self.path, line=self.lines.get(name.split("[")[0]), field=name)

    def strings(self, name: str, got: object) -> tuple[str, ...]:
        if not isinstance(got, list) or not all(isinstance(s, str) for s in got):
            raise self.fail(name, "a list of strings")
        return tuple(got)

    def table(self, values: Mapping[str, object], name: str) -> dict[str, dict[str, tuple[str, ...]]]:
        """``extra_ans_detect``: for en and each translated language, a list of strings per kind."""
        got = values[name]
        if not isinstance(got, dict) or not {"en", *TRANSLATED} <= set(got):
            raise self.fail(name, "a dict with en, nl, es and tr")
        out = {}
        for lang in ("en", *TRANSLATED):
            if not isinstance(got[lang], dict) or not set(KINDS) <= set(got[lang]):
                raise self.fail(f"{name}[{lang!r}]", f"a dict with {', '.join(KINDS)}")
            out[lang] = {k: self.strings(f"{name}[{lang!r}][{k!r}]", got[lang][k]) for k in KINDS}
        return out

    def translation(self, values: Mapping[str, object], name: str, english: tuple[str, ...]
                    ) -> dict[str, tuple[str, ...]]:
        """``trans_*_dict``: each translated language maps every English string to its own."""
        got = values[name]
        if not isinstance(got, dict) or not set(TRANSLATED) <= set(got):
            raise self.fail(name, "a dict with nl, es and tr")
        out = {}
        for lang in TRANSLATED:
            table = got[lang]
            if not isinstance(table, dict) or not set(english) <= set(table) or \
                    not all(isinstance(table[e], str) for e in english):
                raise self.fail(f"{name}[{lang!r}]", "a string for each English one")
            out[lang] = tuple(table[e] for e in english)
        return out
