"""zh-neutral analyses (Zhao et al. 2021 §5): correlation of per-sentence b across runs,
the case study of one pair, topic words of the leaning subsets, and ``zh-analyze``."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from biasatlas.benchmarks.zh_neutral import ZhNeutral
from biasatlas.benchmarks.zh_neutral.analysis import (case_study, context_text, correlate,
                                                      correlate_runs, read_records, topic_words,
                                                      topics)
from biasatlas.errors import DataError
from biasatlas.pipeline import run_benchmark
from biasatlas.runs.folder import write_run
from biasatlas.scorers.fake import FakeScorer


def test_correlation_joins_on_id_and_matches_numpy_and_pandas():
    rng = np.random.default_rng(5)
    x = rng.normal(size=50)
    y = 0.8 * x + rng.normal(scale=0.5, size=50)
    a = {f"s{i}": float(v) for i, v in enumerate(x)}
    # b lacks s0..s4 and has an extra id, in another order: 45 shared items.
    b = {f"s{i}": float(v) for i, v in reversed(list(enumerate(y))) if i >= 5} | {"extra": 9.0}
    got = correlate(a, b, a="A", b="B")
    assert (got.a, got.b, got.n) == ("A", "B", 45)
    xs, ys = x[5:], y[5:]
    assert got.pearson == pytest.approx(np.corrcoef(xs, ys)[0, 1], abs=1e-12)
    ranks = pd.DataFrame({"x": xs, "y": ys}).rank()
    assert got.spearman == pytest.approx(np.corrcoef(ranks["x"], ranks["y"])[0, 1], abs=1e-12)
    assert got.pearson_p < 1e-6


def test_correlation_ignores_the_log_base_and_needs_three_items():
    a = {"1": 0.5, "2": -1.0, "3": 2.0, "4": 0.1}
    in_base10 = {k: v / math.log(10) for k, v in a.items()}
    got = correlate(a, in_base10)
    assert got.pearson == pytest.approx(1.0) and got.spearman == pytest.approx(1.0)
    with pytest.raises(DataError, match="share 2 scored item"):
        correlate(a, {"1": 0.0, "2": 1.0, "x": 3.0})


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Three fake runs on the demo set: two scorers favouring male words by different
    amounts share their hash noise, so their b correlate; a plain hash run does not."""
    root = tmp_path_factory.mktemp("zh-runs")
    out = {}
    for name, scorer in (("plain", FakeScorer()), ("male5", FakeScorer(boost=("他",), bias=5.0)),
                         ("male9", FakeScorer(boost=("他",), bias=9.0))):
        out[name] = write_run(run_benchmark(ZhNeutral(topics_k=0), scorer), root / name)
    return out


def test_correlate_runs_every_pair(runs):
    rows = correlate_runs([runs["plain"], runs["male5"], runs["male9"]])
    assert [(r.a, r.b) for r in rows] == [(str(runs["plain"]), str(runs["male5"])),
                                          (str(runs["plain"]), str(runs["male9"])),
                                          (str(runs["male5"]), str(runs["male9"]))]
    assert all(r.n == 80 for r in rows)
    # male5 and male9 differ by +4 only where a filled-in sentence holds 他: still close to 1.
    assert rows[2].pearson > 0.9
    with pytest.raises(DataError, match="at least two"):
        correlate_runs([runs["plain"]])


def test_read_records_refuses_other_benchmarks(tmp_path, runs):
    import json

    other = tmp_path / "other"
    other.mkdir()
    for name in ("config.json", "items.jsonl"):
        (other / name).write_text((runs["plain"] / name).read_text())
    summary = json.loads((runs["plain"] / "summary.json").read_text())
    (other / "summary.json").write_text(json.dumps({**summary, "benchmark": "census"}))
    with pytest.raises(DataError, match="'census' run, not a zh-neutral one"):
        read_records(other)


def _rec(i: int, b: float, pair: str = "男童/女童", sentence: str = "一名男童在公园里玩。",
         keyword: str = "男童", offset: int = 2, lean: str | None = None) -> dict:
    lean = lean or ("male" if b > 0.3 else "female" if b < -0.3 else "neutral")
    return {"id": str(i), "b": b, "pair": pair, "sentence": sentence, "keyword": keyword,
            "offset": offset, "leaning": lean}


def test_case_study_counts_and_lists_one_pair():
    records = [_rec(1, 0.9), _rec(2, -0.5, sentence="一名女童在哭。", keyword="女童"), _rec(3, -1.2),
               _rec(4, 0.1), _rec(5, 2.0, pair="他/她")]
    study = case_study(records, "男童/女童")
    # 4 sentences of the pair: one leans boy (0.9), two girl (-0.5, -1.2), one neutral (0.1).
    assert study.n == 4 and study.counts == {"male": 1, "female": 2, "neutral": 1}
    assert study.sentences["female"] == ("一名女童在哭。", "一名男童在公园里玩。")
    with pytest.raises(DataError, match="pairs present: 他/她, 男童/女童"):
        case_study(records, "爷爷/奶奶")


def test_topic_words_of_each_leaning_subset():
    female = ["她每天下午去学校接孩子。", "她给孩子做了早饭。", "孩子生病时她请了假。", "她陪孩子读书。"]
    male = ["他每天忙于工作到深夜。", "他的工作需要经常出差。", "他下班后还在想工作。", "他找到了新工作。"]
    records = [_rec(i, -1.0, "他/她", s, "她", s.index("她")) for i, s in enumerate(female)]
    records += [_rec(10 + i, 1.0, "他/她", s, "他", s.index("他")) for i, s in enumerate(male)]
    top_female = [w for w, _ in topic_words(records, "female", top_k=3)]
    top_male = [w for w, _ in topic_words(records, "male", top_k=3)]
    assert top_female[0] == "孩子" and top_male[0] == "工作"
    ranked = [w for w, _ in topic_words(records, "female", top_k=5, method="textrank")]
    assert "孩子" in ranked[:2]
    # The keyword is cut out of every context, so it never becomes a topic word.
    words = {w for lean in topics(records, 10).values() for ws in lean.values() for w, _ in ws}
    assert not words & {"他", "她"}
    assert context_text(records[0]) == " 每天下午去学校接孩子。"
    assert topic_words(records, "neutral") == [] and topics(records, 0) == {}
    with pytest.raises(ValueError, match="topic method"):
        topic_words(records, "male", method="lda")  # type: ignore[arg-type]


def test_zh_analyze_command(runs):
    from typer.testing import CliRunner

    from biasatlas.cli import app

    runner = CliRunner()
    result = runner.invoke(app, ["zh-analyze", str(runs["male5"]), str(runs["male9"]),
                                 "--pair", "男童/女童", "--topics", "--top-k", "3"])
    assert result.exit_code == 0, result.output
    assert "Pearson" in result.output and "男童/女童: n=5" in result.output
    assert "female · tfidf:" in result.output
    result = runner.invoke(app, ["zh-analyze", str(runs["male5"])])
    assert isinstance(result.exception, DataError) and "nothing to do" in str(result.exception)
