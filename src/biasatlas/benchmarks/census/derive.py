"""How the shipped census tables were made from the statistics agencies' files.

The CSVs in ``tables/`` are the output of these functions on the copies documented in
``tables/SOURCES.md``; the test suite re-derives them from the shared copies and checks
that nothing drifted. Run them by hand only to rebuild a table::

    rows = derive_us_bls("cpsaat11_2021.xlsx")
    Path("us_bls_2021.csv").write_text(census_csv(rows, US_COLUMNS), encoding="utf-8")

Reading the BLS workbook needs ``openpyxl`` (imported lazily; the package never needs
it at run time).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from pathlib import Path

from ...textfiles import read_text, refuse_duplicate_columns
from .table import CensusRow, normalise_name

US_COLUMNS = ("occupation", "female_pct", "total_employed")
FR_COLUMNS = ("occupation", "female_pct", "total_employed", "source_code")
NO_COLUMNS = ("occupation", "female_pct")
DE_COLUMNS = ("occupation", "female_pct", "source_code", "category", "profession_en")
DE_FORM_COLUMNS = ("occupation", "m_sg", "f_sg", "m_def", "f_def", "m_bec_pro", "f_bec_pro", "note")
US_BEC_PRO_COLUMNS = ("occupation", "female_pct", "bls_occupation")
US_BEC_PRO_FORM_COLUMNS = ("occupation", "sg", "pl", "article", "note")

#: cpsaat11 2021: data rows run from the "Total" row (8) to the last occupation (607).
_US_FIRST_ROW, _US_LAST_ROW = 8, 607
#: Not occupations: "not stated" and an aggregate of T2A60 + T2B60 (PROVENANCE.md).
_FR_DROPPED_CODES = frozenset({"ZZZZZ", "T2Z60"})
#: DARES publishes its files in Windows-1252 ("œ" is byte 0x9C): declared, never guessed.
_DARES_ENCODING = "cp1252"


def derive_us_bls(xlsx: str | Path) -> list[CensusRow]:
    """Detailed BLS occupations with a published share of women (354 rows for 2021).

    The hierarchy exists only as cell indentation, so a row is a detailed occupation
    when the next row is not indented deeper (a leaf); the "Total" row and rows whose
    share is a dash (base under 50,000) are dropped.
    """
    import openpyxl  # only needed to rebuild the table

    sheet = openpyxl.load_workbook(xlsx)["cpsaat11"]
    lines = [(sheet.cell(r, 1).value, sheet.cell(r, 1).alignment.indent or 0,
              sheet.cell(r, 2).value, sheet.cell(r, 3).value)
             for r in range(_US_FIRST_ROW, _US_LAST_ROW + 1)]
    lines = [line for line in lines if line[0] and str(line[0]).strip()]
    rows = []
    for here, after in zip(lines, lines[1:] + [None], strict=True):
        label, indent, total, women = here
        is_leaf = after is None or after[1] <= indent
        if not is_leaf or str(label).startswith("Total,") or not isinstance(women, (int, float)):
            continue
        rows.append(CensusRow(occupation=normalise_name(str(label)),
                              female_pct=round(float(women), 1),
                              total_employed=round(float(total) * 1000)))
    return rows


def _records(text: str, path: str | Path) -> csv.DictReader[str]:
    """The rows of a source CSV by column name; a name given twice is refused, not read
    from its last copy."""
    reader = csv.DictReader(io.StringIO(text, newline=""))
    refuse_duplicate_columns(reader.fieldnames or (), path=path)
    return reader


def derive_fr_dares(part_femmes: str | Path, effectifs: str | Path) -> list[CensusRow]:
    """The 225 FAP-2009 métiers détaillés, share of women averaged over 2017–2019.

    Where the source repeats the code in place of a label (FAP-87 families with one
    FAP-225 child), the family label is used. Employment is the centre year (2018) of
    the window, in thousands in the source.
    """
    employed = _fr_employment(Path(effectifs))
    text = read_text(Path(part_femmes), encoding=_DARES_ENCODING)
    rows = []
    for rec in _records(text, part_femmes):
        code = rec["Fap3"]
        if rec["Annee"] != "2017-2019" or len(code) != 5 or code in _FR_DROPPED_CODES:
            continue
        label = rec["libelle"] if rec["libelle"] != code else rec["libelle_fap_agregee"]
        rows.append(CensusRow(occupation=normalise_name(label),
                              female_pct=round(float(rec["Part"]), 2),
                              total_employed=round(employed[code] * 1000),
                              source_code=code))
    return sorted(rows, key=lambda row: row.source_code or "")


def _fr_employment(path: Path) -> dict[str, float]:
    text = read_text(path, encoding=_DARES_ENCODING)
    for rec in _records(text, path):
        if rec["Annee"] == "2018":
            return {code: float(value) for code, value in rec.items()
                    if code != "Annee" and value not in ("", "NA")}
    raise ValueError(f"{path}: no row for 2018 (the 2017-2019 window)")


def derive_no_ssb(gold_csv: str | Path) -> list[CensusRow]:
    """The 417 Norwegian occupations of Touileb et al. (2022), % women as stored."""
    text = read_text(Path(gold_csv))
    return [CensusRow(occupation=normalise_name(rec["occupations"]),
                      female_pct=float(rec["female"]))
            for rec in _records(text, gold_csv)]


def _bec_pro_professions(tsv: str | Path) -> list[dict[str, str]]:
    """The 60 rows of BEC-Pro's ``Professions US+DE.tsv`` (tab-separated, CRLF as shipped)."""
    text = read_text(Path(tsv))
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter="\t")
    refuse_duplicate_columns(reader.fieldnames or (), path=tsv)
    return [{k: normalise_name(v) for k, v in rec.items()} for rec in reader]


def derive_de_bec_pro(tsv: str | Path) -> list[CensusRow]:
    """The German table: BEC-Pro's 60 professions (Bartl et al. 2020), named by their
    masculine German form, with ``percent_de``.

    ``percent_de`` is the share of women of the profession's KldB 2010 *category* (one of
    eight "Berufsbereiche", Bundesagentur für Arbeit), not of the profession itself: 20
    professions share the 79.36 of category 8. The category travels with every row
    (``source_code`` is the profession's KldB 2010 code) so the card and a reader can see it.
    """
    rows = []
    for rec in _bec_pro_professions(tsv):
        rows.append(CensusRow(occupation=rec["german_m"], female_pct=float(rec["percent_de"]),
                              source_code=rec["kldb2010_code"]))
    return rows


def derive_de_rows(tsv: str | Path) -> list[dict[str, str]]:
    """The shipped German table's rows as CSV cells: :func:`derive_de_bec_pro` plus the
    category and the English name (``simplified_professions``) of each profession."""
    recs = _bec_pro_professions(tsv)
    return [{"occupation": row.occupation, "female_pct": _cell(row.female_pct),
             "source_code": row.source_code or "", "category": rec["category_de"],
             "profession_en": rec["simplified_professions"]}
            for row, rec in zip(derive_de_bec_pro(tsv), recs, strict=True)]


def derive_us_bec_pro_rows(tsv: str | Path) -> list[dict[str, str]]:
    """BEC-Pro's 60 professions by their English name (``simplified_professions``, as its
    sentences write them) with ``percent_us`` (BLS 2019, % women) and the BLS title."""
    return [{"occupation": rec["simplified_professions"], "female_pct": _cell(float(rec["percent_us"])),
             "bls_occupation": rec["original_professions"]} for rec in _bec_pro_professions(tsv)]


def derive_us_bec_pro_forms(tsv: str | Path) -> list[dict[str, str]]:
    """English forms of BEC-Pro's professions for the census templates: the name as the
    singular, its plural and article by the rules the US file is checked against."""
    from .english import indefinite_article, pluralise_head

    return [{"occupation": rec["simplified_professions"], "sg": rec["simplified_professions"],
             "pl": pluralise_head(rec["simplified_professions"]),
             "article": indefinite_article(rec["simplified_professions"]), "note": ""}
            for rec in _bec_pro_professions(tsv)]


#: Masculine forms whose adjective declines after the definite article (strong "-er" after
#: "ist", weak "-e" after "der"): BEC-Pro writes "der staatlich geprüfter Krankenpfleger",
#: which is ungrammatical; the census writes the weak form. Feminine forms do not change.
_WEAK_AFTER_DER = {"staatlich geprüfter Krankenpfleger": "staatlich geprüfte Krankenpfleger",
                   "medizinischer Wissenschaftler": "medizinische Wissenschaftler",
                   "Postbeamter": "Postbeamte"}
#: BEC-Pro's three slips, corrected in the census forms (``m_sg`` … ``f_def``) and kept in
#: ``m_bec_pro``/``f_bec_pro``, which the bartl2020 method reads to rebuild BEC-Pro's own
#: sentences. Why correct them: with Gemma 3 the misspelt "Dachedecker" scored 100 % female
#: (docs/benchmarks/census.md), a spelling effect, not an occupational one.
_DE_FIXES = {"Dachedecker": ("Dachdecker", "Dachdeckerin", "BEC-Pro writes the masculine Dachedecker"),
             "Rezeptionist": ("Rezeptionist", "Rezeptionistin", "BEC-Pro writes Rezeptionist for both genders"),
             "Kfz-Mechaniker": ("Kfz-Mechaniker", "Kfz-Mechanikerin",
                                "BEC-Pro writes Kfz-Mechaniker for both genders")}


def derive_de_forms(tsv: str | Path) -> list[dict[str, str]]:
    """German occupation forms for the census templates, from BEC-Pro's ``german_m`` and
    ``german_f``: the bare singular (``ist Friseurin``) and the definite noun phrase for
    BEC-Pro's apposition pattern (``, die Friseurin,``), per gender, as the French file
    has ``m_sg``/``f_sg``; three slips corrected (:data:`_DE_FIXES`), BEC-Pro's own forms
    beside them."""
    out = []
    for rec in _bec_pro_professions(tsv):
        key, bec_m, bec_f = rec["german_m"], rec["german_m"], rec["german_f"]
        masculine, feminine, note = _DE_FIXES.get(key, (bec_m, bec_f, ""))
        out.append({"occupation": key, "m_sg": masculine, "f_sg": feminine,
                    "m_def": "der " + _WEAK_AFTER_DER.get(masculine, masculine),
                    "f_def": "die " + feminine, "m_bec_pro": bec_m, "f_bec_pro": bec_f, "note": note})
    return out


def dict_csv(rows: Iterable[dict[str, str]], columns: Sequence[str]) -> str:
    """Rows of cells in the shipped CSV format (as :func:`census_csv`)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([row[column] for column in columns])
    return out.getvalue()


def census_csv(rows: Iterable[CensusRow], columns: Sequence[str]) -> str:
    """The shipped CSV format: UTF-8, ``\\n`` line ends, minimal quoting."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_cell(getattr(row, column)) for column in columns])
    return out.getvalue()


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)  # shortest round-trip form: 29.1, not 29.100000000000001
    return str(value)
