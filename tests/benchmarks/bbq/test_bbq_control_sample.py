"""MBBQ's ``--sample`` and ``--limit`` count regular items and bring each one's control twin along.

They drew from the regular and control sets pooled: with ``--sample 3`` all three could be control
items, the main table then had a header and no rows, and both headlines read "– [FLAGGED]".
"""

from __future__ import annotations

import pytest

from biasatlas.benchmarks.bbq import BBQ
from shared_data import shared_data_dir

MBBQ = shared_data_dir() / "mbbq"


def _split(items):
    regular = [e for e in items if not e.control]
    control = [e for e in items if e.control]
    return regular, control


@pytest.mark.parametrize("seed", range(6))
def test_a_sample_is_regular_items_with_their_control_twins(seed):
    items = BBQ(dataset="mbbq-en", category="Age", control=True, sample=3, seed=seed, data=MBBQ).load()
    regular, control = _split(items)
    # three regular items; the control twin of each is the item of the same id behind "control/"
    assert len(regular) == 3
    assert sorted(e.id for e in control) == sorted(f"control/{e.id}" for e in regular)


def test_the_same_seed_draws_the_same_regular_items_with_or_without_the_control_set():
    with_control = BBQ(dataset="mbbq-nl", category="SES", control=True, sample=4, seed=7, data=MBBQ).load()
    without = BBQ(dataset="mbbq-nl", category="SES", control=False, sample=4, seed=7, data=MBBQ).load()
    assert [e.id for e in _split(with_control)[0]] == [e.id for e in without]


def test_a_limit_is_the_first_regular_items_and_their_twins():
    items = BBQ(dataset="mbbq-en", category="Age", control=True, limit=2, data=MBBQ).load()
    assert [e.id for e in items] == ["Age/0", "Age/1", "control/Age/0", "control/Age/1"]


def test_no_subset_keeps_every_item_of_both_sets():
    items = BBQ(dataset="mbbq-tr", category="Age", control=True, data=MBBQ).load()
    regular, control = _split(items)
    assert len(regular) == len(control) == 3320  # Age_tr.jsonl and Age_control_tr.jsonl: 3,320 lines each
