"""``mine`` warns, one line per rule, when a rule drops every sentence left to it (issue 22,
item 9): a corpus of one character per line, JSON Lines read as text."""

from __future__ import annotations

import json

import typer
from typer.testing import CliRunner

from biasatlas.cli.mine import mine_command
from biasatlas.mining import MiningConfig, run_pipeline

ONE_CHARACTER = "rules: all 4 keyword sentences under 10 characters (--min-len): one character per line?"


def _corpus(tmp_path, lines, name="corpus.txt"):
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_one_character_per_line_is_one_warning_in_the_report_and_the_card(tmp_path):
    corpus = _corpus(tmp_path, ["他", "她", "男", "女"])  # four keyword "sentences" of one character each
    seen: list[str] = []
    report = run_pipeline([corpus], tmp_path / "out", MiningConfig(), warn=seen.append)
    assert report.card["stages"]["rules"]["dropped"] == {"too_short": 4}  # what the warning reads
    assert seen == [ONE_CHARACTER] and report.warnings == (ONE_CHARACTER,)
    assert json.loads((tmp_path / "out" / "dataset_card.json").read_text(encoding="utf-8"))["warnings"] == [
        ONE_CHARACTER]
    assert f"**Warning:** {ONE_CHARACTER}\n" in (tmp_path / "out" / "dataset_card.md").read_text(encoding="utf-8")


def test_json_lines_read_as_text_hold_no_keyword(tmp_path):
    # json.dumps escapes every Chinese character (\u4ed6 …), so the text format finds no keyword
    texts = ("他在学校里认真学习，每天都很早起床。", "她喜欢在周末去图书馆看书。")
    lines = [json.dumps({"text": text}) for text in texts]
    report = run_pipeline([_corpus(tmp_path, lines, "corpus.jsonl")], tmp_path / "out", MiningConfig())
    assert report.warnings == ("match: all 2 sentences hold no keyword of the pairs: is the corpus Chinese text, "
                               "and --format right (a JSONL corpus needs --format jsonl)?",)


def test_rules_that_share_the_drops_warn_of_nothing(tmp_path):
    # one too short, one not Chinese: the rules stage ends empty, but no single rule emptied it
    corpus = _corpus(tmp_path, ["他", "他 is a keyword in an English sentence here"])
    report = run_pipeline([corpus], tmp_path / "out", MiningConfig())
    assert report.card["stages"]["rules"]["dropped"] == {"too_short": 1, "not_chinese": 1}
    assert report.warnings == ()
    assert "warnings" not in report.card  # a card without warnings is as before


def test_a_corpus_that_mines_warns_of_nothing(tmp_path):
    corpus = _corpus(tmp_path, ["他在学校里认真学习，每天都很早起床。"])
    report = run_pipeline([corpus], tmp_path / "out", MiningConfig())
    assert report.n_candidates == 1 and report.warnings == ()


def test_the_command_prints_each_warning_on_one_line(tmp_path):
    app = typer.Typer()
    app.command("mine")(mine_command)
    app.command("noop")(lambda: None)  # two commands, so "mine" is a subcommand as in the CLI
    corpus = _corpus(tmp_path, ["他", "她", "男", "女"])
    result = CliRunner().invoke(app, ["mine", "--corpus", str(corpus), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert f"warning: {ONE_CHARACTER}" in result.stderr.splitlines()
