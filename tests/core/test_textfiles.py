"""The one text-reading policy (biasatlas.textfiles): UTF-8, a leading BOM dropped,
anything else refused naming file, line and byte offset; and the readers that use it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from biasatlas.errors import DataError
from biasatlas.mining.lexicon import load_pairs
from biasatlas.mining.sources import plan_shards, read_documents
from biasatlas.textfiles import decode_line, decode_text, read_text


@given(st.text())
def test_any_utf8_text_round_trips_with_or_without_a_bom(text):
    data = text.encode("utf-8")
    # U+FEFF at the very start of a file is a BOM, not content: exactly one is dropped.
    assert decode_text(data, path="f") == text.removeprefix("\ufeff")
    assert decode_text(b"\xef\xbb\xbf" + data, path="f") == text


def test_the_first_bad_byte_is_located_by_line_and_offset():
    data = b"header\nok line\nCaf\xe9\n"  # Latin-1 "Café": 0xE9 at offset 18 on line 3
    with pytest.raises(DataError) as info:
        decode_text(data, path="pairs.csv")
    assert (info.value.path, info.value.line) == ("pairs.csv", 3)
    assert str(info.value) == ("file pairs.csv, line 3: not UTF-8 text (byte 0xE9 at offset 18): "
                               "save it as UTF-8")


@pytest.mark.parametrize("data", [
    "他来了。".encode("gbk"),
    "Maître".encode("utf-16"),  # starts with the UTF-16 BOM FF FE
    "Œuvre".encode()[:1],  # a multi-byte sequence cut short
], ids=["gbk", "utf-16", "truncated"])
def test_other_encodings_are_refused_never_guessed(data):
    with pytest.raises(DataError, match="not UTF-8 text"):
        decode_text(data, path="f")


def test_a_declared_encoding_is_used_strictly():
    assert decode_text(b"Ma\x9ctre", path="f", encoding="cp1252") == "Maœtre"
    with pytest.raises(DataError, match="not cp1252 text \\(byte 0x81 at offset 0\\)"):
        decode_text(b"\x81", path="f", encoding="cp1252")  # undefined in Windows-1252
    with pytest.raises(ValueError, match="unknown encoding"):
        decode_text(b"x", path="f", encoding="no-such-codec")


def test_decode_line_counts_from_its_place_in_the_file_and_keeps_a_later_feff():
    with pytest.raises(DataError) as info:
        decode_line(b"ab\xff\n", path="corpus.txt", line=7, offset=1000)
    assert info.value.line == 7 and "offset 1002" in str(info.value)
    assert decode_line("\ufeffx".encode(), path="f", line=2, offset=5) == "\ufeffx"


def test_read_text_names_missing_and_folder_paths(tmp_path):
    with pytest.raises(DataError, match="file not found"):
        read_text(tmp_path / "absent.csv")
    with pytest.raises(DataError, match="a folder, not a file"):
        read_text(tmp_path)


def test_a_corpus_with_a_bad_byte_stops_mining_naming_line_and_offset(tmp_path):
    corpus = tmp_path / "news.txt"
    corpus.write_bytes("他是老师。\n".encode() + b"bad \xff byte\n")
    shards = plan_shards([str(corpus)], 1 << 20)
    with pytest.raises(DataError) as info:
        [d for s in shards for d in read_documents(s)]
    first_line = len("他是老师。\n".encode())
    assert info.value.line == 2 and f"offset {first_line + 4}" in str(info.value)


def test_a_keyword_pair_file_in_gbk_is_a_data_error(tmp_path):
    path = tmp_path / "pairs.txt"
    path.write_bytes("他/她\n爸爸/妈妈\n".encode("gbk"))
    with pytest.raises(DataError, match="not UTF-8 text") as info:
        load_pairs(path)
    assert info.value.line == 1
