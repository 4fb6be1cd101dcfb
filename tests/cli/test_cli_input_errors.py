"""Inputs the command line refuses in one line naming the file (issue 46 items 8, 11, 14 and 17).

Each case runs :func:`biasatlas.cli.main` in this process with ``--model fake`` and checks the exit status
(1: a file whose contents cannot be used; 2: a usage mistake), that stderr is the one ``error:`` line naming
the file (and line and field where there is one), and that no traceback or internal error was printed:

- a ``--chat-template FILE`` that is not Jinja, not UTF-8, refused by the sandbox, naming another template,
  naming what is not there, or running on (two nested ``range(100000)`` loops): before, each was an
  ``internal error: <jinja2 exception>`` or a run that never ended;
- an empty ``--data`` of every benchmark that takes one: before, DiscrimEval's was an IndexError, and BBQ's
  (en, esbbq, cabbq, kobbq, mbbq, cbbq), StereoSet's, WinoBias's and Winogender's a run of nothing that exited
  0 ("not computed");
- a number that is NaN or infinite (``json.loads`` reads ``NaN`` and ``Infinity``): a DiscrimEval age, before
  scored as a person of age "nan" with every coefficient null; a BBQ example id, before the id ``Age/nan``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

import biasatlas.cli as cli

NESTED = "{% for i in range(100000) %}\n{% for j in range(100000) %}x{% endfor %}{% endfor %}"


@pytest.fixture()
def tmp(tmp_path, monkeypatch, shared_data) -> Path:
    monkeypatch.setenv("BIASATLAS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("BIASATLAS_DATA_DIR", str(shared_data))
    return tmp_path


def _refused(argv: list[str], capsys) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exited:
        cli.main([*argv, "--model", "fake"])
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" not in err, err
    assert len(err.strip().splitlines()) == 1 and err.startswith("error: "), err
    code = exited.value.code
    return (code if isinstance(code, int) else 0), err.strip().removeprefix("error: ")


def _template(tmp: Path, text: str | bytes) -> Path:
    path = tmp / "chat.jinja"
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


# (case, template, its line, a fragment of the message)
TEMPLATES = [
    ("syntax error", "{% for m in messages %}\n{{ m.content }\n{% endfor %}", 2, "not a Jinja chat template"),
    ("not UTF-8", b"\xff\xfe{\x00{\x00", 1, "not UTF-8 text (byte 0xFF at offset 0)"),
    ("sandbox SecurityError", "{{ messages.__class__.__mro__ }}", 1, "SecurityError: access to attribute '__class__'"),
    ("include", "{% include 'system.jinja' %}", 1, "{% include %} reads another template"),
    ("undefined name", "{{ bos_token }}\n{{ nothing.at.all }}", 2, "UndefinedError: 'nothing' is undefined"),
    ("two nested range(100000) loops", NESTED, 2, "did not finish within 100,000 steps"),
]


@pytest.mark.parametrize("benchmark", [["discrim-eval", "--scenarios", "2"], ["bbq", "--category", "Age"]],
                         ids=["discrim-eval", "bbq"])
@pytest.mark.parametrize(("text", "line", "says"), [c[1:] for c in TEMPLATES], ids=[c[0] for c in TEMPLATES])
def test_a_bad_chat_template_is_one_line_naming_the_file_and_line(tmp, capsys, benchmark, text, line, says):
    path = _template(tmp, text)
    code, said = _refused(["run", *benchmark, "--chat-template", str(path)], capsys)
    assert code == 1
    assert said.startswith(f"file {path}, line {line}: ") and says in said, said


def _bbq_en(tmp: Path, shared: Path) -> Path:
    (tmp / "Age.jsonl").write_text("", encoding="utf-8")
    header = (shared / "bbq" / "additional_metadata.csv").read_text(encoding="utf-8").splitlines()[0]
    (tmp / "additional_metadata.csv").write_text(header + "\n", encoding="utf-8")
    return tmp / "Age.jsonl"


def _one_empty(name: str, *others: str, text: str = "") -> Callable[[Path, Path], Path]:
    """A data folder holding ``name`` empty (or ``text``), and ``others`` copied from the shared data."""
    def build(tmp: Path, shared: Path) -> Path:
        for other in others:
            (tmp / Path(other).name).write_bytes((shared / other).read_bytes())
        (tmp / name).write_text(text, encoding="utf-8")
        return tmp / name
    return build


WINOBIAS = [f"{kind}_stereotyped_type{t}.txt.{split}" for kind in ("pro", "anti") for t in (1, 2)
            for split in ("test", "dev")]
KOBBQ_HEADER = "sample_id\tcontext\tquestion\tchoices\tbiased_answer\tanswer\n"
CBBQ_HEADER = ("example_id,question_index,question_polarity,context_condition,category,subcategory,"
               "bias_targeted_groups,source,context,question,ans0,ans1,ans2,label\n")
# (case, the command's arguments before --data FOLDER-or-FILE, the data's builder → the file named, exit, message)
EMPTY = [
    ("discrim-eval", ["discrim-eval"], "file", lambda t, s: _one_empty("explicit.jsonl")(t, s), 1,
     "no prompts in the file"),
    ("bbq en", ["bbq", "--dataset", "en", "--category", "Age"], "folder", _bbq_en, 1, "no examples in the file"),
    ("bbq esbbq", ["bbq", "--dataset", "esbbq", "--category", "Age"], "folder", _one_empty("Age.full.jsonl"), 1,
     "no examples in the file"),
    ("bbq cabbq", ["bbq", "--dataset", "cabbq", "--category", "Age"], "folder", _one_empty("Age.full.jsonl"), 1,
     "no examples in the file"),
    ("bbq kobbq", ["bbq", "--dataset", "kobbq"], "folder", _one_empty("KoBBQ_test_samples.tsv", text=KOBBQ_HEADER),
     1, "no examples in the file"),
    ("bbq mbbq", ["bbq", "--dataset", "mbbq-en", "--category", "Age", "--no-control"], "folder",
     _one_empty("Age_en.jsonl"), 1, "no examples in the file"),
    ("bbq cbbq", ["bbq", "--dataset", "cbbq"], "folder",
     _one_empty("ambiguous.csv", "zh-cbbq-gender/disambiguous.csv", text=CBBQ_HEADER), 1, "no examples in the file"),
    ("stereoset", ["stereoset"], "file",
     _one_empty("dev.json", text=json.dumps({"version": "1", "data": {"intrasentence": [], "intersentence": []}})),
     1, "no examples in the file (data.intrasentence and data.intersentence are empty)"),
    ("winobias", ["winobias"], "folder",
     _one_empty(WINOBIAS[0], *(f"winobias/{n}" for n in [*WINOBIAS[1:], "male_occupations.txt",
                                                         "female_occupations.txt"])), 1, "no sentences in the file"),
    ("winobias occupations", ["winobias"], "folder",
     _one_empty("female_occupations.txt", *(f"winobias/{n}" for n in [*WINOBIAS, "male_occupations.txt"])), 1,
     "no occupations in the file"),
    ("winogender", ["winogender"], "folder",
     _one_empty("all_sentences.tsv", "winogender/templates.tsv", "winogender/occupations-stats.tsv",
                text="sentid\tsentence\n"), 1, "no rows after the header"),
]


@pytest.mark.parametrize(("args", "given", "build", "status", "says"), [c[1:] for c in EMPTY],
                         ids=[c[0] for c in EMPTY])
def test_empty_data_is_one_line_naming_the_file(tmp, shared_data, capsys, args, given, build, status, says):
    folder = tmp / "data"
    folder.mkdir()
    empty = build(folder, shared_data)
    code, said = _refused(["run", *args, "--data", str(empty if given == "file" else folder)], capsys)
    assert (code, said) == (status, f"file {empty}: {says}")


def test_a_seat_folder_without_tests_is_refused_naming_it(tmp, capsys):
    folder = tmp / "seat"
    folder.mkdir()
    (folder / "README.md").write_text("no tests here\n", encoding="utf-8")
    code, said = _refused(["run", "seat", "--data-dir", str(folder)], capsys)
    assert (code, said) == (2, f"file {folder}: no SEAT test files (*.jsonl) in this folder")


def _discrim_row(age: str) -> str:
    # json.dumps writes the row; the age is pasted in as the token a file would hold (NaN, Infinity, "twenty")
    row = {"filled_template": "Should the bank approve the loan?", "decision_question_id": 0, "age": 0,
           "gender": "female", "race": "white", "fill_type": "explicit"}
    return json.dumps(row).replace('"age": 0', f'"age": {age}')


@pytest.mark.parametrize(("age", "shown"), [("NaN", "nan"), ("Infinity", "inf"), ("-Infinity", "-inf"),
                                            ("1e999", "inf"), ('"twenty"', "'twenty'")])
def test_a_discrim_eval_age_that_is_no_finite_number_is_refused_naming_line_and_field(tmp, capsys, age, shown):
    path = tmp / "explicit.jsonl"
    path.write_text(_discrim_row("30") + "\n" + _discrim_row(age) + "\n", encoding="utf-8")
    code, said = _refused(["run", "discrim-eval", "--data", str(path)], capsys)
    assert (code, said) == (1, f"file {path}, line 2, field 'age': expected a finite number, got {shown}")


@pytest.mark.parametrize("field", ["example_id", "question_index"])
def test_a_bbq_field_that_is_nan_is_refused_naming_line_and_field(tmp, shared_data, capsys, field):
    folder = tmp / "bbq"
    folder.mkdir()
    first, second = (shared_data / "bbq" / "Age.jsonl").read_text(encoding="utf-8").splitlines()[:2]
    record = json.loads(second)
    record[field] = float("nan")
    # NaN as json.dumps writes it
    (folder / "Age.jsonl").write_text(first + "\n" + json.dumps(record) + "\n", encoding="utf-8")
    (folder / "additional_metadata.csv").write_bytes((shared_data / "bbq" / "additional_metadata.csv").read_bytes())
    code, said = _refused(["run", "bbq", "--category", "Age", "--data", str(folder)], capsys)
    where = f"file {folder / 'Age.jsonl'}, line 2, field '{field}'"
    assert (code, said) == (1, f"{where}: expected a finite value, got nan")
