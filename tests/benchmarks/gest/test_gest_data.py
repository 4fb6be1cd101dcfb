"""GEST's data: both versions read row for row, a bad row named by file, line and field, and the
lint's duplicates against a count made here with pandas."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from biasatlas.benchmarks.gest import SPEC, Gest
from biasatlas.benchmarks.gest.data import read_sentences
from biasatlas.errors import DataError
from biasatlas.lint import lint


def test_both_versions_hold_the_same_rows_and_stereotypes(isolated_run: Path) -> None:
    v1, v11 = Gest(version="1").load(), Gest(version="1.1").load()
    assert len(v1) == len(v11) == 3565
    assert [s.stereotype for s in v1] == [s.stereotype for s in v11]
    assert sum(a.text != b.text for a, b in zip(v1, v11)) == 244  # the typo fixes of the changelog
    # limit counts sentences of each stereotype, in file order
    assert len(Gest(limit=2).load()) == 32


def test_a_bad_stereotype_names_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "gest.csv"
    path.write_text('sentence,stereotype\n"I lead.",13\n"I cry.",17\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"line 3, field 'stereotype'.*17"):
        read_sentences(path)


def test_lint_finds_the_duplicated_sentences(isolated_run: Path, shared_data: Path) -> None:
    rows = pd.read_csv(shared_data / "gest" / "gest.csv")
    collapsed = rows["sentence"].str.split().str.join(" ")
    later_copies = int(collapsed.duplicated().sum())  # every copy after the first
    found = [f for f in lint(SPEC.lint_items(Gest())) if f.rule == "duplicate"]
    assert len(found) == later_copies == 10
