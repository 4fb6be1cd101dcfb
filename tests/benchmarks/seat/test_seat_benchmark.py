"""SEAT/WEAT as benchmarks: the test files, word-vector files, OOV words reported, planted vectors
recovered through the whole pipeline, the scorer refusal, and the run folder's read-back."""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path

import numpy as np
import pytest

from biasatlas.benchmarks.seat import Seat, Weat
from biasatlas.benchmarks.seat.data import FILES, read_test
from biasatlas.benchmarks.seat.summary import SeatRunSummary
from biasatlas.errors import DataError, UnknownName, UnsupportedProbe
from biasatlas.hashing import sha256_file
from biasatlas.pipeline import run_benchmark
from biasatlas.probes import ScorerInfo
from biasatlas.registry import load_scorer
from biasatlas.runs.typed import encode


def test_every_shared_test_file_reads_and_matches_its_checksum(shared_data):
    for name, spec in FILES.items():
        path = shared_data / "seat" / spec.name
        assert sha256_file(path) == spec.sha256, name
        test = read_test(path, name)
        assert len(test.x.examples) == len(test.y.examples) > 1
    assert len(FILES) == 50


@pytest.mark.parametrize("body,field", [
    ({"targ1": {"examples": ["a", "b"]}}, "targ2"),
    ({r: {"examples": ["a", "b"]} for r in ("targ1", "targ2", "attr1")} | {"attr2": {"examples": []}},
     "attr2.examples"),
    ({r: {"examples": ["a", "a"]} for r in ("targ1", "targ2", "attr1", "attr2")}, "targ1.examples"),
    ({"targ1": {"examples": ["a", "b"]}, "targ2": {"examples": ["c"]}, "attr1": {"examples": ["d"]},
      "attr2": {"examples": ["e"]}}, "targ2.examples"),
])
def test_a_bad_test_file_names_its_file_and_field(tmp_path, body, field):
    path = tmp_path / "mine.jsonl"
    path.write_text(json.dumps(body))
    with pytest.raises(DataError) as caught:
        read_test(path)
    assert caught.value.field == field and caught.value.path == path


def test_a_test_file_that_is_not_json_names_its_line(tmp_path):
    path = tmp_path / "mine.jsonl"
    path.write_text('{\n  "targ1": ,\n}')
    with pytest.raises(DataError) as caught:
        read_test(path)
    assert caught.value.line == 2


def test_an_unknown_test_name_says_what_is_close():
    with pytest.raises(UnknownName, match="weat6"):
        Seat(tests="weat66")


def test_likelihood_scorers_are_refused_before_any_load():
    with pytest.raises(UnsupportedProbe, match="--scorer encoder"):
        Seat().bind(ScorerInfo(kind="masked-lm", reads="masked", multi_token="joint"))


def test_each_embedding_scorer_is_refused_by_the_test_it_cannot_mean():
    # WEAT on an encoder would pool nothing ("pooling 'word' unknown", after the model loaded);
    # SEAT on word vectors would look whole sentences up as words
    with pytest.raises(UnsupportedProbe, match="biasatlas run seat --tests weat1"):
        Weat().bind(ScorerInfo(kind="encoder", reads="embedding"))
    with pytest.raises(UnsupportedProbe, match="biasatlas run weat --scorer word-vectors"):
        Seat().bind(ScorerInfo(kind="word-vectors", reads="embedding"))
    assert Weat().bind(ScorerInfo(kind="word-vectors", reads="embedding")).scorer.kind == "word-vectors"
    assert Seat().bind(ScorerInfo(kind="encoder", reads="embedding")).scorer.kind == "encoder"


# -- planted vectors through the pipeline ---------------------------------------------------------
def _planted_folder(tmp_path: Path, degrees_x, degrees_y):
    """A test file with X, Y, A, B and a word2vec text file placing each word: A along e1, B along
    e2, a target at angle t in their plane (s = cos t − sin t). ``zz``, the last of X, has no
    vector (so pass one more angle for Y than for X: the file's |X| = |Y|)."""
    words = {f"x{i}": t for i, t in enumerate(degrees_x)} | {f"y{i}": t for i, t in enumerate(degrees_y)}
    test = {"targ1": {"category": "X", "examples": [f"x{i}" for i in range(len(degrees_x))] + ["zz"]},
            "targ2": {"category": "Y", "examples": [f"y{i}" for i in range(len(degrees_y))]},
            "attr1": {"category": "A", "examples": ["a0", "a1", "a2"]},
            "attr2": {"category": "B", "examples": ["b0", "b1"]}}
    folder = tmp_path / "tests"
    folder.mkdir()
    (folder / "planted.jsonl").write_text(json.dumps(test))
    rows = {w: (math.cos(math.radians(t)), math.sin(math.radians(t)), 0.0) for w, t in words.items()}
    rows |= {f"a{i}": (1.0 + i, 0.0, 0.0) for i in range(3)} | {f"b{i}": (0.0, 2.0 - i / 2, 0.0) for i in range(2)}
    vectors = tmp_path / "vectors.txt"
    vectors.write_text(f"{len(rows)} 3\n" + "".join(f"{w} {' '.join(map(str, v))}\n" for w, v in rows.items()))
    return folder, vectors, rows


def test_planted_vectors_give_the_planted_d_and_the_oov_word_is_reported(tmp_path, isolated_run):
    degrees_x, degrees_y = [5, 10, 20, 30], [50, 60, 65, 70, 85]
    folder, vectors, _ = _planted_folder(tmp_path, degrees_x, degrees_y)
    run = run_benchmark(Weat(data_dir=folder, n_resamples=50), load_scorer(str(vectors), "word-vectors"))
    sx = [math.cos(math.radians(t)) - math.sin(math.radians(t)) for t in degrees_x]
    sy = [math.cos(math.radians(t)) - math.sin(math.radians(t)) for t in degrees_y]
    planted = (np.mean(sx) - np.mean(sy)) / np.std(sx + sy, ddof=1)
    (record,) = run.records
    assert record["d"] == pytest.approx(planted, abs=1e-9)
    # every x above every y: of the C(9, 4) = 126 ways to pick 4 of the 9 words left as X, only
    # the observed one reaches S (|X| = 4 ≠ |Y| = 5 once zz is out): p = 1/126
    assert record["p"] == pytest.approx(1 / 126) and record["p_method"] == "exact" and record["partitions"] == 126
    assert record["oov"]["targ1"] == ["zz"] and record["n_targ1"] == 4 and run.summary["oov_words"] == ["zz"]
    assert {"id": "planted:targ1:4", "reason": "out of vocabulary"} in run.skipped
    assert record["p_holm"] == record["p"]  # one test: Holm leaves it
    # the typed summary is what was written: read back and encoded again, the same keys, order and values
    typed = SeatRunSummary.read(run.summary, Path("summary.json"))
    written = {key: run.summary[key] for key in encode(SeatRunSummary())}
    assert json.dumps(encode(typed)) == json.dumps(written) and "partitions" in written["tests"]["planted"]


def test_lowercase_fallback_is_recorded(tmp_path, isolated_run):
    folder, vectors, _ = _planted_folder(tmp_path, [5, 10], [60, 70, 80])
    test = json.loads((folder / "planted.jsonl").read_text())
    test["targ1"]["examples"][0] = "X0"  # the file holds x0 only
    (folder / "planted.jsonl").write_text(json.dumps(test).replace('"x0"', '"X0"'))
    scorer = load_scorer(str(vectors), "word-vectors")
    exact = run_benchmark(Weat(data_dir=folder, n_resamples=20), scorer).records[0]
    fallback = run_benchmark(Weat(data_dir=folder, n_resamples=20, lowercase=True), scorer).records[0]
    assert exact["oov"]["targ1"] == ["X0", "zz"] and exact["n_targ1"] == 1
    assert fallback["lowercased"]["targ1"] == ["X0"] and fallback["n_targ1"] == 2 and fallback["oov"]["targ1"] == ["zz"]


@pytest.mark.slow  # over a second: the full suite runs it, the fast loop does not
def test_glove_and_word2vec_binary_read_the_same_vectors(tmp_path, isolated_run):
    folder, vectors, rows = _planted_folder(tmp_path, [5, 10, 20], [60, 70, 80, 85])
    glove = tmp_path / "glove.txt"
    glove.write_text("".join(f"{w} {' '.join(map(str, v))}\n" for w, v in rows.items()))
    binary = tmp_path / "vectors.bin"
    payload = b"".join(w.encode() + b" " + struct.pack("<3f", *v) + b"\n" for w, v in rows.items())
    binary.write_bytes(f"{len(rows)} 3\n".encode() + payload)
    d = {path.name: run_benchmark(Weat(data_dir=folder, n_resamples=20), load_scorer(str(path), "word-vectors"))
         .records[0]["d"] for path in (vectors, glove, binary)}
    assert d["glove.txt"] == d["vectors.txt"]
    assert d["vectors.bin"] == pytest.approx(d["vectors.txt"], abs=1e-6)  # float32 in the binary


def test_a_bad_vectors_line_names_the_file_and_line(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text("2 3\nman 1 2 3\nwoman 1 2\n")
    from biasatlas.probes import EmbeddingProbe

    with pytest.raises(DataError) as caught:
        load_scorer(str(path), "word-vectors").score([EmbeddingProbe("a", "man")])
    assert caught.value.line == 3 and caught.value.path == path


# -- the shared data: WEAT 1–10 on the GoogleNews word2vec words --------------------------------
@pytest.mark.slow  # about a second: the full suite runs it, the fast loop does not
def test_weat_on_the_shared_word2vec_words_reports_every_oov_word(shared_data, isolated_run):
    vectors = shared_data / "weat" / "weat_w2v.txt"
    run = run_benchmark(Weat(n_resamples=100, n_samples=20_000), load_scorer(str(vectors), "word-vectors"))
    by_test = {r["test"]: r for r in run.records}
    assert list(by_test) == [f"weat{i}" for i in range(1, 11)]
    assert by_test["weat2"]["oov"]["targ2"] == ["axe"]  # the one weapon the file lacks
    # the file holds the race tests' names lower-cased only: those tests are not scored without --lowercase
    assert by_test["weat3"]["d"] is None and by_test["weat3"]["n_oov"] == 61
    # weat6, the 8 male/female names and career/family words, all present: exact p over C(16, 8)
    assert by_test["weat6"]["partitions"] == 12870 and by_test["weat6"]["d"] > 1.5
    summary = SeatRunSummary.read(run.summary, Path("summary.json"))
    assert summary.n_oov == sum(r["n_oov"] for r in run.records) and "axe" in summary.oov_words
