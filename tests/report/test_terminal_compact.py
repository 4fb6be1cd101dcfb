"""What ``biasatlas run`` prints stays short and says what it means.

Before: BBQ over 6 items printed ~140 lines (a 12-line block per category, then an empty "Data
lint" table whose caption sat in a 24-column box), WEAT ten 12-line blocks and the Delobelle caveat
twice; "could not have seen less than ±0" where the bootstrap had no spread; "±143 bias points"
on a scale that ends at 100; counts as floats ("122.0 words out of vocabulary").
"""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from biasatlas.display.controls import Control, Headline, effect_text, reading, terminal_lines
from biasatlas.display.split import column_groups, units
from biasatlas.display.tables import CI, Table
from biasatlas.display.terminal import TerminalTables
from biasatlas.power import Detectable
from biasatlas.runs.view import RunView

COLUMNS = ("set", "ambiguous", "disambiguated", "acc amb", "acc dis", "bias amb", "95% CI", "bias dis", "95% CI",
           "diff-bias amb", "diff-bias dis", "unknown amb %", "unknown dis %")


def _wide(n_rows: int = 11) -> Table:
    rows = tuple((f"Category_{i:02d} (names)", 12, 14, 50.0, 62.5, 12.5, CI(-20.0, 40.0), -8.25, CI(-30.0, 10.5),
                  3.0, -4.0, 25.0, 10.0) for i in range(n_rows))
    return Table("BBQ en", COLUMNS, rows, "A caption that explains every column of the table in words.")


def _printed(renderable, width: int = 80) -> list[str]:
    out = io.StringIO()
    Console(file=out, width=width, force_terminal=False, color_system=None).print(renderable)
    return out.getvalue().splitlines()


def test_an_interval_stays_beside_its_value():
    assert units(COLUMNS)[4:7] == [[5, 6], [7, 8], [9]]


def test_a_wide_table_is_cut_into_column_groups_one_line_per_row():
    table = _wide()
    lines = _printed(TerminalTables((table,)))
    assert max(len(line) for line in lines) <= 80
    # every row is one line in each group: its name appears once per group, never as a block heading
    groups = [line for line in lines if line.strip().startswith("BBQ en (")]
    assert len(groups) >= 2
    for i in range(11):
        assert sum(f"Category_{i:02d} (names)" in line for line in lines) == len(groups)
    # stacked, the same table took a block of 12 lines per row: 132 lines and more
    assert len(lines) < 11 * 12 / 2
    assert sum("A caption that explains" in line for line in lines) == 1


def test_groups_keep_every_column_once():
    parts = column_groups(_wide(), lambda t: len(t.columns) <= 5)
    assert parts is not None
    seen = [c for p in parts for c in p.columns[1:]]
    assert seen == list(COLUMNS[1:])
    assert all(p.columns[0] == "set" for p in parts) and [p.caption for p in parts][:-1] == [""] * (len(parts) - 1)


def test_an_empty_table_is_one_line_and_its_caption_runs_the_console_width():
    lint = Table("Data lint", ("rule", "items", "share"), (), "0 of 6 items carry a finding of biasatlas lint "
                 "(docs/lint.md); they were scored with the rest. An item counts once per rule.")
    lines = _printed(TerminalTables((lint,)), width=160)
    assert lines == ["Data lint: 0 of 6 items carry a finding of biasatlas lint (docs/lint.md); they were scored "
                     "with the rest. An item counts once per rule."]


def test_a_notice_its_table_caption_already_holds_is_printed_once():
    caveat = "Embedding association tests measure cosine geometry of one representation."
    table = Table("weat", ("test", "d"), (("weat1", 1.5),), "Effect size d. " + caveat)
    lines = "\n".join(_printed(TerminalTables((table,), (caveat, "3 words out of vocabulary.")), width=200))
    assert lines.count("cosine geometry") == 1 and "3 words out of vocabulary." in lines


def _detectable(effect, scale_end=None):
    return Detectable(effect, "bias points (×100)", "normal approximation", 40, "formula", scale_end=scale_end)


def test_no_spread_reads_not_estimable_and_beyond_the_scale_reads_its_end():
    assert effect_text(_detectable(0.0)) == "not estimable"
    assert effect_text(_detectable(143.0, 100.0)) == "beyond ±100 bias points (×100) (the scale's end)"
    assert effect_text(_detectable(28.7, 100.0)) == "±28.7 bias points (×100)"
    flat = Headline("bias_amb", "bias (ambiguous)", 0.0, (0.0, 0.0), 6, detectable=_detectable(0.0, 100.0))
    assert "±0" not in reading(flat) and "not estimable" in reading(flat)
    wide = Headline("bias_amb", "bias (ambiguous)", 10.0, (-90.0, 100.0), 6, detectable=_detectable(143.0, 100.0))
    assert "143" not in reading(wide) and "scale's end, ±100 bias points" in reading(wide)


def test_counts_print_as_counts():
    h = Headline("mean_d", "mean |d|", 1.24, controls=(Control("words out of vocabulary", 122.0, count=True),
                                                        Control("accuracy", 66.66666), Control("decided", 100.0)))
    (line,) = terminal_lines([h])
    assert "words out of vocabulary 122 (shown)" in line and "122.0" not in line
    assert "accuracy 66.7" in line and "decided 100.0" in line  # a percentage keeps its decimal


def test_the_seat_controls_count_words_and_tests():
    from biasatlas.benchmarks.seat.controls import headlines

    summary = {"benchmark": "weat", "model": "v", "tests": {}, "n_oov": 122.0, "oov_words": [], "n_significant": 6.0,
               "n_scored": 7.0, "mean_abs_d": 1.24}
    (h,) = headlines(RunView(Path("w"), {}, summary, ()))
    assert [c.sentence for c in h.controls][1] == "122 words out of vocabulary"
    assert "6 of 7 tests" in h.controls[0].sentence
    assert "tests beyond the permutation null 6 (shown)" in terminal_lines([h])[0]


def _weat(lowercase: bool) -> RunView:
    summary = {"benchmark": "weat", "model": "vectors.txt", "tests": {}, "n_oov": 2, "oov_words": ["Adam", "Aisha"]}
    return RunView(Path("w"), {"benchmark": {"lowercase": lowercase}}, summary, ())


def test_the_oov_warning_names_lowercase_when_capitalised_words_were_lost():
    from biasatlas.benchmarks.seat.view import notices

    assert "--lowercase" in notices(_weat(False))[-1]
    assert "--lowercase" not in notices(_weat(True))[-1]


def test_a_headline_without_a_value_says_why():
    from biasatlas.benchmarks.census.controls import _missing as census_missing

    h = Headline("pearson", "Pearson r (model vs census)", None, n=2, missing=census_missing(2))
    (line,) = terminal_lines([h])
    assert line.startswith("Pearson r (model vs census) – · not computed: Pearson's r needs at least 3 occupations "
                           "and this run scored 2")
    assert reading(Headline("x", "x", None)) == "not computed"


def test_a_bbq_headline_without_a_value_says_which_context_had_nothing():
    from biasatlas.benchmarks.bbq.controls import _missing
    from biasatlas.benchmarks.bbq.summary import SetScores

    assert _missing(SetScores(n_amb=0, n_dis=3), "bias_amb").startswith("no ambiguous example was scored")
    assert "named a person" in _missing(SetScores(n_amb=4, n_dis=3), "bias_dis")
