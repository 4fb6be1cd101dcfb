"""The dataset card is the same bytes whatever the workers (issue 21, item 14): a sentence's
keyword pairs were counted from a set, whose order follows each process's string hashing,
so per-pair counts came in another key order from another worker (or another
PYTHONHASHSEED)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from biasatlas.mining.card import build_card
from biasatlas.mining.lexicon import DEFAULT_PAIRS

# 男童 holds 男: the first sentence counts for two pairs at once.
LINES = ["那个男童在公园里玩得很开心。", "他在学校里认真学习，每天都很早起床。"]
MINE = ("import sys; from pathlib import Path; from biasatlas.mining import MiningConfig, run_pipeline; "
        "run_pipeline([Path(sys.argv[1])], Path(sys.argv[2]), MiningConfig())")


@pytest.mark.slow  # a subprocess or the full data: the full suite runs it, the fast loop does not
def test_the_card_does_not_depend_on_string_hashing(tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    cards = []
    for seed in ("0", "3"):  # two hash seeds that ordered the pairs differently before
        out = tmp_path / f"out-{seed}"
        subprocess.run([sys.executable, "-c", MINE, str(corpus), str(out)], check=True, timeout=240,
                       env={**os.environ, "PYTHONHASHSEED": seed})
        cards.append((out / "dataset_card.json").read_bytes())
    assert cards[0] == cards[1]
    labels = [p.label for p in DEFAULT_PAIRS]
    for counts in json.loads(cards[0])["stages"].values():
        if "out_by_pair" in counts:
            order = list(counts["out_by_pair"])
            assert order == sorted(order, key=labels.index)  # the lexicon's order


def test_stage_counts_come_in_the_lexicon_order_and_reasons_sorted():
    pairs = ["他/她", "男/女", "男童/女童"]
    one = {"in": 3, "out": 2, "dropped": {"short": 1, "long": 2}, "out_by_pair": {"男童/女童": 1, "他/她": 2}}
    two = {"in": 3, "out": 2, "dropped": {"long": 2, "short": 1}, "out_by_pair": {"他/她": 2, "男童/女童": 1}}
    cards = [json.dumps(build_card({"match": counts}, [], pairs, {})) for counts in (one, two)]
    assert cards[0] == cards[1]
    stage = json.loads(cards[0])["stages"]["match"]
    assert list(stage["out_by_pair"]) == ["他/她", "男童/女童"] and list(stage["dropped"]) == ["long", "short"]
