"""A census table of one's own (``census=FILE``) may be labelled with any country name, as before
issue 35: the shipped countries name shipped tables, and a user's table of, say, Canada needs its
template language only. Without a table of one's own the country must be a shipped one."""

from __future__ import annotations

import pytest

from biasatlas.benchmarks.census.benchmark import Census
from biasatlas.errors import UnknownName
from biasatlas.registry import load_benchmark


@pytest.fixture
def table(tmp_path):
    path = tmp_path / "canada.csv"
    path.write_text("occupation,female_pct\nnurse,90\npilot,10\n")
    return path


def test_a_table_of_ones_own_takes_any_country_name(table):
    bench = Census(country="ca", census=table, language="en")
    assert bench.config()["country"] == "ca"
    # the same through the registry (biasatlas.evaluate and a suite's cell build it this way)
    assert load_benchmark("census", country="ca", census=str(table), language="en").country == "ca"


def test_a_shipped_name_is_still_recorded_in_its_canonical_spelling(table):
    assert Census(country="US", census=table).config()["country"] == "us"


def test_without_a_table_of_ones_own_the_country_must_be_shipped():
    with pytest.raises(UnknownName, match="'ca'"):
        Census(country="ca", language="en")
