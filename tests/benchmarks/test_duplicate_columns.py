"""A CSV or TSV header that names a column twice is refused by every reader, naming the
file and the column (issue 21, item 5): ``csv.DictReader`` would read the last copy."""

from __future__ import annotations

from pathlib import Path

import pytest

from biasatlas.benchmarks.census.derive import derive_no_ssb
from biasatlas.benchmarks.census.language import read_predicates
from biasatlas.benchmarks.census.table import parse_census_csv
from biasatlas.benchmarks.crows_pairs.benchmark import read_pairs
from biasatlas.benchmarks.zh_neutral.data import read_items
from biasatlas.errors import DataError
from biasatlas.mining.annotate import import_labels


def refused(call, path: Path, column: str) -> None:
    with pytest.raises(DataError) as info:
        call(path)
    assert (str(info.value.path), info.value.line, info.value.field) == (str(path), 1, column)
    assert "twice" in str(info.value) and str(path) in str(info.value)


def test_a_census_table_with_two_share_columns_is_refused(tmp_path):
    # Read from the last copy, nurse/plumber/teacher came out 3 female and 0 male; from the
    # first, 1 female, 2 male. Neither is a guess the reader may make.
    data = (b"occupation,female_pct,total_employed,Female_pct\n"
            b"nurse,90,1000,10\nplumber,2,1000,90\nteacher,30,1000,80\n")
    with pytest.raises(DataError) as info:
        parse_census_csv(data, source="t.csv", name="t")
    assert (info.value.path, info.value.field) == ("t.csv", "female_pct")
    assert "columns 2 and 4" in str(info.value)


def test_a_crows_pairs_file_with_two_sentence_columns_is_refused(tmp_path):
    path = tmp_path / "pairs.csv"
    path.write_text(",sent_more,sent_less,stereo_antistereo,bias_type,sent_more\n"
                    "0,She is here.,He is here.,stereo,gender,Nobody is here.\n", encoding="utf-8")
    refused(read_pairs, path, "sent_more")


def test_a_crows_pairs_file_with_two_blank_id_columns_is_refused(tmp_path):
    path = tmp_path / "pairs.tsv"
    path.write_text("\tsent_more\tsent_less\tstereo_antistereo\tbias_type\t\n"
                    "0\tShe is here.\tHe is here.\tstereo\tgender\t7\n", encoding="utf-8")
    refused(read_pairs, path, "")


def test_the_crows_pairs_layout_with_one_blank_id_column_still_reads(tmp_path):
    path = tmp_path / "pairs.csv"
    path.write_text(",sent_more,sent_less,stereo_antistereo,bias_type\n"
                    "0,She is here.,He is here.,stereo,gender\n", encoding="utf-8")
    assert [p.id for p in read_pairs(path)] == ["0"]


@pytest.mark.parametrize("suffix,sep", [(".csv", ","), (".tsv", "\t")])
def test_a_zh_neutral_table_with_two_keyword_columns_is_refused(tmp_path, suffix, sep):
    path = tmp_path / f"items{suffix}"
    header = sep.join(["id", "sentence", "keyword", "offset", "pair", "keyword"])
    path.write_text(header + "\n" + sep.join(["1", "他来了。", "他", "0", "他/她", "来"]) + "\n",
                    encoding="utf-8")
    refused(read_items, path, "keyword")


def test_a_language_file_with_two_text_columns_is_refused(tmp_path):
    path = tmp_path / "predicates.csv"
    path.write_text("id,number,tense,text,text\np1,sg,present,works as,is\n", encoding="utf-8")
    refused(read_predicates, path, "text")


def test_an_annotation_file_with_two_label_columns_is_refused(tmp_path):
    path = tmp_path / "annotator_1.csv"
    path.write_text("id,neutral,neutral\nabc,1,0\n", encoding="utf-8")
    refused(lambda p: import_labels(p, ["abc"]), path, "neutral")


def test_a_source_file_for_a_shipped_table_with_two_share_columns_is_refused(tmp_path):
    path = tmp_path / "gold.csv"
    path.write_text("occupations,female,female\nlege,50,10\n", encoding="utf-8")
    refused(derive_no_ssb, path, "female")
