"""StereoSet aggregation against the authors' own numbers (METHODS-MORE.md §1, "Proof of exactness").

The authors' per-sentence scores (``published-predictions/predictions_<model>.json``) go through
our :mod:`~biasatlas.benchmarks.stereoset.evaluation` with dev.json, and every LMS, SS, ICAT and
Count of their ``predictions.json`` (the output of their ``evaluation.py`` on those files) comes
back to 1e-9: the expected values are theirs, read from their file, not ours.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from biasatlas.benchmarks.stereoset import data, evaluation
from shared_data import shared_data_dir

FOLDER = shared_data_dir() / "stereoset"
PUBLISHED = FOLDER / "published-predictions"
MODEL_FILES = sorted(PUBLISHED.glob("predictions_*.json"))
FIELDS = {"LM Score": "lms", "SS Score": "ss", "ICAT Score": "icat", "Count": "count"}


@pytest.fixture(scope="module")
def dev() -> list[data.Example]:
    return data.read_split(FOLDER / "dev.json")


def _their_key(path: Path) -> str:
    # their evaluation.py names each result by the file name's second "_" field
    return path.name.split("_")[1]


def test_every_published_model_file_is_checked() -> None:
    published = json.loads((PUBLISHED / "predictions.json").read_text())
    assert len(MODEL_FILES) == 11
    assert sorted(_their_key(p) for p in MODEL_FILES) == sorted(published)


@pytest.mark.parametrize("path", MODEL_FILES, ids=_their_key)
def test_published_predictions_give_their_numbers(path: Path, dev: list[data.Example]) -> None:
    expected = json.loads((PUBLISHED / "predictions.json").read_text())[_their_key(path)]
    scores = data.predictions(path)
    ours = evaluation.evaluate([evaluation.outcome(e, scores) for e in dev])
    compared = 0
    for task in ("intrasentence", "intersentence"):
        table = ours[task]
        assert isinstance(table, dict)
        assert sorted(table) == sorted(expected[task])
        for domain, theirs in expected[task].items():
            for field, attribute in FIELDS.items():
                got = getattr(table[domain], attribute)
                assert got == pytest.approx(theirs[field], abs=1e-9), (task, domain, field)
                compared += 1
    overall = ours["overall"]
    assert isinstance(overall, evaluation.Scores)
    for field, attribute in FIELDS.items():
        assert getattr(overall, attribute) == pytest.approx(expected["overall"][field], abs=1e-9), field
        compared += 1
    assert compared == 2 * 5 * 4 + 4


def test_dev_counts_match_provenance(dev: list[data.Example]) -> None:
    # PROVENANCE.md: 2,106 intrasentence + 2,123 intersentence; 79 terms, each in both tasks
    intra = [e for e in dev if e.task == "intrasentence"]
    inter = [e for e in dev if e.task == "intersentence"]
    assert (len(intra), len(inter)) == (2106, 2123)
    assert set(data.terms(intra)) == set(data.terms(inter)) and len(data.terms(dev)) == 79


@pytest.mark.slow  # over a second: the full suite runs it, the fast loop does not
def test_test_split_reads_compressed(tmp_path: Path) -> None:
    examples = data.read_split(FOLDER / "test.json.gz")
    intra = sum(e.task == "intrasentence" for e in examples)
    assert (intra, len(examples) - intra) == (6392, 6374)
    assert len(data.terms(examples)) == 242


@pytest.mark.slow  # over a second: the full suite runs it, the fast loop does not
def test_split_test_finds_the_shared_compressed_copy(monkeypatch) -> None:
    # `--split test` under BIASATLAS_DATA_DIR: the shared tree holds test.json.gz, not test.json
    from biasatlas.benchmarks.stereoset import StereoSet

    monkeypatch.setenv("BIASATLAS_DATA_DIR", str(FOLDER.parent))
    examples = StereoSet(split="test", limit=3).load()
    assert len(examples) == 6  # the first 3 of each task
    assert StereoSet(split="test").path().name == "test.json.gz"


def _write(tmp_path: Path, examples: list[dict]) -> Path:
    path = tmp_path / "split.json"
    path.write_text(json.dumps({"version": "x", "data": {"intrasentence": examples, "intersentence": []}}, indent=2))
    return path


def _row(**change: object) -> dict:
    row = {"id": "e1", "target": "chess player", "bias_type": "profession", "context": "The chess player was BLANK.",
           "sentences": [{"id": f"s{i}", "sentence": f"The chess player was {w}.", "gold_label": label, "labels": []}
                         for i, (w, label) in enumerate((("asian", "stereotype"), ("hispanic", "anti-stereotype"),
                                                         ("fox", "unrelated")))]}
    row.update(change)
    return row


@pytest.mark.parametrize(("change", "field", "says"), [
    ({"bias_type": "age"}, "data.intrasentence[1].bias_type", "unknown domain 'age'"),
    ({"context": "No blank here."}, "data.intrasentence[1].context", "holds BLANK"),
    ({"sentences": []}, "data.intrasentence[1].sentences", "three sentences"),
    ({"target": ""}, "data.intrasentence[1].target", "non-empty string"),
])
def test_bad_example_names_file_line_and_field(tmp_path: Path, change: dict, field: str, says: str) -> None:
    from biasatlas.errors import DataError

    path = _write(tmp_path, [_row(), _row(id="e2", **change)])
    with pytest.raises(DataError) as caught:
        data.read_split(path)
    assert caught.value.field == field and says in str(caught.value) and caught.value.path == path
    # the line the bad example's id is on (indent=2: each example's id is where json.dumps put it)
    assert path.read_text().splitlines()[caught.value.line - 1].strip() == '"id": "e2",'


def test_duplicate_sentence_id_is_refused(tmp_path: Path) -> None:
    from biasatlas.errors import DataError

    with pytest.raises(DataError, match="duplicate id 's0'"):
        data.read_split(_write(tmp_path, [_row(), _row(id="e2")]))


def test_filler_as_the_original_reads_it(tmp_path: Path) -> None:
    # the candidate's word at the BLANK's index, every ASCII punctuation character deleted
    example = data.read_split(_write(tmp_path, [_row()]))[0]
    assert [data.filler(example, c) for c in example.candidates] == ["asian", "hispanic", "fox"]
    odd = data.Example("x", "intrasentence", "t", "gender", "She is BLANK, sometimes.", (
        data.Candidate("a", "She is senior-aged, sometimes.", "stereotype"),))
    assert data.filler(odd, odd.candidates[0]) == "senioraged"
    two = data.Example("y", "intrasentence", "t", "gender", "BLANK and BLANK.", ())
    assert data.blank_index(two.context) == 2  # the last BLANK's word, as the original's loop keeps
