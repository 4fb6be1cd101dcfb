"""Terminal tables people can read at 100–120 columns (issue 22 item 6): a table wider than the
terminal is narrowed as a person would set it (headers on two lines, a column that says the same
on every row said once in the caption) before it falls back to one block per row; every
comparison leads with a one-line headline and reads "A vs B" in that order."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from typer.testing import CliRunner

from biasatlas.cli import app, main
from biasatlas.display.tables import CI, Table, fold_constant_columns, rich_width, to_rich
from report_fixtures import CROWS_A, CROWS_B, crows_preferred, crows_run, paired_interval


def _shown(renderable, width: int) -> str:
    console = Console(width=width, file=io.StringIO(), color_system=None)
    console.print(renderable)
    return console.file.getvalue()


def _wide() -> Table:
    # 8 rows × 6 columns; "likelihood difference" (21 wide) heads 4-wide cells; "test" is the
    # same on every row
    rows = tuple((f"model-{i}", 100 + i, 50.0 + i, CI(40.0 + i, 60.0 + i), 1.25, "McNemar exact, two-sided")
                 for i in range(8))
    return Table("leaderboard", ("model", "n", "metric", "95% CI", "likelihood difference", "test"), rows,
                 "Sorted by metric.")


def test_a_table_that_fits_is_unchanged():
    table = _wide()
    assert rich_width(to_rich(table, width=500)) == rich_width(to_rich(table))


def test_headers_break_between_words_before_anything_else():
    table = _wide()
    natural = rich_width(to_rich(table))
    narrowed = to_rich(table, width=natural - 10)  # "likelihood difference" → two lines saves 11
    assert rich_width(narrowed) <= natural - 10
    text = _shown(narrowed, natural)
    assert "likelihood" in text and "difference" in text and "likelihood difference" not in text
    assert text.count("McNemar exact, two-sided") == 8  # narrowing the headers was enough: nothing folded


def test_a_constant_column_is_said_once_in_the_caption():
    folded = fold_constant_columns(_wide())
    assert "test" not in folded.columns and "likelihood difference" not in folded.columns  # both constant
    assert folded.caption.startswith("likelihood difference: 1.25; test: McNemar exact, two-sided. Sorted")
    assert folded.columns == ("model", "n", "metric", "95% CI") and len(folded.rows) == 8
    room = rich_width(to_rich(folded))  # too narrow for every column, even with headers broken
    text = _shown(to_rich(_wide(), width=room), 200)
    assert text.count("McNemar exact, two-sided") == 1 and "model-7" in text and "model: " not in text


def test_a_single_row_folds_nothing():
    one = Table("t", ("a", "b"), (("x", "same"),))
    assert fold_constant_columns(one) == one


def test_only_a_table_too_wide_for_all_that_is_stacked():
    text = _shown(to_rich(_wide(), width=30), 200)
    assert "model: model-0" in text  # one block per row, headed by its first cell


def test_compare_reads_a_vs_b_with_a_headline_and_fits_110_columns(tmp_path):
    a, b = crows_run(tmp_path / "a"), crows_run(tmp_path / "b", model="m2", outcomes=CROWS_B)
    done = CliRunner().invoke(app, ["compare", str(a), str(b)], env={"COLUMNS": "110"}, terminal_width=110)
    assert done.exit_code == 0, done.output
    # A = camembert (50.00 %), B = m2 (66.67 %): B − A = +16.67; McNemar exact on 2 vs 4 discordant: p = 0.6875
    low, high = paired_interval(crows_preferred(CROWS_A), crows_preferred(CROWS_B))
    assert f"almanach/camembert-base vs m2: B − A = +16.67 [{low:.2f}, {high:.2f}] (% sent_more preferred, " \
           "all pairs), McNemar exact p = 0.688." in " ".join(done.output.split())
    # the 122-character headline wraps between words, never inside its interval
    assert any(f"[{low:.2f},\u00a0{high:.2f}]" in line for line in done.output.splitlines())
    assert "crows-pairs (fr+210): almanach/camembert-base vs m2" in done.output
    assert "model: " not in done.output  # tables, not blocks of rows
    assert max(len(line) for line in done.output.splitlines()) <= 110


@pytest.mark.slow  # about a second: the full suite runs it, the fast loop does not
def test_compare_warns_on_one_folder_given_twice_and_one_folder_is_a_usage_error(tmp_path):
    a, b = crows_run(tmp_path / "a"), crows_run(tmp_path / "b", model="m2", outcomes=CROWS_B)
    done = CliRunner().invoke(app, ["compare", str(a), str(b), str(b)], env={"COLUMNS": "200"})
    assert "given twice" in done.output
    with pytest.raises(SystemExit) as exited:
        main(["compare", str(a)])
    assert exited.value.code == 2


def test_folding_that_would_leave_names_alone_folds_nothing():
    # two runs of a fake model agree on every number: folding would leave the model column only
    same = Table("CrowS-Pairs leaderboard", ("model", "n", "metric", "ties"), (("a", 12, 50.0, 1), ("b", 12, 50.0, 1)))
    assert fold_constant_columns(same) == same
    text = _shown(to_rich(same, width=18), 200)
    assert "model: a" in text and "CrowS-Pairs leaderboard" in text  # stacked, its title whole


def test_a_table_of_a_few_rows_too_wide_even_folded_is_turned_on_its_side():
    from biasatlas.display.tables import transposed

    # one run's values and its intervals, as census's Table 3/4 prints them: 2 rows × 6 columns
    table = Table("scores", ("model", "normative", "descriptive", "balanced", "female", "male"),
                  (("a-rather-long-model-name (conditional)", 33.33, 58.33, 0.0, 25.0, 33.33),
                   ("95% CI", CI(8.3, 58.3), CI(33.1, 83.3), None, None, None)))
    side = transposed(table)
    assert side.columns == ("model", "a-rather-long-model-name (conditional)", "95% CI")
    assert side.rows[0] == ("normative", 33.33, CI(8.3, 58.3)) and len(side.rows) == 5
    text = _shown(to_rich(table, width=70), 70)
    assert "model: " not in text and all(len(line) <= 70 for line in text.splitlines())
    assert any("descriptive" in line and "58.33" in line and "[33.1, 83.3]" in line for line in text.splitlines())
