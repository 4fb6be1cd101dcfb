"""The CrowS-Pairs scripts' per-pair results files (format ``crows-results``) on the real published
files of Dutch CrowS-Pairs (Strazda & Spanakis 2025): the Dutch ones keyed by the dataset's ids, the
English and French ones by row; and the join of each to its dataset. Expected values are read from
the files by plain ``csv`` code in each test, never from the reader.

The join is by id for the Dutch files because their first column is the dataset's ``id`` (which
skips 7), and a text join fails on the 10 sentences (9 pairs) whose whitespace differs between the
data and the results files, listed in :data:`WHITESPACE_DIFFERS`.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from biasatlas.benchmarks.crows_pairs.benchmark import CrowsPairs
from biasatlas.errors import DataError, UsageError
from biasatlas.scorers.predictions.crows_results import AUTHORS_MODELS, DECLARED_ENCODINGS
from biasatlas import registry
from biasatlas.scorers.predictions import files
from biasatlas.scorers.predictions.scorer import from_file
from shared_data import shared_data_dir


#: The readers as the predictions scorer has them: the generic formats and every benchmark's declared ones.
DECLARED = registry.declared_predictions()


def read(path: Path, format: str | None = None, field: str | None = None) -> files.FileAnswers:
    return files.read(path, format, field, **DECLARED)


def detect(path: Path, text: str) -> str:
    return files.detect(path, text, DECLARED["formats"])

DATA = shared_data_dir() / "crows-pairs-nl"
RESULTS = DATA / "results" / "results_mlms"
ROBBERT = RESULTS / "dutch_mlms" / "results_robbert.csv"
BERT = RESULTS / "eng_mlms" / "results_bert.csv"
CAMEMBERT = RESULTS / "french_mlms" / "results_camembert.csv"

#: The sentences whose text differs between crows_dutch.csv and the Dutch results files, found by
#: comparing the two files row by row: (pair id, field, what differs). Identical in all three files.
WHITESPACE_DIFFERS = [
    ("51", "sent_more", "no-break space"), ("51", "sent_less", "no-break space"),
    ("83", "sent_more", "trailing newline dropped"), ("110", "sent_more", "no-break space"),
    ("144", "sent_less", "no-break space"), ("153", "sent_less", "no-break space"),
    ("263", "sent_less", "no-break space"), ("369", "sent_less", "no-break space"),
    ("519", "sent_less", "no-break space"), ("1217", "sent_less", "no-break space")]


def _rows(path: Path, encoding: str = "utf-8", delimiter: str = ",") -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_bytes().decode(encoding), newline=None), delimiter=delimiter))


def test_dutch_results_file_is_keyed_by_the_datasets_ids() -> None:
    read_back = read(ROBBERT)
    rows = _rows(ROBBERT, "mac_roman")
    assert read_back.format == detect(ROBBERT, ROBBERT.read_bytes().decode("mac_roman")) == "crows-results"
    assert read_back.keys == "id" and read_back.model == "pdelobelle/robbert-v2-dutch-base"
    assert sorted(read_back.answers, key=int) == [r["id"] for r in rows] and "7" not in read_back.answers
    for row in (rows[0], rows[1324]):
        answer = read_back.answers[row["id"]]
        assert answer.values == (float(row["sent_more_score"]), float(row["sent_less_score"]))
        assert answer.texts == (row["sent_more"], row["sent_less"])
    assert read_back.answers["0"].values == (-71.596, -70.485)  # the file's first row, as printed


def test_dutch_results_are_declared_mac_roman_by_their_bytes_and_no_other_file_is() -> None:
    assert set(DECLARED_ENCODINGS.values()) == {"mac_roman"} and len(DECLARED_ENCODINGS) == 3
    assert "siësta" in " ".join(t for a in read(ROBBERT).answers.values() for t in a.texts)


def test_a_mac_roman_results_file_not_among_the_declared_is_refused(tmp_path: Path) -> None:
    edited = tmp_path / "results_mine.csv"
    edited.write_bytes(ROBBERT.read_bytes() + b"\r\n")  # other bytes: no declaration applies
    with pytest.raises(DataError, match="cannot be read as UTF-8"):
        read(edited)


@pytest.mark.parametrize(("path", "delimiter", "model"), [(BERT, ";", "bert-base-uncased"),
                                                          (CAMEMBERT, ",", "camembert-base")])
def test_english_and_french_results_are_keyed_by_row(path: Path, delimiter: str, model: str) -> None:
    read_back = read(path)
    rows = _rows(path, delimiter=delimiter)
    assert read_back.format == "crows-results" and read_back.keys == "row" and read_back.model == model
    assert list(read_back.answers) == [str(i) for i in range(len(rows))] == [r[""] for r in rows]
    assert read_back.answers["7"].texts == (rows[7]["sent_more"], rows[7]["sent_less"])


def test_the_whitespace_differences_between_data_and_results() -> None:
    from biasatlas.scorers.predictions.scorer import text_level

    data = {r["id"]: r for r in _rows(DATA / "datasets" / "crows_dutch.csv", "mac_roman")}
    for name in ("robbert", "bertje", "mbert"):
        results = {r["id"]: r for r in _rows(RESULTS / "dutch_mlms" / f"results_{name}.csv", "mac_roman")}
        found = []
        for pid, row in data.items():
            for field in ("sent_more", "sent_less"):
                ours, theirs = row[field], results[pid][field]
                if ours != theirs:
                    kind = "no-break space" if "\u00a0" in theirs else "trailing newline dropped"
                    found.append((pid, field, kind))
                    assert text_level(ours, theirs) == 1  # equal up to whitespace: the scorer's check passes
        assert found == WHITESPACE_DIFFERS, name


def test_the_id_join_answers_every_dutch_pair(isolated_run: Path) -> None:
    bench = CrowsPairs(dataset="nl")
    scorer = from_file(predictions=ROBBERT)
    probes = bench.bind(scorer.info).probes(bench.load())
    join = scorer.join(probes)
    assert (join.asked, join.missing, join.unreadable, join.extra) == (1463, (), (), ())
    scored = scorer.score(probes)
    assert not scored.unscorable


def test_a_row_keyed_file_refuses_a_subset_run(isolated_run: Path) -> None:
    bench = CrowsPairs(data=DATA / "datasets" / "crows_eng.csv", limit=10)
    scorer = from_file(predictions=BERT)
    with pytest.raises(UsageError, match="keyed by row position.*all 1,463 pairs.*asks for 10"):
        scorer.join(bench.bind(scorer.info).probes(bench.load()))


def test_a_row_join_against_the_wrong_dataset_finds_no_pair(isolated_run: Path) -> None:
    bench = CrowsPairs(data=DATA / "datasets" / "crows_french.csv")
    scorer = from_file(predictions=BERT)
    probes = bench.bind(scorer.info).probes(bench.load())
    # 1,463 rows for 1,463 pairs: the counts agree, but every French pair's sentences differ from the
    # English file's, so every answer is unreadable and the join refuses the run before it is scored
    with pytest.raises(UsageError, match="1,463 of the run's 1,463 ids.*each for one reason: the file's sentences "
                                         "are not the pair's"):
        scorer.join(probes)
    unscorable = scorer.score(probes).unscorable
    assert len(unscorable) == 1463 and set(unscorable.values()) == {"the file's sentences are not the pair's"}


def test_unreadable_scores_are_kept_with_their_line(tmp_path: Path) -> None:
    path = tmp_path / "results_robbert.csv"
    path.write_text("id,sent_more,sent_less,sent_more_score,sent_less_score,score,stereo_antistereo,bias_type\n"
                    "0,A b.,A c.,-1.5,-2.0,1,stereo,age\n1,D e.,D f.,n/a,-2.0,0,stereo,age\n"
                    "2,G h.,G i.,-1.0,-1.0,0,antistereo,age\n2,G h.,G i.,-1.0,-1.0,0,antistereo,age\n")
    answers = read(path).answers
    assert answers["0"].values == (-1.5, -2.0) and read(path).model == AUTHORS_MODELS["robbert"]
    assert answers["1"].why == "sent_more_score / sent_less_score are not both numbers" and answers["1"].line == 3
    assert answers["2"].why == "the id appears twice (lines 4 and 5)"
