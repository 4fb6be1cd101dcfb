"""Predictions readers on real files (biasatlas.scorers.predictions.files): the StereoSet authors'
JSON, BBQ's UnifiedQA outputs, lm-evaluation-harness 0.4.13 samples (tests/fixtures/lm_eval,
made here), and plain CSV/JSON Lines. Expected values are read from the files by plain code in
each test, never from the reader; df_bbq.csv has no real copy here (BBQ's PROVENANCE.md), so its
reader is checked on a file of its documented columns.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import pytest

from biasatlas.benchmarks.discrim_eval.data import read_explicit
from biasatlas.errors import DataError, UsageError
from biasatlas import registry
from biasatlas.benchmarks.bbq.predictions import unifiedqa_option
from biasatlas.scorers.predictions import files
from shared_data import shared_data_dir

#: The readers as the predictions scorer has them: the generic formats and every benchmark's declared ones.
DECLARED = registry.declared_predictions()


def read(path: Path, format: str | None = None, field: str | None = None, **_: object) -> files.FileAnswers:
    return files.read(path, format, field, **DECLARED)


def detect(path: Path, text: str) -> str:
    return files.detect(path, text, DECLARED["formats"])

DATA = shared_data_dir()
STEREOSET = DATA / "stereoset" / "published-predictions" / "predictions_gpt2-medium_ModelNSP_GPT2LM.json"
UNIFIEDQA = DATA / "bbq" / "published-predictions" / "UnifiedQA"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "lm_eval"


def _only(folder: str, pattern: str) -> Path:
    (found,) = sorted((FIXTURES / folder).glob(pattern))
    return found


def test_stereoset_authors_file() -> None:
    read_back = read(STEREOSET)
    document = json.loads(STEREOSET.read_text())
    rows = document["intrasentence"] + document["intersentence"]
    assert read_back.format == "stereoset" and read_back.model == "gpt2-medium"
    assert len(read_back.answers) == len(rows) == 12687
    assert read_back.sha256 == hashlib.sha256(STEREOSET.read_bytes()).hexdigest()
    first = rows[0]
    assert read_back.answers[first["id"]].values == (first["score"],)


def test_unifiedqa_file_needs_its_input_format_named() -> None:
    with pytest.raises(UsageError, match="race"):
        read(UNIFIEDQA / "preds_Religion.jsonl.gz")


def test_unifiedqa_answers_follow_the_r_scripts_matching() -> None:
    path = UNIFIEDQA / "preds_Religion.jsonl.gz"
    read_back = read(path, field="race")
    records = [json.loads(line) for line in gzip.decompress(path.read_bytes()).decode().splitlines()]
    assert read_back.model == "unifiedqa-t5-11b-race" and len(read_back.answers) == len(records) == 1200
    exact = 0
    for r in records:  # an answer equal to an option's text (case and a final period aside) names it
        said = r["unifiedqa-t5-11b_pred_race"].rstrip(".").strip().lower()
        options = [r[f"ans{i}"].rstrip(".").strip().lower() for i in range(3)]
        if said in options:
            exact += 1
            assert read_back.answers[f"Religion/{r['example_id']}"].chosen == options.index(said)
    assert exact > 1100


def test_unifiedqa_fallback_and_unmatched() -> None:
    record = {"ans0": "The youthful boy", "ans1": "The older man", "ans2": "Not known",
              "answer_info": {"ans0": ["youthful", "nonOld"], "ans1": ["older", "old"],
                              "ans2": ["Not known", "unknown"]}}
    # one-word answer_info texts have no two first words: the R script's fallback finds nothing
    assert unifiedqa_option("the younger boy", record) is None
    assert unifiedqa_option("the older man.", record) == 1
    record["answer_info"]["ans0"] = ["youthful boy", "nonOld"]
    assert unifiedqa_option("a youthful boy, surely", record) == 0  # the first two words found in the answer


def test_unifiedqa_question_only_baseline_is_unreadable_in_disambiguated_contexts() -> None:
    path = UNIFIEDQA / "preds_Sexual_orientation.jsonl.gz"
    read_back = read(path, field="qonly")
    lines = gzip.decompress(path.read_bytes()).decode().splitlines()
    disambiguated = sum(json.loads(line)["context_condition"] == "disambig" for line in lines)
    unreadable = [a for a in read_back.answers.values() if a.why]
    assert len(unreadable) == disambiguated == 432
    assert "disambiguated" in str(unreadable[0].why)


def test_lm_eval_crows_pairs_samples() -> None:
    path = _only("crows", "samples_crows_pairs_english_*.jsonl")
    read_back = read(path)
    assert (read_back.format, read_back.task, read_back.harness_version, read_back.dtype) == (
        "lm-eval", "crows_pairs_english", "0.4.13", "float32")
    assert read_back.model == "smollm2-135m--0.1.2"
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    for line in lines:
        answer = read_back.answers[line["doc"]["id"]]
        assert answer.values == tuple(float(r[0]) for r in line["filtered_resps"])
        assert answer.texts == (line["doc"]["sent_more"], line["doc"]["sent_less"])


def test_lm_eval_bbq_samples_give_each_option_its_best_choice() -> None:
    path = _only("bbq", "samples_bbq_*.jsonl")
    read_back = read(path)
    for line in (json.loads(text) for text in path.read_text().splitlines()):
        doc = line["doc"]
        texts = [a["arg_1"].strip() for a in line["arguments"].values()]
        values = [float(r[0]) for r in line["filtered_resps"]]
        assert len(values) == 12  # two people and ten unknown strings
        unknown = next(i for i in range(3) if doc["answer_info"][f"ans{i}"][1] == "unknown")
        people = {doc[f"ans{i}"] for i in range(3) if i != unknown}
        expected = [max(v for t, v in zip(texts, values) if (t == doc[f"ans{i}"] if i != unknown else t not in people))
                    for i in range(3)]
        got = read_back.answers[f"{doc['category']}/{doc['example_id']}"]
        assert got.values == tuple(expected)
        # the harness's argmax over its 12 choices lands on the option our three values choose
        best = texts[values.index(max(values))]
        assert got.values.index(max(got.values)) == (
            [i for i in range(3) if doc[f"ans{i}"] == best and i != unknown] or [unknown])[0]


def test_lm_eval_discrim_eval_samples_answer_each_form_of_the_benchmark_prompt(tmp_path: Path) -> None:
    """Each line's four log-likelihoods go to DiscrimEval's four probes of the prompt its ``doc`` is: the
    ids are the ones the benchmark's own reader gives the same rows (the docs, written as a data file)."""
    path = _only("discrim_eval", "samples_discrim_eval_*.jsonl")
    lines = [json.loads(text) for text in path.read_text(encoding="utf-8").splitlines()]
    data = tmp_path / "explicit.jsonl"
    data.write_text("".join(json.dumps(line["doc"]) + "\n" for line in lines), encoding="utf-8")
    prompts = read_explicit(data)
    read_back = read(path)  # DiscrimEval's documents: read by the benchmark's declared reader
    assert (read_back.format, read_back.task, read_back.dtype) == ("lm-eval", "discrim_eval_explicit_local", "float32")
    forms = ("yes", "Yes", "no", "No")
    assert set(read_back.answers) == {f"{p.id}.{form}" for p in prompts for form in forms}
    for prompt, line in zip(prompts, lines):
        assert [a["arg_1"] for a in line["arguments"].values()] == list(forms)
        for form, response in zip(forms, line["filtered_resps"]):
            assert read_back.answers[f"{prompt.id}.{form}"].values == (float(response[0]),)


def test_lm_eval_discrim_eval_line_of_other_choices_is_unreadable_in_all_four(tmp_path: Path) -> None:
    (line,) = [json.loads(text) for text in
               _only("discrim_eval", "samples_discrim_eval_*.jsonl").read_text(encoding="utf-8").splitlines()[:1]]
    line["arguments"]["gen_args_1"]["arg_1"] = "maybe"
    path = tmp_path / "samples_discrim_eval_explicit_2026-12-03T10-00-00.000000.jsonl"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    answers = read(path).answers
    assert len(answers) == 4 and all("not DiscrimEval's" in str(a.why) and a.line == 1 for a in answers.values())


def test_lm_eval_bbq_generate_samples_keep_each_generated_text() -> None:
    path = _only("bbq_generate", "samples_bbq_generate_*.jsonl")
    read_back = read(path)
    assert (read_back.format, read_back.task, read_back.dtype) == ("lm-eval", "bbq_generate", "float32")
    lines = [json.loads(text) for text in path.read_text(encoding="utf-8").splitlines()]
    assert len(read_back.answers) == len(lines) == 16
    for line in lines:
        doc = line["doc"]
        got = read_back.answers[f"{doc['category']}/{doc['example_id']}"]
        assert (got.generated, got.values, got.why) == (line["filtered_resps"][0], (), None)
        assert got.texts == (doc["ans0"], doc["ans1"], doc["ans2"])


def test_lm_eval_winogender_samples_are_refused_with_the_question_they_answer(tmp_path: Path) -> None:
    # A line in the shape lm-eval 0.4.13's winogender_all logs: the doc's fields as its task yaml
    # reads them (sentence, pronoun, occupation, participant, label) and the two choices' answers.
    doc = {"sentence": "The technician told the customer that she could pay with cash.", "pronoun": "she",
           "occupation": "technician", "participant": "customer", "label": 1, "gender": "female"}
    line = {"doc_id": 0, "doc": doc, "filtered_resps": [["-3.2", "False"], ["-2.9", "False"]],
            "arguments": {"gen_args_0": {"arg_0": "… 'She' refers to the", "arg_1": " technician"},
                          "gen_args_1": {"arg_0": "… 'She' refers to the", "arg_1": " customer"}}}
    path = tmp_path / "samples_winogender_all_2026-12-03T10-00-00.000000.jsonl"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match="coreference accuracy") as caught:
        read(path)
    assert str(caught.value).startswith(f"file {path}, line 1, field 'doc': lm-evaluation-harness's winogender")


def test_bbq_scores_csv(tmp_path: Path) -> None:
    path = tmp_path / "df_bbq.csv"
    path.write_text("index,ans0,ans1,ans2,model,cat\n0,0.1,2.5,-1,roberta-base-race,Age\n"
                    "0,3,1,1,deberta-v3-base-race,Age\n1,x,1,1,roberta-base-race,Age\n")
    with pytest.raises(UsageError, match="roberta-base-race"):
        read(path)
    read_back = read(path, field="roberta-base-race")
    assert read_back.format == "bbq-scores" and read_back.answers["Age/0"].values == (0.1, 2.5, -1.0)
    assert "not all numbers" in str(read_back.answers["Age/1"].why) and read_back.answers["Age/1"].line == 4


def test_plain_csv_and_json_lines(tmp_path: Path) -> None:
    csv_path = tmp_path / "answers.csv"
    csv_path.write_text("id,answer,model\nAge/0,2,m\nAge/1,two,m\nAge/0,1,m\n")
    answers = read(csv_path).answers
    assert read(csv_path).model == "m"
    assert answers["Age/1"].why and "twice" in str(answers["Age/0"].why)  # a second row for an id: unreadable
    jsonl = tmp_path / "scores.jsonl"
    jsonl.write_text('{"id": "7", "scores": [-1.5, -2.0], "texts": ["a", "b"]}\n{"id": "8", "scores": [1, "nan"]}\n')
    answers = read(jsonl).answers
    assert answers["7"].values == (-1.5, -2.0) and answers["7"].texts == ("a", "b")
    assert "finite" in str(answers["8"].why)


@pytest.mark.parametrize(("path", "expected"), [
    (STEREOSET, "stereoset"), (UNIFIEDQA / "preds_Age.jsonl.gz", "bbq-unifiedqa"),
    (FIXTURES / "crows", "lm-eval"),
])
def test_shapes_are_recognised(path: Path, expected: str) -> None:
    if path.is_dir():
        path = next(path.glob("samples_*.jsonl"))
    raw = path.read_bytes()
    text = (gzip.decompress(raw) if path.suffix == ".gz" else raw).decode()
    assert detect(path, text) == expected


def test_unknown_shape_is_a_data_error(tmp_path: Path) -> None:
    path = tmp_path / "x.csv"
    path.write_text("a,b\n1,2\n")
    with pytest.raises(DataError, match="--predictions-format"):
        read(path)


def test_lm_eval_bbq_best_of_exactly_zero_is_kept(tmp_path: Path) -> None:
    # issue 46: the best was kept as max(value, best or value), so a best of 0.0 (log 1) gave way to the next
    # string's value. The fixture's first line with "Can't be determined" at 0.0, every other unknown string
    # at -3.0 and both people at -1.0: the harness's argmax is the unknown option, its value 0.0.
    line = json.loads(_only("bbq", "samples_bbq_*.jsonl").read_text().splitlines()[0])
    texts = [a["arg_1"].strip() for a in line["arguments"].values()]
    doc = line["doc"]
    people = {doc["ans0"], doc["ans2"]}  # ans1 is the unknown option ("Not answerable")
    assert texts.index("Can't be determined") < len(texts) - 1  # other unknown strings follow it
    line["filtered_resps"] = [[str(0.0 if t == "Can't be determined" else -1.0 if t in people else -3.0), "False"]
                              for t in texts]
    path = tmp_path / "samples_bbq_2026-12-03T08-34-36.292888.jsonl"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    got = read(path).answers[f"{doc['category']}/{doc['example_id']}"]
    assert got.values == (-1.0, 0.0, -1.0)


def test_lm_eval_bbq_keeps_the_numbers_the_harness_printed() -> None:
    """Issue 49, item 18: a BBQ run re-scored from lm-eval's samples shows the harness's printed bias
    beside its own. The expected values are the fixture's results file, read here with json alone."""
    from biasatlas.benchmarks.bbq.view import _harness_notice
    from biasatlas.runs.view import RunView

    path = _only("bbq", "samples_bbq_*.jsonl")
    (results,) = path.parent.glob("results_*.json")
    printed = json.loads(results.read_text(encoding="utf-8"))["results"]["bbq"]
    described = read(path).describe()
    assert described["harness_printed"]["amb_bias_score"] == printed["amb_bias_score,none"]
    assert described["harness_printed"]["disamb_bias_score"] == printed["disamb_bias_score,none"]
    assert not any("stderr" in key for key in described["harness_printed"])
    view = RunView(Path("r"), {"scorer": described}, {"benchmark": "bbq", "model": "m"}, ())
    (notice,) = _harness_notice(view)
    amb, dis = 100 * printed["amb_bias_score,none"], 100 * printed["disamb_bias_score,none"]
    assert f"printed bias amb {amb:.2f}, dis {dis:.2f}" in notice and "target_loc" in notice
