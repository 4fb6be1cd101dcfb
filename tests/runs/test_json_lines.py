"""JSON Lines are split on ``\\n`` alone, by every writer and reader in the package
(biasatlas.textfiles; issue 21, items 1 and 2).

``str.splitlines`` also breaks at U+0085, U+2028 and U+2029, and ``json.dumps`` with
``ensure_ascii=False`` writes those raw: a sentence holding one was scored, written and
then refused by the report as "not valid JSON".
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from biasatlas.benchmarks.zh_neutral.data import read_items
from biasatlas.mining import MiningConfig, read_candidates, run_pipeline
from biasatlas.runs.load import load_run
from biasatlas.textfiles import decode_text, json_line, json_lines, json_lines_text

#: Every character ``str.splitlines`` breaks at (the Python documentation's table).
SPLITLINES_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"

# Any code point UTF-8 can hold (surrogates cannot be encoded), in keys and values.
any_text = st.text(st.characters(exclude_categories=("Cs",)))
records = st.lists(st.dictionaries(any_text, any_text | st.lists(any_text, max_size=3), max_size=4),
                   max_size=5)


@given(records)
def test_any_records_round_trip_through_a_file(values):
    text = json_lines_text(values)
    back = [json.loads(line) for _, line in json_lines(decode_text(text.encode("utf-8"), path="f"))]
    assert back == values
    # The written text holds no line break of any kind except one "\n" after each record,
    # so even a reader that splits with str.splitlines sees one record per line.
    assert text.count("\n") == len(values)
    assert not any(ch in SPLITLINES_BREAKS.replace("\n", "") for ch in text)
    assert len(text.splitlines()) == len(values)


@given(records)
def test_a_file_written_with_raw_separators_reads_back(values):
    # Another tool (or an earlier biasatlas) writes U+2028 raw: the reader still splits
    # on "\n" only, so each record comes back whole.
    text = "".join(json.dumps(v, ensure_ascii=False) + "\n" for v in values)
    assert [json.loads(line) for _, line in json_lines(text)] == values


def test_line_numbers_count_newlines_and_windows_line_ends_are_read():
    text = '{"a": "x\u2028y"}\r\n\n  \n{"b": 1}'
    assert list(json_lines(text)) == [(1, '{"a": "x\u2028y"}'), (4, '{"b": 1}')]
    assert json_line({"a": "x\u2028y\x85z\u2029"}) == '{"a": "x\\u2028y\\u0085z\\u2029"}'


# -- end to end: a scored run and a mined set holding the three characters ----------------------
SENTENCES = ("She is\u2028here.", "He is\u2028here.", "The old\u2029man sat.", "The young\u2029man sat.",
             "A nurse\x85came.", "A doctor\x85came.")


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "BIASATLAS_CACHE_DIR": str(cwd / "cache")}
    return subprocess.run([sys.executable, "-m", "biasatlas", *args], capture_output=True, text=True,
                          timeout=240, env=env, cwd=cwd)


@pytest.mark.slow  # a subprocess or the full data: the full suite runs it, the fast loop does not
def test_a_crows_pairs_sentence_holding_line_separators_is_scored_and_reported(tmp_path):
    pairs = tmp_path / "pairs.tsv"
    rows = [f"{i}\t{SENTENCES[2 * i]}\t{SENTENCES[2 * i + 1]}\tstereo\tgender" for i in range(3)]
    pairs.write_text("\tsent_more\tsent_less\tstereo_antistereo\tbias_type\n" + "\n".join(rows) + "\n",
                     encoding="utf-8")
    out = tmp_path / "run"
    done = cli("run", "crows-pairs", "--data", str(pairs), "--model", "fake", "--out", str(out), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    items = (out / "items.jsonl").read_text(encoding="utf-8")
    assert len(items.splitlines()) == 3  # escaped: one line per pair for any reader
    view = load_run(out)
    assert sorted(r["sent_more"] for r in view.records) == sorted(SENTENCES[0::2])
    report = cli("report", str(out), "--out", str(tmp_path / "report.md"), cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    assert (tmp_path / "report.md").stat().st_size > 0


@pytest.mark.slow  # about a second: the full suite runs it, the fast loop does not
def test_the_miner_keeps_such_a_sentence_and_zh_neutral_reads_its_output(tmp_path):
    corpus = tmp_path / "corpus.txt"
    lines = ["父亲这个角色\u2028在家庭教育中非常重要。", "那个男童在公园里\x85玩得很开心。",
             "这位女士在会上提出了\u2029很多建设性的意见。"]
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    report = run_pipeline([corpus], tmp_path / "out", MiningConfig())
    mined = {c.sentence for c in read_candidates(report.candidates_path)}
    assert mined == set(lines)  # each sentence kept whole, its separator inside
    items = read_items(report.candidates_path)
    assert {item.sentence for item in items} == set(lines)


@pytest.mark.parametrize("name", ["candidates.jsonl", "data.jsonl"])
def test_zh_neutral_reads_raw_separators_written_by_another_tool(tmp_path, name):
    path = tmp_path / name
    row = {"id": "a1", "sentence": "他的\u2028母亲来了。", "keyword": "他", "offset": 0, "pair": "他/她"}
    path.write_text(json.dumps(row, ensure_ascii=False) + "\n", encoding="utf-8")
    assert [item.sentence for item in read_items(path)] == [row["sentence"]]


def test_read_run_keeps_a_raw_line_separator_of_an_older_run_folder_inside_its_record(tmp_path):
    # Folders written before json_line escaped U+2028 hold it raw; results.read_run (used by
    # the zh-neutral analysis) split such a line in two with str.splitlines.
    import json as _json

    from biasatlas.runs.folder import read_run

    for name, text in (("summary.json", "{}"), ("config.json", "{}")):
        (tmp_path / name).write_text(text, encoding="utf-8")
    rows = [{"id": "1", "sentence": "a\u2028b"}, {"id": "2", "sentence": "c\u0085d"}]
    (tmp_path / "items.jsonl").write_text("".join(_json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                                          encoding="utf-8")
    assert read_run(tmp_path).records == rows
