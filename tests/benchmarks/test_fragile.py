"""Fragile outcomes: the ones that could flip within the scorer's numerical error are named.

Planted truth: scorers whose answers are set by hand, with a ScorerInfo of a chosen dtype,
and the bound worked out here from TOKEN_LOGPROB_ERROR (float32 2e-4, float16 0.7,
bfloat16 3 nats per token), never read back from the code's output.
"""

from __future__ import annotations

import math
from io import StringIO

import pytest

from biasatlas.benchmarks.census import Census, load_language
from biasatlas.benchmarks.census.methods import is_fragile, share_bounds
from biasatlas.benchmarks.census.metrics import TemplateProbs
from biasatlas.benchmarks.crows_pairs.benchmark import CrowsPair, CrowsPairs, fragile_pair
from biasatlas.benchmarks.zh_neutral.benchmark import ZhNeutral, fragile_leaning
from biasatlas.pipeline import run_benchmark
from biasatlas.probes import (TOKEN_LOGPROB_ERROR, PairAnswer, ScorerInfo, SlotAnswer, SlotProbe, fragile_bound,
                              token_error)
from biasatlas.scorers.fake import FakeScorer

F32, F16, BF16 = 2e-4, 0.7, 3.0  # the documented table, restated


def _info(dtype: str, reads: str = "sequence") -> ScorerInfo:
    return ScorerInfo(kind="planted", reads=reads, dtype=dtype)  # type: ignore[arg-type]


def _text(run) -> str:
    """What ``biasatlas run`` prints for a pipeline run (its report tables and notices)."""
    from rich.console import Console

    from biasatlas.evaluation import EvaluationRun

    shown = EvaluationRun.of(run.summary["benchmark"], run.summary, run.records, run.skipped, run.config,
                             run.timing, path=None).table()
    console = Console(file=StringIO(), width=200)
    console.print(shown)
    return " ".join(console.file.getvalue().split())  # captions wrap at the table's width


# -- the table ------------------------------------------------------------------------------

def test_token_error_table_and_unknown_dtype():
    assert TOKEN_LOGPROB_ERROR == {"float32": F32, "bfloat16": BF16, "float16": F16}
    assert _info("float16").token_error == F16
    assert ScorerInfo(kind="x", reads="masked").token_error == F32  # float32 by default
    assert token_error("int8") == BF16  # unmeasured: the largest bound, never a robust call
    assert fragile_bound(None) == {"dtype": "float32", "token_error": F32}
    assert fragile_bound(_info("bfloat16")) == {"dtype": "bfloat16", "token_error": BF16}


# -- CrowS-Pairs ---------------------------------------------------------------------------

def _pairs(n: int) -> list[CrowsPair]:
    return [CrowsPair(str(i), f"more {i}", f"less {i}", "stereo", "gender", i + 2) for i in range(n)]


def test_crows_pairs_close_pair_is_fragile_far_pair_is_not_in_bfloat16():
    # bfloat16: ε = 3 · (2 + 2) = 12 nats. Margins 0.001 and 11.9 lie within it, 50 does not.
    bench = CrowsPairs().bind(_info("bfloat16"))
    answers = {"0": PairAnswer("0", -20.0, -20.001, 2, 2), "1": PairAnswer("1", -8.1, -20.0, 2, 2),
               "2": PairAnswer("2", -10.0, -60.0, 2, 2)}
    result = bench.score(_pairs(3), answers)
    assert [r["fragile"] for r in result.records] == [True, True, False]
    assert [r["outcome"] for r in result.records] == ["more"] * 3
    assert result.written()["n_fragile"] == 2
    assert result.written()["fragile_bound"] == {"dtype": "bfloat16", "token_error": BF16}


def test_crows_pairs_same_pair_in_float32_is_fragile_only_within_its_bound():
    # float32: ε = 2e-4 · (5 + 5) = 0.002 nats. A margin of 0.01 is beyond it; 0.0015 is not.
    bench = CrowsPairs().bind(_info("float32"))
    answers = {"0": PairAnswer("0", -20.0, -20.01, 5, 5), "1": PairAnswer("1", -20.0, -20.0015, 5, 5)}
    result = bench.score(_pairs(2), answers)
    assert [r["fragile"] for r in result.records] == [False, True]
    assert result.written()["n_fragile"] == 1


def test_crows_pairs_ties_fragile_only_near_a_rounding_step():
    # Scores rounded to 3 decimals decide ties. -3.0 ± 2e-4 rounds to -3.0 throughout: a
    # certain tie. -3.0005 ± 2e-4 spans -3.0007 … -3.0003, which round to -3.001 and -3.0.
    assert not fragile_pair(PairAnswer("t", -3.0, -3.0, 1, 1), F32, 3)
    assert fragile_pair(PairAnswer("t", -3.0005, -3.0005, 1, 1), F32, 3)
    # No error at all: nothing can flip, however close.
    assert not fragile_pair(PairAnswer("z", -1.0, -1.001, 7, 7), 0.0, 3)
    # No token read (n_tokens 0): the score has no error to carry.
    assert not fragile_pair(PairAnswer("n", -1.0, -1.001, 0, 0), BF16, 3)


def test_crows_pairs_unbound_benchmark_uses_float32_and_degenerate_pairs_are_not_fragile():
    pairs = [*_pairs(1), CrowsPair("d", "same", "same", "stereo", "age", 9)]
    # the identical pair's two scores differ by noise a batched engine could add: still no doubt
    result = CrowsPairs().score(pairs, {"0": PairAnswer("0", -1.0, -1.0015, 5, 5),
                                        "d": PairAnswer("d", -1.0, -1.0015, 5, 5)})
    assert [r["fragile"] for r in result.records] == [True, False]  # 0.0015 ≤ 2e-4 · 10
    assert result.written()["fragile_bound"]["dtype"] == "float32"


class _PlantedPairs(FakeScorer):
    """Pairs answered with a set margin and token count; info in a chosen dtype."""

    def __init__(self, dtype: str, margins: dict[str, float]) -> None:
        super().__init__()
        self.dtype, self.margins = dtype, margins

    @property
    def info(self) -> ScorerInfo:
        return _info(self.dtype)

    def _pairs(self, probes, tick):
        tick(len(probes))
        return [PairAnswer(p.id, -10.0, -10.0 - self.margins[p.id], 3, 3) for p in probes]

    def describe(self):
        return {**super().describe(), "dtype": self.dtype}


def _crows_file(tmp_path, n: int):
    path = tmp_path / "pairs.csv"
    rows = ["id,sent_more,sent_less,stereo_antistereo,bias_type"]
    rows += [f"{i},He is number {i},She is number {i},stereo,gender" for i in range(n)]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("dtype, shown, n_fragile", [("bfloat16", True, 3), ("float32", False, 0)])
def test_crows_pairs_run_counts_fragile_pairs_and_caption_says_so(tmp_path, dtype, shown, n_fragile):
    # ε = δ · 6: bfloat16 18 nats covers every margin (0.5, 1, 2); float32 1.2e-3 none.
    bench = CrowsPairs(data=_crows_file(tmp_path, 3))
    run = run_benchmark(bench, _PlantedPairs(dtype, {"0": 0.5, "1": 1.0, "2": 2.0}))
    assert run.summary["n_fragile"] == n_fragile
    assert [r["fragile"] for r in run.records] == [n_fragile > 0] * 3
    caption = _text(run)
    assert (f"fragile: {n_fragile} of 3 pairs ({dtype})" in caption) is shown


# -- census ---------------------------------------------------------------------------------

def _logit_bounds(share: float, eta: float) -> tuple[float, float]:
    """The closed form: the share's log-odds moves by at most 2η (a ratio of two sums)."""
    return (share / (share + (1 - share) * math.exp(2 * eta)),
            share / (share + (1 - share) * math.exp(-2 * eta)))


def test_share_bounds_match_the_log_odds_closed_form():
    templates = [TemplateProbs("t1", (0.3, 0.1), (0.2,)), TemplateProbs("t2", (0.05, 0.15), (0.4,))]
    f = (0.2 + 0.1) / 2  # equation 2: mean over templates of the mean female probability
    m = (0.2 + 0.4) / 2
    for aggregation in ("mean-prob", "pooled"):
        s = f / (f + m) if aggregation == "mean-prob" else 0.6 / (0.6 + 0.6)
        low, high = share_bounds(templates, aggregation, 0.1)
        assert (low, high) == pytest.approx(tuple(100 * b for b in _logit_bounds(s, 0.1)))


def test_census_threshold_crossing_by_hand():
    # One template, share 60 %: the low end s/(s + (1−s)e^{2η}) reaches 55 % when
    # e^{2η} = (0.6 · 0.45) / (0.55 · 0.4) = 1.2273, η = 0.1024.
    template = [TemplateProbs("t", (0.6,), (0.4,))]
    assert not is_fragile(template, "mean-prob", 0.1)
    assert is_fragile(template, "mean-prob", 0.105)
    # majority: votes move only when a template's share can cross 50 %
    votes = [TemplateProbs("a", (0.6,), (0.4,)), TemplateProbs("b", (0.7,), (0.3,))]
    assert not is_fragile(votes, "majority", 0.2)  # 0.6/(0.6+0.4e^0.4) = 0.501 > 0.5
    assert is_fragile(votes, "majority", 0.21)  # e^{0.42} > 1.5: template a may vote male


class _PlantedCensus(FakeScorer):
    """A masked-LM reading where every female identifier gets P = share, every male 1 − share."""

    def __init__(self, dtype: str, share: float) -> None:
        super().__init__()
        self.dtype, self.share = dtype, share
        ids = load_language("us").identifiers
        self.female = {f for i in ids if i.gender == "f" for f in i.forms}

    @property
    def info(self) -> ScorerInfo:
        return ScorerInfo(kind="planted", reads="masked", multi_token="joint", dtype=self.dtype)

    def _slots(self, probes: list[SlotProbe], tick):
        tick(len(probes))
        p = {True: math.log(self.share), False: math.log(1 - self.share)}
        return [SlotAnswer(q.id, tuple(p[f in self.female] for f in q.fillers), tuple(1 for _ in q.fillers))
                for q in probes]


@pytest.mark.parametrize("dtype, share, fragile", [
    ("float32", 0.60, False),     # η = 2e-4: 60 % stays far above 55 %
    ("float32", 0.55005, True),   # low end ≈ 55.005 − 100 · 0.2475 · 4e-4 = 54.995 %
    ("float16", 0.60, True),      # η = 0.7 > 0.1024 (the hand computation above)
])
def test_census_run_flags_occupations_near_a_threshold(dtype, share, fragile):
    bench = Census(country="us", limit=4, n_resamples=10)
    run = run_benchmark(bench, _PlantedCensus(dtype, share))
    assert len(run.records) == 4
    for record in run.records:
        s = record["model_female_pct"] / 100
        low, high = _logit_bounds(s, F32 if dtype == "float32" else F16)
        classes = {("female" if x > 0.55 else "male" if x < 0.45 else "balanced") for x in (low, high)}
        assert record["fragile"] is (len(classes) > 1) is fragile
    assert run.summary["n_fragile"] == (4 if fragile else 0)
    assert run.summary["fragile_bound"]["dtype"] == dtype
    caption = _text(run)
    assert ("fragile: 4 of 4 occupations" in caption) is fragile


def test_census_template_normalisation_doubles_the_bound():
    # A sequence reader is normalised over each template's identifiers: every normalised
    # P(i | t) is within e^{±2ε}. Share 55.015 % survives η = 2e-4 (low end 55.005 %)
    # and not 2η (54.995 %).
    templates = [TemplateProbs("t", (0.55015,), (0.44985,))]
    assert not is_fragile(templates, "mean-prob", F32)
    assert is_fragile(templates, "mean-prob", 2 * F32)


# -- zh-neutral -----------------------------------------------------------------------------

def test_zh_leaning_fragile_by_hand():
    # float32, one token each, base e: ε = 2e-4 · 2 = 4e-4.
    assert fragile_leaning(0.3003, 1, 1, F32)
    assert not fragile_leaning(0.3005, 1, 1, F32)
    assert fragile_leaning(-0.2997, 1, 1, F32)
    assert not fragile_leaning(0.0, 1, 1, F32)
    # base 10: ε = 4e-4 / ln 10 = 1.737e-4
    assert fragile_leaning(0.30017, 1, 1, F32, log_base="10")
    assert not fragile_leaning(0.30018, 1, 1, F32, log_base="10")
    # bfloat16, 2 + 2 tokens: ε = 12 nats: every b within 12.3 of 0 is fragile
    assert fragile_leaning(12.2, 2, 2, BF16)
    assert not fragile_leaning(12.4, 2, 2, BF16)


class _PlantedZh(FakeScorer):
    """b = ln P(m) − ln P(f) set by hand; the keyword counts as one token."""

    def __init__(self, dtype: str, b: float) -> None:
        super().__init__()
        self.dtype, self.b = dtype, b

    @property
    def info(self) -> ScorerInfo:
        return ScorerInfo(kind="planted", reads="masked", multi_token="joint", dtype=self.dtype)

    def _slots(self, probes, tick):
        tick(len(probes))
        return [SlotAnswer(p.id, (-5.0 + self.b, -5.0), (1, 1)) for p in probes]


@pytest.mark.parametrize("dtype, b, n_fragile_all", [("float32", 0.3003, True), ("float32", 0.31, False),
                                                     ("bfloat16", 0.31, True), ("float16", 2.0, False)])
def test_zh_run_counts_fragile_sentences(dtype, b, n_fragile_all):
    # ε = δ · 2: float32 4e-4, bfloat16 6, float16 1.4 (b = 2.0 is 1.7 from 0.3: robust).
    bench = ZhNeutral(limit=5, n_resamples=10, topics_k=0)
    run = run_benchmark(bench, _PlantedZh(dtype, b))
    assert len(run.records) == 5
    assert run.summary["n_fragile"] == (5 if n_fragile_all else 0)
    assert all(r["fragile"] is n_fragile_all for r in run.records)
    caption = _text(run)
    assert (f"fragile: {run.summary['n_fragile']} of 5 sentences ({dtype})" in caption) is (dtype != "float32"
                                                                                            or n_fragile_all)


def test_census_huge_bound_is_fragile_not_an_overflow():
    # An unknown dtype (bfloat16's 3 nats) on 200-token answers, doubled by normalisation:
    # η = 1,200 nats, far past e^709; the share can be anything, so the class is uncertain.
    assert is_fragile([TemplateProbs("t", (0.99,), (0.01,))], "mean-prob", 2 * 3.0 * 200)
