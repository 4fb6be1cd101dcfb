"""Damaged predictions files (issue 46): every reader's open and parse path ends in one DataError
naming the file (and the line or field where known), never a library's exception; and the command
line says it in one line with exit 1. Each file is made here from a good one by cutting or editing it.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path

import pytest

import biasatlas.cli as cli
from biasatlas.errors import DataError
from biasatlas import registry
from biasatlas.scorers.predictions import files
from shared_data import shared_data_dir


#: The readers as the predictions scorer has them: the generic formats and every benchmark's declared ones.
DECLARED = registry.declared_predictions()


def read(path: Path, format: str | None = None, field: str | None = None) -> files.FileAnswers:
    return files.read(path, format, field, **DECLARED)


def detect(path: Path, text: str) -> str:
    return files.detect(path, text, DECLARED["formats"])

DATA = shared_data_dir()
STEREOSET = DATA / "stereoset" / "published-predictions" / "predictions_gpt2-medium_ModelNSP_GPT2LM.json"
UNIFIEDQA = DATA / "bbq" / "published-predictions" / "UnifiedQA" / "preds_Age.jsonl.gz"
LM_EVAL_BBQ = Path(__file__).resolve().parents[1] / "fixtures" / "lm_eval" / "bbq"
#: Longer than the csv module's field limit (131,072 characters): a quote never closed runs past it.
PAST_THE_CSV_LIMIT = "x" * 140_000
RESULTS_HEADER = ",sent_more,sent_less,sent_more_score,sent_less_score,score,stereo_antistereo,bias_type\n"


def _truncated_gzip(tmp: Path) -> Path:
    path = tmp / "preds_Age.jsonl.gz"
    path.write_bytes(UNIFIEDQA.read_bytes()[:5000])  # a download cut short: no end-of-stream marker
    return path


def _cut_stereoset(tmp: Path) -> Path:
    path = tmp / STEREOSET.name
    path.write_text(STEREOSET.read_text(encoding="utf-8")[:20000], encoding="utf-8")
    return path


def _lettered_scores(tmp: Path) -> Path:
    path = tmp / "answers.csv"
    path.write_text("id,score_a,score_b\n0,-1,-2\n", encoding="utf-8")
    return path


def _gapped_scores(tmp: Path) -> Path:
    path = tmp / "answers.csv"  # score_1 missing: score_2's value would be read as option 1's
    path.write_text("id,score_0,score_2\n0,-1,-2\n", encoding="utf-8")
    return path


def _unnumbered_score(tmp: Path) -> Path:
    path = tmp / "answers.csv"  # `int("" or 0)` read score_ as score_0's twin
    path.write_text("id,score_,score_0\n0,-1,-2\n", encoding="utf-8")
    return path


def _twice_named(tmp: Path) -> Path:
    path = tmp / "answers.csv"
    path.write_text("id,score_0,score_1,score_1\n0,-1,-2,-3\n", encoding="utf-8")
    return path


def _unclosed_quote(name: str, header: str) -> Callable[[Path], Path]:
    def make(tmp: Path) -> Path:
        path = tmp / name
        path.write_text(header + '0,"' + PAST_THE_CSV_LIMIT + "\n", encoding="utf-8")
        return path
    return make


def _nested_line(tmp: Path) -> Path:
    path = tmp / "answers.jsonl"
    path.write_text('{"id": "0", "answer": 1}\n{"id": "1", "answer": ' + "[" * 100_000 + "\n", encoding="utf-8")
    return path


def _nested_document(tmp: Path) -> Path:
    path = tmp / "predictions.json"
    path.write_text('{\n"intrasentence": ' + "[" * 100_000 + "\n", encoding="utf-8")
    return path


def _stereoset_not_a_list(tmp: Path) -> Path:
    path = tmp / "predictions.json"
    path.write_text(json.dumps({"intrasentence": {"id": "a", "score": 1.0}, "intersentence": []}), encoding="utf-8")
    return path


DAMAGED = {
    # name: (make, --predictions-format or None, the message's line and field part, a fragment of the message)
    "truncated .jsonl.gz": (_truncated_gzip, None, "", "not a whole gzip file"),
    "cut-short StereoSet JSON": (_cut_stereoset, None, ", line 825", "not JSON: Expecting ',' delimiter"),
    "score columns lettered": (_lettered_scores, None, ", line 1, field 'score_a'", "numbering the options from 0"),
    "score columns with a gap": (_gapped_scores, None, ", line 1, field 'score_2'", "without a gap"),
    "score column unnumbered": (_unnumbered_score, None, ", line 1, field 'score_'", "numbering the options"),
    "a column named twice": (_twice_named, None, ", line 1, field 'score_1'", "names column 'score_1' twice"),
    "plain CSV, quote unclosed": (_unclosed_quote("a.csv", "id,score_0\n"), None, ", line 2", "not CSV: field larger"),
    "results CSV, quote unclosed": (_unclosed_quote("results_bert.csv", RESULTS_HEADER), None, ", line 2",
                                    "not CSV: field larger"),
    "df_bbq.csv, quote unclosed": (_unclosed_quote("df_bbq.csv", "index,ans0,ans1,ans2,model,cat\n"), None,
                                   ", line 2", "not CSV: field larger"),
    "df_bbq.csv without its columns": (_lettered_scores, "bbq-scores", ", line 1", "no column 'index', 'ans0'"),
    "a JSON line nested past the parser": (_nested_line, None, ", line 2", "nested too deeply"),
    "a JSON document nested past the parser": (_nested_document, None, "", "nested too deeply"),
    "StereoSet's task not a list": (_stereoset_not_a_list, None, ", field 'intrasentence'", "expected a list"),
}


@pytest.mark.parametrize("case", list(DAMAGED))
def test_a_damaged_file_is_one_data_error_naming_it(case: str, tmp_path: Path) -> None:
    make, format, where, says = DAMAGED[case]
    path = make(tmp_path)
    with pytest.raises(DataError) as caught:
        read(path, format)
    message = str(caught.value)
    assert message.startswith(f"file {path}{where}: "), message
    assert says in message and "\n" not in message


@pytest.mark.parametrize("case", ["truncated .jsonl.gz", "cut-short StereoSet JSON", "score columns lettered"])
def test_the_command_line_says_it_in_one_line_with_exit_1(case: str, tmp_path: Path, capsys, isolated_run) -> None:
    path = DAMAGED[case][0](tmp_path)
    with pytest.raises(SystemExit) as exited:
        cli.main(["run", "stereoset", "--predictions", str(path)])
    err = capsys.readouterr().err.strip().splitlines()
    assert exited.value.code == 1
    assert err[-1].startswith(f"error: file {path}") and DAMAGED[case][3] in err[-1]
    assert not any("Traceback" in line or "internal error" in line for line in err)


def test_lm_eval_side_files_and_odd_answer_info_are_read_without_a_library_error(tmp_path: Path) -> None:
    # a results_<date>.json beside the log that is not UTF-8 (or not an object) leaves the provenance unknown,
    # as a missing one does; an empty answer_info list is an unreadable answer, not an IndexError
    (source,) = LM_EVAL_BBQ.glob("samples_*.jsonl")
    line = json.loads(source.read_text(encoding="utf-8").splitlines()[0])
    line["doc"]["answer_info"]["ans1"] = []
    path = tmp_path / source.name
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    results = tmp_path / source.name.replace("samples_bbq_", "results_").replace(".jsonl", ".json")
    for side in (b"\xff\xfe{}", b"[1, 2]"):
        results.write_bytes(side)
        read_back = read(path)
        assert (read_back.harness_version, read_back.dtype) == (None, "unknown")
        (answer,) = read_back.answers.values()
        assert answer.why == "answer_info marks no single option 'unknown'"


def test_stereoset_json_on_one_line_is_recognised_and_read_alike(tmp_path: Path) -> None:
    # issue 46: only the authors' pretty-printed layout was recognised; json.dump writes one line
    document = json.loads(STEREOSET.read_text(encoding="utf-8"))
    one_line = tmp_path / STEREOSET.name
    one_line.write_text(json.dumps(document), encoding="utf-8")
    assert "\n" not in one_line.read_text(encoding="utf-8")
    assert detect(one_line, one_line.read_text(encoding="utf-8")) == "stereoset"
    assert read(one_line).answers == read(STEREOSET).answers
    gzipped = tmp_path / "predictions_gpt2-medium_x.json.gz"
    gzipped.write_bytes(gzip.compress(json.dumps(document, indent=1).encode()))
    assert read(gzipped).format == "stereoset"


def test_a_json_lines_file_of_one_line_is_still_json_lines(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    path.write_text('{"id": "7", "scores": [-1.5, -2.0]}', encoding="utf-8")
    assert detect(path, path.read_text(encoding="utf-8")) == "plain"
    assert read(path).answers["7"].values == (-1.5, -2.0)
