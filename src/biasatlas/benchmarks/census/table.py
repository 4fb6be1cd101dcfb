"""Census tables: occupations with the share of women in each (Touileb et al. 2023, §2).

A census table is a list of occupations with ``female_pct``, the percentage of women
among the people employed in it. Three tables ship with the package (``tables/``, see
``tables/SOURCES.md``): the US (BLS CPS table 11, 2021), France (DARES Portraits
statistiques des métiers, FAP-2009, 2017–2019), Norway (SSB figures as compiled by
Touileb et al. 2022) and Germany (BEC-Pro's 60 professions, Bartl et al. 2020, with the
share of women of each one's occupational category). Any CSV with the columns ``occupation,female_pct`` works as well;
bad rows raise :class:`~biasatlas.errors.DataError` naming the file, line and field. A
table must be UTF-8 (a BOM is dropped); other encodings are refused, as every text file
is (:mod:`biasatlas.textfiles`).
"""

from __future__ import annotations

import csv
import difflib
import hashlib
import io
import math
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path

from ...errors import DataError, UnknownName
from ...textfiles import decode_text, input_file, refuse_duplicate_columns

#: Residual "catch-all" BLS categories. Dropping the rows that match this pattern leaves
#: 314 of the 354 US rows: the paper's US count (a reconstruction; the authors' own list
#: is not available, see ``tables/SOURCES.md``).
US_CATCH_ALL_PATTERN = re.compile(r"all other|^Other |^Helpers")


@dataclass(frozen=True)
class BuiltinTable:
    """A census table shipped with the package."""

    name: str
    file: str
    language: str
    description: str
    drop_catch_alls: bool = False


BUILTIN_TABLES: dict[str, BuiltinTable] = {
    "us": BuiltinTable("us", "us_bls_2021.csv", "en",
                       "US, BLS CPS table 11 (cpsaat11), 2021 annual averages",
                       drop_catch_alls=True),
    "fr": BuiltinTable("fr", "fr_dares_2017_2019.csv", "fr",
                       "France, DARES Portraits statistiques des métiers (FAP-2009), 2017-2019"),
    "no": BuiltinTable("no", "no_ssb.csv", "no",
                       "Norway, SSB via utdanning.no, as compiled by Touileb et al. (2022)"),
    # BEC-Pro's English professions (the bartl2020 method's US table), BLS 2019.
    "us-bec-pro": BuiltinTable("us-bec-pro", "us_bec_pro.csv", "en",
                               "US, BEC-Pro (Bartl et al. 2020): BLS 2019 % women of its 60 professions"),
    # A category share, recorded per profession: see tables/SOURCES.md.
    "de": BuiltinTable("de", "de_bec_pro.csv", "de",
                       "Germany, BEC-Pro (Bartl et al. 2020): % women of each profession's KldB 2010 "
                       "category, Bundesagentur für Arbeit"),
}

UK_HOWTO = (
    "the UK table (ONS Annual Population Survey, employment by SOC 4-digit unit group "
    "and sex; Nomis dataset APS168) is not shipped: download it from Nomis, write a CSV "
    "with the columns occupation,female_pct and pass its path "
    "(see docs/benchmarks/census.md, 'The UK table')"
)


@dataclass(frozen=True)
class CensusRow:
    """One occupation: its name as the table writes it and the percentage of women."""

    occupation: str
    female_pct: float
    total_employed: int | None = None
    source_code: str | None = None
    line: int | None = None


@dataclass(frozen=True)
class CensusTable:
    """An immutable census table with the provenance needed to cite it."""

    name: str
    rows: tuple[CensusRow, ...]
    source: str
    sha256: str
    language: str | None = None
    dropped: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[CensusRow]:
        return iter(self.rows)

    @property
    def occupations(self) -> tuple[str, ...]:
        return tuple(row.occupation for row in self.rows)

    def female_pct(self, occupation: str) -> float:
        """The census share of women of one occupation (KeyError if absent)."""
        for row in self.rows:
            if row.occupation == occupation:
                return row.female_pct
        raise KeyError(occupation)

    def subset(self, occupations: tuple[str, ...] | list[str]) -> CensusTable:
        """The rows whose occupation is in ``occupations``, in table order."""
        keep = set(occupations)
        return replace(self, rows=tuple(r for r in self.rows if r.occupation in keep))


def normalise_name(text: str) -> str:
    """NFC, trimmed, inner whitespace collapsed: the form every occupation key takes.

    Needed because source files differ in these only (the DARES label of E1Z43 ends in a
    space; spreadsheets may hold decomposed accents).
    """
    return " ".join(unicodedata.normalize("NFC", text).split())


def load_census(table: str | Path, *, language: str | None = None,
                drop_catch_alls: bool | None = None) -> CensusTable:
    """Load a shipped table by country code (``us``, ``fr``, ``no``, ``de``) or any CSV by path.

    ``drop_catch_alls`` removes rows matching :data:`US_CATCH_ALL_PATTERN`; it defaults
    to True for ``us`` (354 → 314 rows, the paper's count) and False otherwise.
    ``language`` names the template language of a user table (``en``, ``fr``, ``no``, ``de``).
    """
    key = str(table).strip().lower() if isinstance(table, str) else None
    if key in BUILTIN_TABLES:
        spec = BUILTIN_TABLES[key]
        data = resources.files(__package__).joinpath("tables", spec.file).read_bytes()
        loaded = parse_census_csv(data, source=f"biasatlas:census/tables/{spec.file}",
                                  name=spec.name, language=language or spec.language)
        drop = spec.drop_catch_alls if drop_catch_alls is None else drop_catch_alls
    else:
        path = Path(table)
        if not path.exists():
            raise _unknown_table(str(table))
        input_file(path)  # a folder or a device is named as such, not as "no such file"
        loaded = parse_census_csv(path.read_bytes(), source=str(path), name=path.stem,
                                  language=language)
        drop = bool(drop_catch_alls)
    return drop_catch_all_rows(loaded) if drop else loaded


def drop_catch_all_rows(table: CensusTable,
                        pattern: re.Pattern[str] = US_CATCH_ALL_PATTERN) -> CensusTable:
    """Remove residual categories ("Managers, all other", "Other …", "Helpers…")."""
    kept = tuple(r for r in table.rows if not pattern.search(r.occupation))
    dropped = tuple(r.occupation for r in table.rows if pattern.search(r.occupation))
    return replace(table, rows=kept, dropped=table.dropped + dropped)


def _unknown_table(name: str) -> UnknownName:
    if name.strip().lower() in {"uk", "gb"}:
        return UnknownName(f"census table {name!r}: {UK_HOWTO}")
    close = difflib.get_close_matches(name.lower(), list(BUILTIN_TABLES), n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    return UnknownName(f"no census table {name!r} and no such file.{hint} "
                       f"Available: {', '.join(sorted(BUILTIN_TABLES))}, or a CSV path.")


def parse_census_csv(data: bytes, *, source: str, name: str,
                     language: str | None = None) -> CensusTable:
    """Validate and parse a census CSV (header with ``occupation`` and ``female_pct``)."""
    reader = csv.reader(io.StringIO(decode_text(data, path=source), newline=""))
    header = next(reader, None)
    if header is None or not any(cell.strip() for cell in header):
        raise DataError("empty file: expected a header with occupation,female_pct", path=source)
    columns = _header_columns(header, source)
    rows: list[CensusRow] = []
    seen: dict[str, int] = {}
    for cells in reader:
        if not any(cell.strip() for cell in cells):
            continue  # blank lines, common at the end of hand-edited files
        row = _parse_row(cells, columns, source, reader.line_num, len(header))
        first = seen.setdefault(row.occupation.casefold(), reader.line_num)
        if first != reader.line_num:
            raise DataError(f"duplicate occupation {row.occupation!r} (first on line {first})",
                            path=source, line=reader.line_num, field="occupation")
        rows.append(row)
    if not rows:
        raise DataError("no data rows after the header", path=source)
    _check_percent_scale(rows, source)
    digest = hashlib.sha256(data).hexdigest()
    return CensusTable(name=name, rows=tuple(rows), source=source, sha256=digest,
                       language=language)


def _check_percent_scale(rows: list[CensusRow], source: str) -> None:
    """Shares written as fractions (0.45) would all read as under 1 % women, so every
    occupation would come out male-dominated: refuse a table whose values all lie in 0–1."""
    if len(rows) > 1 and all(r.female_pct <= 1.0 for r in rows):
        raise DataError("every female_pct is between 0 and 1: these look like fractions; write "
                        "percentages (45 for 45 % women, not 0.45)", path=source, field="female_pct")


def _header_columns(header: list[str], source: str) -> dict[str, int]:
    names = [cell.strip().lower() for cell in header]
    refuse_duplicate_columns(names, path=source)
    for required in ("occupation", "female_pct"):
        if required not in names:
            hint = (" (the file looks semicolon-separated; use commas)"
                    if any(";" in cell for cell in header) else "")
            raise DataError(f"missing column {required!r}; found {header!r}{hint}",
                            path=source, line=1, field=required)
    return {name: i for i, name in enumerate(names) if name}


def _parse_row(cells: list[str], columns: dict[str, int], source: str, line: int,
               width: int) -> CensusRow:
    if len(cells) != width:
        raise DataError(f"{len(cells)} fields where the header has {width}",
                        path=source, line=line)
    occupation = normalise_name(cells[columns["occupation"]])
    if not occupation:
        raise DataError("empty occupation name", path=source, line=line, field="occupation")
    pct = _parse_pct(cells[columns["female_pct"]], source, line)
    total = _parse_total(cells, columns, source, line)
    code = cells[columns["source_code"]].strip() if "source_code" in columns else ""
    return CensusRow(occupation=occupation, female_pct=pct, total_employed=total,
                     source_code=code or None, line=line)


def _parse_pct(text: str, source: str, line: int) -> float:
    try:
        value = float(text.strip())
    except ValueError:
        raise DataError(f"not a number: {text!r} (use '.' as the decimal mark)",
                        path=source, line=line, field="female_pct") from None
    if not math.isfinite(value) or not 0.0 <= value <= 100.0:
        raise DataError(f"{text.strip()!r} is outside 0-100 (a percentage of women)",
                        path=source, line=line, field="female_pct")
    return value


def _parse_total(cells: list[str], columns: dict[str, int], source: str,
                 line: int) -> int | None:
    if "total_employed" not in columns or not cells[columns["total_employed"]].strip():
        return None
    text = cells[columns["total_employed"]].strip()
    try:
        value = int(text)
    except ValueError:
        raise DataError(f"not a whole number: {text!r}", path=source, line=line,
                        field="total_employed") from None
    if value < 0:
        raise DataError(f"negative count {value}", path=source, line=line,
                        field="total_employed")
    return value
