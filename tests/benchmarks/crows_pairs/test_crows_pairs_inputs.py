"""CrowS-Pairs inputs (issue 22, item 9): ``--bias-type`` filters categories, and ``--data``
reads a column mapping, ``;``-separated text and JSON Lines, with errors naming file, line
and field. Expected pairs are read back from files written here, by hand-listed rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from biasatlas.benchmarks.crows_pairs import CrowsPairs, read_pairs
from biasatlas.benchmarks.crows_pairs.files import parse_columns
from biasatlas.benchmarks.crows_pairs.paper import paper_check
from biasatlas.cli import app
from biasatlas.errors import DataError, UnknownName, UsageError
from biasatlas.report import build_report, load_run, load_runs, render
from biasatlas.report.compare import compare_runs, pairing_differences
from report_fixtures import crows_paper_run, hub_scorer

# (id, sent_more, sent_less, direction, bias type): five pairs, four categories.
ROWS = [("10", "Women can't drive.", "Men can't drive.", "stereo", "gender"),
        ("11", "Old people are slow.", "Young people are slow.", "stereo", "age"),
        ("12", "Poor people steal.", "Rich people steal.", "antistereo", "socioeconomic"),
        ("13", "She cried.", "He cried.", "stereo", "gender"),
        ("14", "Black kids lack schooling.", "White kids lack schooling.", "stereo", "race-color")]


def _text_file(tmp_path: Path, delimiter: str, header=("", "sent_more", "sent_less", "stereo_antistereo",
                                                          "bias_type"), name: str = "pairs.csv") -> Path:
    path = tmp_path / name
    lines = [delimiter.join(header)] + [delimiter.join(row) for row in ROWS]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _as_tuples(pairs) -> list[tuple[str, ...]]:
    return [(p.id, p.sent_more, p.sent_less, p.direction, p.bias_type) for p in pairs]


# -- --bias-type -----------------------------------------------------------------------------------
def test_bias_types_keep_only_those_categories_in_file_order(tmp_path):
    path = _text_file(tmp_path, ",")
    got = CrowsPairs(dataset=None, data=path, bias_types=("gender,age",)).load()
    assert [p.id for p in got] == ["10", "11", "13"]  # ROWS' gender and age rows
    repeated = CrowsPairs(dataset=None, data=path, bias_types=("Gender", "age", "gender")).load()
    assert [p.id for p in repeated] == ["10", "11", "13"]


def test_race_is_race_color_as_in_bias_bench(tmp_path):
    bench = CrowsPairs(dataset=None, data=_text_file(tmp_path, ","), bias_types=("race",))
    assert bench.bias_types == ("race-color",) and [p.id for p in bench.load()] == ["14"]


def test_the_filter_comes_before_the_limit(tmp_path):
    got = CrowsPairs(dataset=None, data=_text_file(tmp_path, ","), bias_types=("gender",), limit=1).load()
    assert [p.id for p in got] == ["10"]


def test_an_unknown_bias_type_is_a_did_you_mean_error():
    with pytest.raises(UnknownName, match="unknown CrowS-Pairs bias type 'gendr'. Did you mean 'gender'?"):
        CrowsPairs(bias_types=("gendr",))
    with pytest.raises(UsageError, match="names no category"):
        CrowsPairs(bias_types=(" , ",))


def test_a_category_the_file_lacks_names_the_files_categories(tmp_path):
    path = _text_file(tmp_path, ",")
    with pytest.raises(UnknownName) as err:
        CrowsPairs(dataset=None, data=path, bias_types=("religion",)).load()
    assert str(err.value) == (f"no pair of bias type 'religion' in file {path}; its bias types: age, gender, "
                              "race-color, socioeconomic")


def test_bias_types_are_recorded_only_when_set(tmp_path):
    path = _text_file(tmp_path, ",")
    assert "bias_types" not in CrowsPairs(dataset=None, data=path).config()  # older folders still match
    config = CrowsPairs(dataset=None, data=path, bias_types=("age", "race")).config()
    assert config["bias_types"] == ["age", "race-color"]
    assert json.loads(json.dumps(config))["bias_types"] == ["age", "race-color"]


@pytest.mark.parametrize("args", [["--bias-type", "gender,age"], ["--bias-type", "gender", "--bias-type", "age"]])
def test_the_flag_takes_a_list_or_repeats(monkeypatch, args):
    import biasatlas.cli.run as run

    seen = []
    monkeypatch.setattr(run, "run_and_print", lambda request, out, **kw: seen.append(request))
    result = CliRunner().invoke(app, ["run", "crows-pairs", *args, "--model", "fake"])
    assert result.exit_code == 0, result.output
    assert seen[-1].bench.bias_types == ("gender", "age")


def test_a_filtered_run_is_not_the_papers_full_set_and_is_shown_as_a_setting(tmp_path):
    scorer = hub_scorer("camembert-base")
    full = crows_paper_run(tmp_path / "full", scorer)
    assert paper_check(load_run(full)).comparable  # the fixture is the published setting
    gender = crows_paper_run(tmp_path / "gender", scorer, settings={"bias_types": ["gender"]})
    check = paper_check(load_run(gender))
    assert not check.comparable
    assert "bias type gender only (the paper: every category)" in check.reasons
    md = render(build_report(load_runs([full, gender]), compare=False), "md")
    header = next(line for line in md.splitlines() if line.startswith("| model | dataset | n |"))
    assert header.endswith("| items scored | lowercase | strip-whitespace | unicode-nfc |")
    rows = [line for line in md.splitlines() if line.startswith("| camembert-base (nangia)")]
    assert rows[0].endswith("| all items | yes | no | no |")
    assert rows[1].endswith("| bias types gender | yes | no | no |")
    assert "- items scored: bias types gender\n" in md  # the provenance facts


def test_compare_refuses_a_filtered_run_against_a_full_one(tmp_path):
    scorer = hub_scorer("camembert-base")
    a = load_run(crows_paper_run(tmp_path / "a", scorer, n_pairs=40))
    b = load_run(crows_paper_run(tmp_path / "b", scorer, n_pairs=40, settings={"bias_types": ["gender", "age"]}))
    assert pairing_differences(a, b) == ("bias types: A not recorded, B gender, age",)
    with pytest.raises(DataError, match="bias types: A not recorded, B gender, age"):
        compare_runs(a, b)


# -- --data: delimiters, JSON Lines, a column mapping ------------------------------------------------
def test_semicolon_and_tab_files_read_as_the_comma_file(tmp_path):
    comma = _as_tuples(read_pairs(_text_file(tmp_path, ",")))
    assert comma == [tuple(row) for row in ROWS]
    for delimiter, name in ((";", "pairs-semicolon.csv"), ("\t", "pairs.tsv")):
        assert _as_tuples(read_pairs(_text_file(tmp_path, delimiter, name=name))) == comma


def test_a_semicolon_file_with_commas_in_its_sentences_is_still_semicolons(tmp_path):
    path = tmp_path / "pairs.csv"
    path.write_text(";sent_more;sent_less;stereo_antistereo;bias_type\n"
                    "0;Yes, women drive.;Yes, men drive.;stereo;gender\n", encoding="utf-8")
    assert _as_tuples(read_pairs(path)) == [("0", "Yes, women drive.", "Yes, men drive.", "stereo", "gender")]


def _jsonl(tmp_path: Path, objects, name: str = "pairs.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join((o if isinstance(o, str) else json.dumps(o)) + "\n" for o in objects),
                    encoding="utf-8")
    return path


def test_json_lines_read_as_the_comma_file(tmp_path):
    objects = [{"id": r[0], "sent_more": r[1], "sent_less": r[2], "stereo_antistereo": r[3], "bias_type": r[4]}
               for r in ROWS]
    assert _as_tuples(read_pairs(_jsonl(tmp_path, objects))) == [tuple(row) for row in ROWS]
    # recognised by its first "{" whatever the name, blank lines skipped, ids by position when absent
    bare = [{k: v for k, v in o.items() if k != "id"} for o in objects[:2]]
    got = read_pairs(_jsonl(tmp_path, [bare[0], "", bare[1]], name="pairs.txt"))
    assert [(p.id, p.line) for p in got] == [("0", 1), ("1", 3)]


@pytest.mark.parametrize("lines,line,field,message", [
    (['{"sent_more": "a", "sent_less": "b", "stereo_antistereo": "stereo", "bias_type": "age"}', "{oops"],
     2, None, "not JSON"),
    (['["a", "b"]'], 1, None, "expected a JSON object, got list"),
    (['{"sent_more": "a", "stereo_antistereo": "stereo", "bias_type": "age"}'], 1, "sent_less", "missing field"),
    (['{"sent_more": 3, "sent_less": "b", "stereo_antistereo": "stereo", "bias_type": "age"}'], 1, "sent_more",
     "expected text, got int 3"),
    (['{"sent_more": "a", "sent_less": "b", "stereo_antistereo": "both", "bias_type": "age"}'], 1,
     "stereo_antistereo", "expected 'stereo' or 'antistereo'"),
])
def test_bad_json_lines_name_file_line_and_field(tmp_path, lines, line, field, message):
    path = _jsonl(tmp_path, lines)
    with pytest.raises(DataError, match=message) as err:
        read_pairs(path)
    assert err.value.path == path and err.value.line == line and err.value.field == field


def test_a_column_mapping_reads_a_file_with_other_names(tmp_path):
    header = ("pair", "more", "less", "direction", "category")
    path = _text_file(tmp_path, ";", header=header)
    columns = ("sent_more=more,sent_less=less", "stereo_antistereo=direction", "bias_type=category", "id=pair")
    bench = CrowsPairs(dataset=None, data=path, columns=columns, bias_types=("gender",))
    assert _as_tuples(bench.load()) == [tuple(ROWS[0]), tuple(ROWS[3])]
    assert bench.config()["columns"] == {"sent_more": "more", "sent_less": "less", "stereo_antistereo": "direction",
                                         "bias_type": "category", "id": "pair"}
    assert "columns" not in CrowsPairs(dataset=None, data=_text_file(tmp_path, ",")).config()
    objects = [{"more": r[1], "less": r[2], "direction": r[3], "category": r[4]} for r in ROWS[:1]]
    assert _as_tuples(read_pairs(_jsonl(tmp_path, objects), parse_columns(columns))) == [("0", *ROWS[0][1:])]


def test_a_mapped_column_the_file_lacks_is_named_on_line_one(tmp_path):
    path = _text_file(tmp_path, ",")
    with pytest.raises(DataError, match=r"missing column\(s\) more \(from the column mapping\)") as err:
        read_pairs(path, {"sent_more": "more"})
    assert err.value.line == 1 and err.value.field == "more"
    bad = _jsonl(tmp_path, [{"sent_more": "a", "sent_less": "b", "stereo_antistereo": "stereo", "bias_type": "age"}])
    with pytest.raises(DataError) as err:
        read_pairs(bad, {"sent_less": "less"})
    assert err.value.line == 1 and err.value.field == "less"


@pytest.mark.parametrize("entries,error,message", [
    (("sent_more",), UsageError, "expected FIELD=COLUMN"),
    (("sent_mor=a",), UnknownName, "Did you mean 'sent_more'"),
    (("sent_more=a,sent_more=b",), UsageError, "names sent_more twice"),
])
def test_a_bad_mapping_is_a_usage_error_before_any_file_is_read(tmp_path, entries, error, message):
    unread = tmp_path / "not-read.csv"
    unread.write_bytes(b"\xff\xfe not a CrowS-Pairs file")  # reading it would be another error
    with pytest.raises(error, match=message):
        CrowsPairs(dataset=None, data=unread, columns=entries)


def test_a_mapping_goes_with_data_only():
    with pytest.raises(UsageError, match="--columns maps the columns of your own --data file"):
        CrowsPairs(dataset="en", columns=("sent_more=a",))
