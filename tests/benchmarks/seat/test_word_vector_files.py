"""What a word-vectors file may hold, and what WEAT says when it cannot score (issue 34 items 5, 12).

Item 5: a word listed twice used its last vector, silently (WEAT d −0.417 became 0.087); now the
first, as gensim's ``load_word2vec_format``, with a warning and the rule in the provenance, the
same in word2vec text, GloVe and binary files. Item 12: a zero vector was reported as "every
s(w, A, B) is equal", a NaN or infinite vector as out of vocabulary, a TAB-separated file as
"none of the probes could be scored", a binary header of the wrong width read as garbage words,
and ``.bin.gz`` got a misleading error.
"""

from __future__ import annotations

import gzip
import math
import struct

import numpy as np
import pytest

from biasatlas.benchmarks.seat import Weat
from biasatlas.errors import DataError
from biasatlas.pipeline import run_benchmark
from biasatlas.probes import EmbeddingProbe
from biasatlas.registry import load_scorer
from test_seat_benchmark import _planted_folder

DEGREES_X, DEGREES_Y = [5, 10, 20], [60, 70, 80, 85]


def _d(degrees_x, degrees_y) -> float:
    """Caliskan et al.'s d of targets at these angles between A (e1) and B (e2): s = cos t − sin t."""
    sx = [math.cos(math.radians(t)) - math.sin(math.radians(t)) for t in degrees_x]
    sy = [math.cos(math.radians(t)) - math.sin(math.radians(t)) for t in degrees_y]
    return float((np.mean(sx) - np.mean(sy)) / np.std(sx + sy, ddof=1))


def _row(word: str, vector) -> str:
    return f"{word} {' '.join(map(str, vector))}\n"


def _binary(rows: list[tuple[str, tuple[float, ...]]], width: int = 3) -> bytes:
    return f"{len(rows)} {width}\n".encode() + b"".join(w.encode() + b" " + struct.pack("<3f", *v) + b"\n"
                                                         for w, v in rows)


@pytest.fixture
def planted(tmp_path):
    return _planted_folder(tmp_path, DEGREES_X, DEGREES_Y)


def _twice(rows: dict) -> list[tuple[str, tuple[float, ...]]]:
    """The file's rows, then x0 again placed at 89°: were the second used, x0's s would change."""
    return [*rows.items(), ("x0", (math.cos(math.radians(89)), math.sin(math.radians(89)), 0.0))]


@pytest.mark.parametrize("form", ["word2vec", "glove", "binary"])
def test_a_word_listed_twice_keeps_its_first_vector_and_is_said(planted, tmp_path, isolated_run, capsys, form):
    folder, _, rows = planted
    listed = _twice(rows)
    path = tmp_path / ("twice.bin" if form == "binary" else "twice.txt")
    if form == "binary":
        path.write_bytes(_binary(listed))
    else:
        path.write_text((f"{len(listed)} 3\n" if form == "word2vec" else "") + "".join(_row(w, v) for w, v in listed))
    scorer = load_scorer(str(path), "word-vectors")
    run = run_benchmark(Weat(data_dir=folder, n_resamples=20), scorer)
    assert run.records[0]["d"] == pytest.approx(_d(DEGREES_X, DEGREES_Y), abs=1e-6)  # x0 at 5°, not 89°
    assert run.records[0]["d"] != pytest.approx(_d([89, *DEGREES_X[1:]], DEGREES_Y), abs=1e-3)
    said = capsys.readouterr().err
    assert said.count("'x0' is listed twice") == 1 and str(path) in said and "first vector" in said
    assert scorer.describe()["duplicates"] == "first"


def test_a_zero_vector_is_named_not_called_equal_associations(planted, tmp_path, isolated_run):
    folder, _, rows = planted
    path = tmp_path / "zero.txt"
    rows = {**rows, "y1": (0.0, 0.0, 0.0)}
    path.write_text(f"{len(rows)} 3\n" + "".join(_row(w, v) for w, v in rows.items()))
    (record,) = run_benchmark(Weat(data_dir=folder, n_resamples=20), load_scorer(str(path), "word-vectors")).records
    assert record["d"] is None
    assert "zero vector" in record["skip_reason"] and "'y1'" in record["skip_reason"]
    assert "equal" not in record["skip_reason"]


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_a_vector_that_is_not_finite_is_refused_naming_the_line(tmp_path, value):
    path = tmp_path / "v.txt"
    path.write_text(f"2 3\nman 1 2 3\nwoman 1 {value} 3\n")
    with pytest.raises(DataError) as caught:
        load_scorer(str(path), "word-vectors").score([EmbeddingProbe("a", "woman")])
    assert caught.value.path == path and "line 3" in str(caught.value) and "not finite" in str(caught.value)


def test_a_binary_vector_that_is_not_finite_is_refused(tmp_path):
    path = tmp_path / "v.bin"
    path.write_bytes(_binary([("man", (1.0, 2.0, 3.0)), ("woman", (1.0, float("nan"), 3.0))]))
    with pytest.raises(DataError, match=r"not finite.*word 2 \('woman'\)"):
        load_scorer(str(path), "word-vectors").score([EmbeddingProbe("a", "woman")])


@pytest.mark.parametrize("header", ["2 3\n", ""])
def test_a_tab_separated_file_is_refused_as_malformed(tmp_path, header):
    path = tmp_path / "v.txt"
    path.write_text(header + "man\t1\t2\t3\nwoman\t3\t2\t1\n")
    with pytest.raises(DataError) as caught:
        load_scorer(str(path), "word-vectors").score([EmbeddingProbe("a", "man")])
    assert caught.value.line == (2 if header else 1) and "a tab in the line" in str(caught.value)


def test_a_binary_header_narrower_than_its_vectors_is_refused(tmp_path):
    # 3-wide vectors under a header saying 2: read in step with the header, word 2 starts inside
    # word 1's last float, and the bytes of a third float per word are left at the end
    path = tmp_path / "v.bin"
    path.write_bytes(_binary([("man", (1.0, 2.0, 3.0)), ("woman", (3.0, 2.0, 1.0))], width=2))
    with pytest.raises(DataError, match="header's <dimensions>"):
        load_scorer(str(path), "word-vectors").score([EmbeddingProbe("a", "man")])


def test_a_binary_header_wider_than_its_vectors_is_refused(tmp_path):
    path = tmp_path / "v.bin"
    path.write_bytes(_binary([("man", (1.0, 2.0, 3.0)), ("woman", (3.0, 2.0, 1.0))]).replace(b"2 3\n", b"2 4\n", 1))
    with pytest.raises(DataError, match="header's <dimensions>"):
        load_scorer(str(path), "word-vectors").score([EmbeddingProbe("a", "man")])


def test_a_gzipped_binary_reads_as_the_binary(tmp_path):
    rows = [("man", (1.0, 2.0, 3.0)), ("woman", (3.0, 2.0, 1.0))]
    plain, packed = tmp_path / "v.bin", tmp_path / "v.bin.gz"
    plain.write_bytes(_binary(rows))
    packed.write_bytes(gzip.compress(_binary(rows)))
    probes = [EmbeddingProbe("a", "man"), EmbeddingProbe("b", "woman")]
    got = load_scorer(str(packed), "word-vectors").score(probes)
    assert {p: got[p].vector for p in got} == {p: a.vector for p, a in load_scorer(str(plain), "word-vectors")
                                              .score(probes).answers.items()}
    assert got["b"].vector == (3.0, 2.0, 1.0)


def test_a_damaged_gzip_is_refused_naming_the_file(tmp_path):
    path = tmp_path / "v.bin.gz"
    path.write_bytes(gzip.compress(_binary([("man", (1.0, 2.0, 3.0))]))[:-12])
    with pytest.raises(DataError) as caught:
        load_scorer(str(path), "word-vectors").score([EmbeddingProbe("a", "man")])
    assert caught.value.path == path and "gzip" in str(caught.value)
