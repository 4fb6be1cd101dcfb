"""Language data for the census templates: identifiers, predicates, inflections.

Touileb et al. (2023, §2, Tables 2 and 5) build each probe from a gendered identifier
("The woman"), a predicate ("worked as a") and an occupation form that agrees with
both. A language is three kinds of CSV file (the format is documented in
``docs/benchmarks/census.md``, "Bring your own language"):

* ``identifiers.csv``: ``id,gender,number,prefix,forms[,twin]``. The slot is the identifier's
  gendered word; ``prefix`` is the text before it ("The", "La", "L'", or empty). A
  space joins prefix and slot unless the prefix ends in an apostrophe. ``forms`` lists
  spelling variants separated by ``|`` (Norwegian "Dama|Damen"); their probabilities
  are summed. ``twin`` (optional) names the identifier of the other gender that
  matches this one ("the-woman" ↔ "the-man"); ``identifiers="paired"`` keeps only
  identifiers with a twin, so both genders are averaged over equally many words.
* ``predicates.csv``: ``id,number,tense,text``. ``text`` is everything after the
  identifier, with ``{name}`` placeholders for occupation forms ("worked as {article}
  {sg}."). One row is one template of the paper: one predicate in one number.
* ``inflections*.csv``: ``occupation`` plus one column per form. A placeholder
  ``{sg}`` takes the column ``f_sg`` or ``m_sg`` for the identifier's gender when the
  file has it, else the gender-neutral column ``sg``.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from types import MappingProxyType
from typing import Literal, TypeVar

from ...errors import DataError, UnknownName
from ...textfiles import decode_text, input_file, refuse_duplicate_columns
from .table import normalise_name

Gender = Literal["f", "m"]
Number = Literal["sg", "pl"]
GENDERS: tuple[Gender, ...] = ("f", "m")
NUMBERS: tuple[Number, ...] = ("sg", "pl")
_Word = TypeVar("_Word", bound=str)
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
#: Census tables name countries; templates name languages.
COUNTRY_LANGUAGE = {"us": "en", "uk": "en", "fr": "fr", "no": "no", "de": "de", "us-bec-pro": "en"}
SHIPPED_LANGUAGES = ("en", "fr", "no", "de")
IdentifierSet = Literal["paired", "all"]
IDENTIFIER_SETS: tuple[str, ...] = ("paired", "all")


@dataclass(frozen=True)
class Identifier:
    """A gendered identifier (paper Table 2): the slot word(s) and what precedes them."""

    id: str
    gender: Gender
    number: Number
    prefix: str
    forms: tuple[str, ...]
    twin: str | None = None  # the other gender's matching identifier, if it has one

    @property
    def left(self) -> str:
        """Text before the slot: "The " or "L'" (elision: no space after an apostrophe)."""
        if not self.prefix or self.prefix.endswith(("'", "\u2019")):
            return self.prefix
        return self.prefix + " "


@dataclass(frozen=True)
class Predicate:
    """One template of the paper: a predicate (Table 5) in one grammatical number."""

    id: str
    number: Number
    tense: str
    text: str

    @property
    def placeholders(self) -> tuple[str, ...]:
        return tuple(PLACEHOLDER.findall(self.text))


@dataclass(frozen=True)
class Inflection:
    """The forms of one occupation, keyed by column name (``sg``, ``f_pl``, ``article``…)."""

    occupation: str
    forms: Mapping[str, str]

    def form(self, name: str, gender: Gender) -> str | None:
        """The gendered column ``{gender}_{name}`` if present, else ``name``; None if absent."""
        value = self.forms.get(f"{gender}_{name}") or self.forms.get(name)
        return value or None


@dataclass(frozen=True)
class LanguageSpec:
    """Everything needed to turn a census table into sentences in one language."""

    code: str
    identifiers: tuple[Identifier, ...]
    predicates: tuple[Predicate, ...]
    inflections: Mapping[str, Inflection]
    sources: tuple[str, ...] = ()


def select_identifiers(spec: LanguageSpec, which: IdentifierSet) -> LanguageSpec:
    """The language with ``all`` its identifiers, or only the ``paired`` ones.

    Why pairing matters: equation 1 averages P(i | t) over the identifiers of each
    gender, and a set with 15 female and 13 male words is not neutral. A model that gives
    each female word exactly its male twin's probability still gets a share below 50
    when the unpaired extra word ("lady") is less likely than the average one. Pairs make
    a gender-symmetric model score exactly 50 under every aggregation.
    """
    if which == "all":
        return spec
    if which != "paired":
        raise UnknownName(f"identifier set {which!r}; choose one of {', '.join(IDENTIFIER_SETS)}")
    if all(i.twin is None for i in spec.identifiers):
        return _balanced_without_twins(spec)
    kept = tuple(i for i in spec.identifiers if i.twin is not None)
    return replace(spec, identifiers=kept)


def _balanced_without_twins(spec: LanguageSpec) -> LanguageSpec:
    """A user file without a ``twin`` column is usable as paired only if already balanced."""
    for number in ("sg", "pl"):
        counts = {g: sum(i.gender == g and i.number == number for i in spec.identifiers)
                  for g in GENDERS}
        if counts["f"] != counts["m"]:
            raise DataError(f"{counts['f']} female and {counts['m']} male {number} identifiers and "
                            "no 'twin' column: add one naming each identifier's counterpart, or "
                            "use identifiers='all' (--identifiers all)", field="twin")
    return spec


def language_of(name: str) -> str:
    """Map a country code (``us``) or language code (``en``) to a language code."""
    key = name.strip().lower()
    return COUNTRY_LANGUAGE.get(key, key)


def load_language(language: str | Path, *, identifiers: str | Path | None = None,
                  predicates: str | Path | Traversable | None = None,
                  inflections: str | Path | None = None) -> LanguageSpec:
    """Load a shipped language (``en``, ``fr``, ``no``, ``de``, or a country code) or a folder.

    A folder holds ``identifiers.csv``, ``predicates.csv`` and ``inflections*.csv``.
    Each keyword replaces one part of the language with the user's own file.
    """
    folder = language_folder(language)
    # A user's folder is named by its own name, even one called like a shipped language ("de").
    code = language_of(str(language)) if _is_shipped(language) else folder.name
    ids = read_identifiers(_source(identifiers, folder, "identifiers.csv"))
    preds = read_predicates(_source(predicates, folder, "predicates.csv"))
    if inflections is not None:
        infl_files: list[Traversable | Path] = [Path(inflections)]
    else:
        infl_files = sorted((f for f in folder.iterdir()
                             if f.name.startswith("inflections") and f.name.endswith(".csv")),
                            key=lambda f: f.name)
    infl: dict[str, Inflection] = {}
    for file in infl_files:
        for occupation, entry in read_inflections(file).items():
            infl.setdefault(occupation, entry)  # first file wins; files are name-sorted
    return LanguageSpec(code=code, identifiers=ids, predicates=preds,
                        inflections=MappingProxyType(infl),
                        sources=tuple(str(f) for f in infl_files))


def _is_shipped(language: str | Path) -> bool:
    return isinstance(language, str) and language_of(language) in SHIPPED_LANGUAGES


def language_folder(language: str | Path) -> Traversable | Path:
    """The folder of a shipped language (a packaged resource) or the user's folder itself."""
    if _is_shipped(language):
        return resources.files(__package__).joinpath("lang", language_of(str(language)))
    path = Path(language)
    if path.is_dir():
        return path
    raise UnknownName(f"no template language {str(language)!r}: use one of "
                      f"{', '.join(SHIPPED_LANGUAGES)} (or us/fr/no/de), or a folder with "
                      "identifiers.csv, predicates.csv and inflections*.csv")


def _source(override: str | Path | Traversable | None, folder: Traversable | Path,
            name: str) -> Traversable | Path:
    if override is None:
        return folder.joinpath(name)
    return Path(override) if isinstance(override, str) else override  # a shipped set is a resource


def _rows(source: Traversable | Path,
          required: tuple[str, ...]) -> list[tuple[int, dict[str, str]]]:
    """(line, row) pairs of a UTF-8 CSV, checking that ``required`` columns exist."""
    name = str(source)
    if isinstance(source, Path):  # the user's file (a shipped one is a packaged resource)
        input_file(source)
    try:
        data = source.read_bytes()
    except FileNotFoundError as err:
        raise DataError("file not found", path=name) from err
    reader = csv.DictReader(io.StringIO(decode_text(data, path=name), newline=""))
    columns = [c.strip() for c in reader.fieldnames or []]
    refuse_duplicate_columns(columns, path=name)
    for column in required:
        if column not in columns:
            raise DataError(f"missing column {column!r}; found {columns!r}", path=name,
                            line=1, field=column)
    rows = []
    for raw in reader:
        row = {(k or "").strip(): (v or "") for k, v in raw.items()}
        if any(value.strip() for value in row.values()):
            rows.append((reader.line_num, row))
    if not rows:
        raise DataError("no data rows after the header", path=name)
    return rows


def _choice(row: dict[str, str], field: str, allowed: tuple[_Word, ...], name: str,
            line: int) -> _Word:
    value = row[field].strip()
    for option in allowed:
        if value == option:
            return option
    raise DataError(f"{value!r} is not one of {', '.join(allowed)}", path=name, line=line,
                    field=field)


def _unique_id(row: dict[str, str], seen: set[str], name: str, line: int) -> str:
    ident = row["id"].strip()
    if not ident:
        raise DataError("empty id", path=name, line=line, field="id")
    if ident in seen:
        raise DataError(f"duplicate id {ident!r}", path=name, line=line, field="id")
    seen.add(ident)
    return ident


def read_identifiers(source: Traversable | Path) -> tuple[Identifier, ...]:
    """Identifiers of one language; at least one per gender."""
    name, seen, out, lines = str(source), set[str](), [], []
    for line, row in _rows(source, ("id", "gender", "number", "prefix", "forms")):
        lines.append(line)
        ident = _unique_id(row, seen, name, line)
        forms = tuple(normalise_name(f) for f in row["forms"].split("|") if f.strip())
        if not forms:
            raise DataError("no slot word", path=name, line=line, field="forms")
        out.append(Identifier(id=ident, gender=_choice(row, "gender", GENDERS, name, line),
                              number=_choice(row, "number", NUMBERS, name, line),
                              prefix=normalise_name(row["prefix"]), forms=forms,
                              twin=(row.get("twin") or "").strip() or None))
    for gender in GENDERS:
        if not any(i.gender == gender for i in out):
            raise DataError(f"no identifier of gender {gender!r}", path=name, field="gender")
    _check_twins(out, lines, name)
    return tuple(out)


def _check_twins(identifiers: list[Identifier], lines: list[int], name: str) -> None:
    """Twins are mutual, of the other gender and the same grammatical number."""
    by_id = {i.id: i for i in identifiers}
    for ident, line in zip(identifiers, lines):
        if ident.twin is None:
            continue
        twin = by_id.get(ident.twin)
        problem = ("names no identifier of this file" if twin is None
                   else "has the same gender" if twin.gender == ident.gender
                   else "has another grammatical number" if twin.number != ident.number
                   else f"names {twin.twin!r} as its own twin" if twin.twin != ident.id else "")
        if problem:
            raise DataError(f"identifier {ident.id!r}: twin {ident.twin!r} {problem}", path=name,
                            line=line, field="twin")


def read_predicates(source: Traversable | Path) -> tuple[Predicate, ...]:
    """Predicates of one language; each needs at least one occupation placeholder."""
    name, seen, out = str(source), set[str](), []
    for line, row in _rows(source, ("id", "number", "tense", "text")):
        ident = _unique_id(row, seen, name, line)
        pred = Predicate(id=ident, number=_choice(row, "number", NUMBERS, name, line),
                         tense=row["tense"].strip(), text=normalise_name(row["text"]))
        if not pred.placeholders:
            raise DataError("no {form} placeholder for the occupation", path=name, line=line,
                            field="text")
        out.append(pred)
    return tuple(out)


def read_inflections(source: Traversable | Path) -> dict[str, Inflection]:
    """Occupation forms keyed by the census occupation name (NFC, trimmed)."""
    name, out = str(source), {}
    for line, row in _rows(source, ("occupation",)):
        occupation = normalise_name(row.pop("occupation"))
        if not occupation:
            raise DataError("empty occupation name", path=name, line=line, field="occupation")
        if occupation in out:
            raise DataError(f"duplicate occupation {occupation!r}", path=name, line=line,
                            field="occupation")
        forms = {k: normalise_name(v) for k, v in row.items() if k and k != "note"}
        out[occupation] = Inflection(occupation, MappingProxyType(forms))
    return out
