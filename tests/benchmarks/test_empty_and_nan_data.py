"""The data readers refuse a file without items and a number that is NaN or infinite (issue 46 items 14, 17).

The command line's cases are tests/cli/test_cli_input_errors.py; these call each reader itself: an empty
file was read as no items (a run of nothing, exit 0) or, for DiscrimEval, ended in an IndexError later;
``json.loads`` reads ``NaN`` and ``Infinity``, which passed DiscrimEval's number check and BBQ's fields.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from biasatlas.benchmarks.bbq.data import read_bbq, read_escabbq
from biasatlas.benchmarks.discrim_eval.data import read_explicit
from biasatlas.benchmarks.seat import Seat
from biasatlas.benchmarks.stereoset.data import read_split
from biasatlas.benchmarks.winobias.data import read_occupations
from biasatlas.benchmarks.winogender.data import read_occupations as read_bls
from biasatlas.errors import DataError, MissingInput

ROW = {"filled_template": "Should the bank approve the loan?", "decision_question_id": 3, "age": 40,
       "gender": "Female", "race": "white", "fill_type": "explicit"}


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("text", ["", "\n\n", "\r\n"], ids=["empty", "blank lines", "a Windows line end"])
def test_discrim_eval_refuses_a_file_without_prompts(tmp_path, text):
    path = _write(tmp_path / "explicit.jsonl", text)
    with pytest.raises(DataError, match=rf"^file {path}: no prompts in the file$"):
        read_explicit(path)


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
def test_discrim_eval_refuses_an_age_that_is_no_finite_number(tmp_path, token):
    good = json.dumps(ROW)
    path = _write(tmp_path / "explicit.jsonl", good + "\n" + good.replace('"age": 40', f'"age": {token}') + "\n")
    where = f"file {path}, line 2, field 'age'"
    with pytest.raises(DataError, match=rf"^{where}: expected a finite number, got -?(nan|inf)$"):
        read_explicit(path)
    # a whole or fractional age is read as it is, and names the prompt's id
    assert [p.id for p in read_explicit(_write(tmp_path / "ok.jsonl", good.replace("40", "40.0")))] == \
        ["q3-a40-female-white"]


def _bbq_row(shared_data: Path, **changed: object) -> str:
    record = json.loads((shared_data / "bbq" / "Age.jsonl").read_text(encoding="utf-8").splitlines()[0])
    return json.dumps({**record, **changed})


@pytest.mark.parametrize(("field", "value", "says"), [
    ("example_id", float("nan"), "expected a finite value, got nan"),
    ("question_index", float("inf"), "expected a finite value, got inf"),
    ("label", float("nan"), "expected a finite value, got nan"),
    ("label", True, "must be 0, 1 or 2, not True"),
])
def test_bbq_refuses_a_non_finite_field_and_a_label_of_true(tmp_path, shared_data, field, value, says):
    path = _write(tmp_path / "Age.jsonl", _bbq_row(shared_data, **{field: value}) + "\n")
    with pytest.raises(DataError, match=rf"^file {path}, line 1, field '{field}': {says}$"):
        read_bbq(path, {})


def test_bbq_reads_a_label_written_as_a_float(tmp_path, shared_data):
    # 2.0 == 2: read as option 2 (it was int("2.0"): a ValueError, an internal error)
    path = _write(tmp_path / "Age.jsonl", _bbq_row(shared_data, label=2.0) + "\n")
    assert [e.label for e in read_bbq(path, {})] == [2]


def test_escabbq_fields_are_checked_the_same_way(tmp_path, shared_data):
    import gzip

    first = gzip.decompress((shared_data / "esbbq" / "Age.full.jsonl.gz").read_bytes()).decode().splitlines()[0]
    path = _write(tmp_path / "Age.full.jsonl", json.dumps({**json.loads(first), "instance_id": float("nan")}) + "\n")
    with pytest.raises(DataError, match=rf"^file {path}, line 1, field 'instance_id': expected a finite value"):
        read_escabbq(path, "esbbq")


def test_stereoset_refuses_a_split_without_examples(tmp_path):
    path = _write(tmp_path / "dev.json", json.dumps({"version": "1", "data": {"intrasentence": [],
                                                                             "intersentence": []}}))
    with pytest.raises(DataError, match=rf"^file {path}: no examples in the file"):
        read_split(path)


def test_winobias_refuses_an_empty_occupation_list(tmp_path):
    male = _write(tmp_path / "male_occupations.txt", "carpenter\n")
    female = _write(tmp_path / "female_occupations.txt", "\n")
    with pytest.raises(DataError, match=rf"^file {female}: no occupations in the file$"):
        read_occupations(male, female)


def test_winogender_refuses_a_header_without_rows(tmp_path):
    path = _write(tmp_path / "occupations-stats.tsv", "occupation\tbls_pct_female\n\n")
    with pytest.raises(DataError, match=rf"^file {path}: no rows after the header$"):
        read_bls(path)


def test_seat_refuses_a_folder_without_tests(tmp_path):
    with pytest.raises(MissingInput, match=rf"^file {tmp_path}: no SEAT test files \(\*\.jsonl\) in this folder$"):
        Seat(data_dir=tmp_path)
