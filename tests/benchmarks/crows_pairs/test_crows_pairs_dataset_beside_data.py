"""CrowS-Pairs' ``dataset`` is ignored beside a file of one's own (``data``; its help says so), as
before issue 35: a suite may name such a cell ``dataset = "mine"`` (its folder ``crows-pairs-mine__…``).
Without a file the dataset must be a shipped one, in any case."""

from __future__ import annotations

import pytest

from biasatlas.benchmarks.crows_pairs.benchmark import CrowsPairs
from biasatlas.errors import UnknownName
from biasatlas.registry import load_benchmark


@pytest.fixture
def pairs(tmp_path):
    path = tmp_path / "mine.csv"
    path.write_text("sent_more,sent_less,stereo_antistereo,bias_type\nHe is rich.,She is rich.,stereo,gender\n")
    return path


def test_any_dataset_name_beside_a_file_of_ones_own(pairs):
    bench = load_benchmark("crows-pairs", dataset="mine", data=str(pairs))
    assert bench.dataset == "mine"
    assert bench.config()["dataset"] is None  # ignored: the file is what is recorded
    assert [p.sent_more for p in bench.load()] == ["He is rich."]


def test_without_a_file_the_dataset_must_be_shipped_in_any_case():
    assert CrowsPairs(dataset="FR").dataset == "fr"
    with pytest.raises(UnknownName, match="'mine'"):
        CrowsPairs(dataset="mine")
