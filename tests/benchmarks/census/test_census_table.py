"""Census tables: the shipped copies, their derivation, and user-table validation."""

from __future__ import annotations

import csv
from importlib import resources
from pathlib import Path

import pytest

from biasatlas.benchmarks.census import load_census
from biasatlas.benchmarks.census.table import US_CATCH_ALL_PATTERN
from biasatlas.errors import DataError, UnknownName

SHARED = Path(__file__).resolve().parents[4] / "shared" / "data" / "census-occupations"
needs_shared = pytest.mark.skipif(not SHARED.is_dir(), reason="shared data copies not present")
TABLES = resources.files("biasatlas.benchmarks.census").joinpath("tables")


def classes(pcts):
    """Count census classes with the paper's 45/55 bounds, inclusive for balanced."""
    female = sum(p > 55 for p in pcts)
    male = sum(p < 45 for p in pcts)
    return female, male, len(pcts) - female - male


def test_shipped_counts_and_classes():
    us_all = load_census("us", drop_catch_alls=False)
    assert (len(us_all), len(load_census("us")), len(load_census("fr")),
            len(load_census("no"))) == (354, 314, 225, 417)
    # Class counts stated in the PROVENANCE files (45 <= f <= 55 counted as balanced).
    assert classes([r.female_pct for r in load_census("no")]) == (142, 229, 46)
    assert classes([r.female_pct for r in load_census("fr")]) == (59, 140, 26)
    assert classes([r.female_pct for r in us_all]) == (147, 161, 46)


def test_us_catch_all_filter_drops_the_forty_residual_rows():
    table = load_census("us")
    assert len(table.dropped) == 40
    assert "Managers, all other" in table.dropped and "Helpers--production workers" in table.dropped
    assert not any(US_CATCH_ALL_PATTERN.search(o) for o in table.occupations)
    # "and other" inside a title is not a catch-all: it stays.
    assert "Farmers, ranchers, and other agricultural managers" in table.occupations


def test_paper_table1_top5_come_out_of_the_us_table():
    rows = sorted(load_census("us"), key=lambda r: -r.female_pct)
    assert {r.occupation for r in rows[:3]} == {
        "Skincare specialists", "Preschool and kindergarten teachers",
        "Executive secretaries and executive administrative assistants"}
    # Cement masons 0.0 %, the lowest share once "Other extraction workers" is filtered.
    assert rows[-1].occupation.startswith("Cement masons") and rows[-1].female_pct == 0.0


def test_builtin_tables_carry_language_and_provenance():
    table = load_census("fr")
    assert table.language == "fr" and len(table.sha256) == 64
    assert table.rows[0].source_code == "A0Z00" and table.rows[0].total_employed == 144101
    assert load_census("US").name == "us"  # country codes are case-insensitive


def test_unknown_and_uk_tables_explain_themselves():
    with pytest.raises(UnknownName, match="APS168"):
        load_census("uk")
    with pytest.raises(UnknownName, match="Did you mean 'us'"):
        load_census("usa")


@needs_shared
@pytest.mark.parametrize("name,derive", [
    ("us_bls_2021.csv", "us"), ("fr_dares_2017_2019.csv", "fr"), ("no_ssb.csv", "no")])
def test_shipped_tables_rebuild_from_the_shared_copies(name, derive):
    from biasatlas.benchmarks.census import derive as d

    if derive == "us":
        pytest.importorskip("openpyxl")
        text = d.census_csv(d.derive_us_bls(SHARED / "us_bls_cpsaat11_2021/cpsaat11_2021.xlsx"),
                            d.US_COLUMNS)
    elif derive == "fr":
        folder = SHARED / "fr_dares_psm_2017-2019"
        text = d.census_csv(d.derive_fr_dares(folder / "part_femmes_3niv.csv",
                                              folder / "effectifs_3niv.csv"), d.FR_COLUMNS)
    else:
        text = d.census_csv(d.derive_no_ssb(SHARED / "no_gebnlp2022/gender_equality_NSB.csv"),
                            d.NO_COLUMNS)
    assert text == TABLES.joinpath(name).read_text(encoding="utf-8")


@needs_shared
@pytest.mark.parametrize("country,shared,female_col", [
    ("us", "us_bls_cpsaat11_2021/occupations.csv", "female_pct"),
    ("fr", "fr_dares_psm_2017-2019/occupations.csv", "female_pct"),
    ("no", "no_gebnlp2022/gender_equality_NSB.csv", "female")])
def test_shipped_tables_equal_the_shared_normalised_files(country, shared, female_col):
    with open(SHARED / shared, encoding="utf-8", newline="") as handle:
        ref = [(" ".join(rec.get("occupation", rec.get("occupations")).split()),
                float(rec[female_col])) for rec in csv.DictReader(handle)]
    ours = [(r.occupation, r.female_pct) for r in load_census(country, drop_catch_alls=False)]
    assert ours == ref


# --- user tables -------------------------------------------------------------------------

def write(tmp_path, data: bytes | str, name="table.csv") -> Path:
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


def test_user_table_minimal_columns_and_extras(tmp_path):
    path = write(tmp_path, "occupation,female_pct,notes\nnurse,88.5,x\n  baker , 40,\n\n")
    table = load_census(path, language="en")
    assert table.occupations == ("nurse", "baker") and table.language == "en"
    assert table.rows[1].female_pct == 40.0 and table.rows[1].line == 3
    assert table.name == "table" and table.source == str(path)


def test_user_table_accepts_a_bom_and_refuses_cp1252(tmp_path):
    bom = write(tmp_path, b"\xef\xbb\xbfoccupation,female_pct\nInfirmi\xc3\xa8re,90\n", "bom.csv")
    assert load_census(bom).occupations == ("Infirmière",)
    # cp1252 "Maœtre d'œuvre": 0x9C is "œ". Refused (README, bad input: re-save as UTF-8);
    # the error names line 2 and the byte's offset (22 bytes of header, then "Ma").
    win = write(tmp_path, b"occupation,female_pct\nMa\x9Ctre d'\x9Cuvre,10\n", "win.csv")
    with pytest.raises(DataError, match=r"not UTF-8 text \(byte 0x9C at offset 24\)") as info:
        load_census(win)
    assert (info.value.path, info.value.line) == (str(win), 2)


@pytest.mark.parametrize("text,line,field,message", [
    ("occupation,share\nnurse,50\n", 1, "female_pct", "missing column 'female_pct'"),
    ("occupation;female_pct\nnurse;50\n", 1, "occupation", "semicolon"),
    ("occupation,female_pct\nnurse,fifty\n", 2, "female_pct", "not a number"),
    ("occupation,female_pct\nnurse,47,5\n", 2, None, "3 fields where the header has 2"),
    ("occupation,female_pct\nnurse,100.5\n", 2, "female_pct", "outside 0-100"),
    ("occupation,female_pct\nnurse,-1\n", 2, "female_pct", "outside 0-100"),
    ("occupation,female_pct\nnurse,nan\n", 2, "female_pct", "outside 0-100"),
    ("occupation,female_pct\n,50\n", 2, "occupation", "empty occupation"),
    ("occupation,female_pct\nNurse,50\nbaker,3\nnurse,60\n", 4, "occupation",
     "duplicate occupation 'nurse' \\(first on line 2\\)"),
    ("occupation,female_pct,total_employed\nnurse,50,many\n", 2, "total_employed",
     "not a whole number"),
])
def test_bad_rows_name_file_line_and_field(tmp_path, text, line, field, message):
    path = write(tmp_path, text)
    with pytest.raises(DataError, match=message) as info:
        load_census(path)
    assert (info.value.path, info.value.line, info.value.field) == (str(path), line, field)
    assert str(path) in str(info.value)


@pytest.mark.parametrize("text", ["", "\n", "occupation,female_pct\n", "occupation,female_pct\n\n"])
def test_empty_files_are_data_errors(tmp_path, text):
    with pytest.raises(DataError, match="empty file|no data rows"):
        load_census(write(tmp_path, text))


def test_undecodable_file_is_a_data_error(tmp_path):
    with pytest.raises(DataError, match="not UTF-8 text"):
        load_census(write(tmp_path, b"occupation,female_pct\n\x81\x81,3\n"))


def test_inflection_file_in_cp1252_is_refused(tmp_path):
    from biasatlas.benchmarks.census.language import load_language

    path = tmp_path / "inflections.csv"
    path.write_bytes("occupation,singular\nMaître,maître\n".encode("cp1252"))
    with pytest.raises(DataError, match="not UTF-8 text") as info:
        load_language("fr", inflections=path)
    assert info.value.line == 2 and str(path) in str(info.value)


@pytest.mark.parametrize("name", ["no_ssb.csv", "fr_dares_2017_2019.csv", "us_bls_2021.csv"])
def test_the_occupation_name_normalisation_changes_no_shipped_name(name):
    """normalise_name (NFC, trimmed, inner whitespace collapsed) is a join key for user tables;
    every shipped occupation is already in that form, so the text scored is the table's own."""
    from biasatlas.benchmarks.census.table import normalise_name

    with TABLES.joinpath(name).open(encoding="utf-8-sig", newline="") as handle:
        names = [row["occupation"] for row in csv.DictReader(handle)]
    assert len(names) > 200 and [normalise_name(n) for n in names] == names


@pytest.mark.parametrize("language", ["en", "fr", "no"])
def test_the_key_normalisation_changes_no_cell_of_the_shipped_language_files(language):
    from biasatlas.benchmarks.census.table import normalise_name

    folder = resources.files("biasatlas.benchmarks.census").joinpath("lang", language)
    cells = [cell for f in folder.iterdir() if f.name.endswith(".csv")
             for row in csv.reader(f.read_text(encoding="utf-8").splitlines()) for cell in row]
    assert len(cells) > 100 and [normalise_name(c) for c in cells] == cells


@needs_shared
def test_the_gebnlp_names_are_scored_as_the_gebnlp_code_read_them():
    """GeBNLP 2022's 417 Norwegian occupations, as its file stores them, are unchanged by it."""
    from biasatlas.benchmarks.census.table import normalise_name

    with open(SHARED / "no_gebnlp2022" / "gender_equality_NSB.csv", encoding="utf-8") as handle:
        names = [row["occupations"] for row in csv.DictReader(handle)]
    assert len(names) == 417 and [normalise_name(n) for n in names] == names
