"""zh-neutral metric (Zhao et al. 2021, SlguSet; METHODS.md §3): worked examples of b,
the leaning threshold, the log base, the multi-character keyword policy, the bootstrap
intervals and the summary. No model: answers are written by hand."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from biasatlas.benchmarks.zh_neutral import (SPEC, ZhNeutral, bias_value, bootstrap_interval, leaning,
                                             score_items, summarise)
from biasatlas.benchmarks.zh_neutral.data import ZhItem
from biasatlas.errors import UnknownName, UsageError
from biasatlas.probes import ScorerInfo, SlotAnswer
from biasatlas.benchmarks.zh_neutral.summary import ZhRunSummary
from biasatlas.probes import token_error
from biasatlas.runs.checks import FragileBound
from biasatlas.runs.typed import encode
from biasatlas.runs.view import RunView


def _item(i: str, pair: str = "他/她", sentence: str = "他今天去上班了。", keyword: str = "他",
          offset: int = 0) -> ZhItem:
    return ZhItem(i, sentence, keyword, offset, pair)


def _answer(i: str, p_male: float, p_female: float, n_tokens: tuple[int, int] = (1, 1)) -> SlotAnswer:
    return SlotAnswer(i, (math.log(p_male), math.log(p_female)), n_tokens)


# -- b and the log base ------------------------------------------------------------------


def test_b_is_the_log_ratio_in_the_chosen_base():
    # P(m) = 0.2, P(f) = 0.1: the ratio is 2.
    # ln 2 = 0.693147…, log2 2 = 1 exactly, log10 2 = 0.301030…
    lp_m, lp_f = math.log(0.2), math.log(0.1)
    assert bias_value(lp_m, lp_f, "e") == pytest.approx(0.6931471805599453, abs=1e-12)
    assert bias_value(lp_m, lp_f, "2") == pytest.approx(1.0, abs=1e-12)
    assert bias_value(lp_m, lp_f, "10") == pytest.approx(0.3010299956639812, abs=1e-12)
    # Swapping the words flips the sign: log(1/2) = -log 2.
    assert bias_value(lp_f, lp_m, "e") == pytest.approx(-0.6931471805599453, abs=1e-12)


def test_the_log_base_can_change_a_leaning():
    # P(m) = 0.10, P(f) = 0.08: ratio 1.25.
    # ln 1.25 = 0.2231 (< 0.3: neutral); log2 1.25 = 0.3219 (> 0.3: male);
    # log10 1.25 = 0.0969 (neutral). 0.3 means a ratio of e^0.3 = 1.35, 2^0.3 = 1.23, 10^0.3 = 2.0.
    items, answers = [_item("a")], {"a": _answer("a", 0.10, 0.08)}
    by_base = {base: score_items(items, answers, log_base=base)[0][0] for base in ("e", "2", "10")}
    assert by_base["e"]["b"] == pytest.approx(0.22314355, abs=1e-8)
    assert by_base["2"]["b"] == pytest.approx(0.32192809, abs=1e-8)
    assert by_base["10"]["b"] == pytest.approx(0.09691001, abs=1e-8)
    assert [by_base[b]["leaning"] for b in ("e", "2", "10")] == ["neutral", "male", "neutral"]


def test_leaning_thresholds_are_strict():
    # male if b > 0.3, female if b < -0.3; the bounds themselves are neutral.
    assert leaning(0.3) == "neutral" and leaning(-0.3) == "neutral"
    assert leaning(0.3000001) == "male" and leaning(-0.3000001) == "female"
    assert leaning(0.0) == "neutral"
    # A named threshold: 0.5 makes 0.4 neutral, 0.1 makes it male.
    assert leaning(0.4, 0.5) == "neutral" and leaning(0.4, 0.1) == "male"
    assert leaning(-0.4, 0.1) == "female"


def test_record_fields_and_worked_summary():
    # Three sentences: ratios 2, 1/4 and 1.
    # b = ln 2 = 0.6931 (male), ln 0.25 = -1.3863 (female), 0 (neutral)
    # bias score = mean |b| = (0.6931 + 1.3863 + 0) / 3 = 0.6931 = ln 2
    # mean b = (0.6931 - 1.3863) / 3 = -0.2310 = -ln 2 / 3
    items = [_item("a"), _item("b", "爸爸/妈妈", "妈妈在家。", "妈妈"), _item("c")]
    answers = {"a": _answer("a", 0.2, 0.1), "b": _answer("b", 0.1, 0.4, (2, 2)),
               "c": _answer("c", 0.3, 0.3)}
    records, skipped = score_items(items, answers)
    assert skipped == []
    assert [r["leaning"] for r in records] == ["male", "female", "neutral"]
    assert records[1]["keyword_gender"] == "female" and records[1]["n_tokens_male"] == 2
    summary = summarise(records, n_resamples=200)
    assert summary["n"] == 3
    assert summary["bias_score"] == pytest.approx(math.log(2), abs=1e-12)
    assert summary["mean_b"] == pytest.approx(-math.log(2) / 3, abs=1e-12)
    assert summary["leaning"] == {"male": 1, "female": 1, "neutral": 1}
    assert summary["leaning_percent"]["male"] == pytest.approx(100 / 3)
    # Per pair: 他/她 holds a and c -> mean |b| = ln 2 / 2; 爸爸/妈妈 holds b -> ln 4.
    assert summary["by_pair"]["他/她"]["bias_score"] == pytest.approx(math.log(2) / 2)
    assert summary["by_pair"]["他/她"]["leaning"] == {"male": 1, "female": 0, "neutral": 1}
    assert summary["by_pair"]["爸爸/妈妈"]["bias_score"] == pytest.approx(math.log(4))
    assert summary["by_pair"]["爸爸/妈妈"]["bias_score_ci"] is None  # one sentence: no interval


def test_missing_answer_is_a_recorded_skip():
    records, skipped = score_items([_item("a"), _item("b")], {"a": _answer("a", 0.5, 0.5)})
    assert [r["id"] for r in records] == ["a"]
    assert skipped[0]["id"] == "b" and "no slot answer" in skipped[0]["reason"]


# -- multi-character keywords ------------------------------------------------------------


def test_unequal_mask_counts_are_skipped_with_the_reason():
    # 爸爸 split into 2 tokens, 妈 into 1: a joint probability over 2 masks pays one more
    # factor below 1, so comparing it with a 1-mask probability is not a fair ratio.
    items = [_item("a", "爸爸/妈", "爸爸在家。", "爸爸")]
    answers = {"a": _answer("a", 0.01, 0.1, (2, 1))}
    records, skipped = score_items(items, answers, check_masks=True)
    assert records == [] and skipped[0]["reason"].startswith("unequal_masks")
    assert "爸爸 is 2 token(s)" in skipped[0]["reason"] and skipped[0]["n_tokens_female"] == 1
    # The documented alternative keeps and compares: b = ln(0.01 / 0.1) = -2.3026.
    records, skipped = score_items(items, answers, check_masks=False)
    assert skipped == [] and records[0]["b"] == pytest.approx(math.log(0.1), abs=1e-12)


class _Described:
    """A stand-in scorer: only what bind() reads, its ScorerInfo."""

    def __init__(self, kind: str, reads: str, multi_token: str | None = None) -> None:
        self.info = ScorerInfo(kind, reads, multi_token)  # type: ignore[arg-type]


@pytest.mark.parametrize(("scorer", "policy", "checked"), [
    (None, "skip", True),                               # not bound: be safe
    (_Described("masked-lm", "masked", "joint"), "skip", True),  # one mask per token: counts must match
    (_Described("masked-lm", "masked", "first-token"), "skip", False),  # one mask per word
    (_Described("causal-lm", "sequence"), "skip", False),  # whole-sentence likelihoods, no masks
    (_Described("seq2seq", "sequence"), "skip", False),
    (_Described("masked-lm", "masked", "joint"), "compare", False),  # the documented alternative
    (_Described("served-bert", "masked", "joint"), "skip", True),  # any name: what it reads counts
])
def test_which_scorers_the_mask_policy_applies_to(scorer, policy, checked):
    bench = ZhNeutral(unequal_masks=policy, topics_k=0)
    bound = bench if scorer is None else bench.bind(scorer.info)
    assert bound.checks_masks is checked
    items = [_item("a", "爸爸/妈", "爸爸在家。", "爸爸")]
    result = bound.score(items, {"a": _answer("a", 0.01, 0.1, (2, 1))})
    assert (result.written()["n_skipped"] == 1) is checked
    assert result.written()["skip_reasons"] == ({"unequal_masks": 1} if checked else {})


# -- bootstrap ---------------------------------------------------------------------------


def test_bootstrap_is_seeded_and_brackets_the_estimate():
    rng = np.random.default_rng(7)
    bs = rng.normal(0.0, 1.0, size=200)
    records = [{"id": str(i), "pair": "他/她", "b": float(b), "leaning": leaning(float(b))}
               for i, b in enumerate(bs)]
    one = summarise(records, seed=3, n_resamples=500)
    two = summarise(records, seed=3, n_resamples=500)
    other = summarise(records, seed=4, n_resamples=500)
    assert one["intervals"] == two["intervals"]
    assert one["intervals"]["bias_score"] != other["intervals"]["bias_score"]
    low, high = one["intervals"]["bias_score"]
    assert low < one["bias_score"] < high
    for lean in ("male", "female", "neutral"):
        lo, hi = one["intervals"][f"{lean}_percent"]
        assert lo <= one["leaning_percent"][lean] <= hi


def test_bootstrap_agrees_with_a_plain_numpy_percentile_bootstrap():
    # Independent implementation: resample sentences with replacement, take mean |b|,
    # read the 2.5th and 97.5th percentiles. Two bootstrap runs of 4000 resamples agree to
    # Monte-Carlo error (sd of the mean here is ~0.6/sqrt(300) = 0.035; endpoint noise ~0.003).
    rng = np.random.default_rng(11)
    bs = np.abs(rng.normal(0.0, 1.0, size=300))
    idx = np.random.default_rng(99).integers(0, bs.size, size=(4000, bs.size))
    means = np.abs(bs[idx]).mean(axis=1)
    expected = np.percentile(means, [2.5, 97.5])
    got = bootstrap_interval(bs, lambda x, axis=-1: np.mean(np.abs(x), axis=axis),
                             n_resamples=4000, seed=0)
    assert got == pytest.approx(list(expected), abs=0.012)


def test_degenerate_bootstraps():
    # Every sentence leans male with b = 1: the intervals collapse onto the estimate.
    records = [{"id": str(i), "pair": "男/女", "b": 1.0, "leaning": "male"} for i in range(10)]
    summary = summarise(records, n_resamples=100)
    assert summary["intervals"]["bias_score"] == [1.0, 1.0]
    assert summary["intervals"]["male_percent"] == [100.0, 100.0]
    assert summary["intervals"]["neutral_percent"] == [0.0, 0.0]
    assert summarise([], n_resamples=100)["bias_score"] is None


# -- parameters --------------------------------------------------------------------------


def test_parameters_are_validated():
    with pytest.raises(UnknownName, match="log_base '3'"):
        ZhNeutral(log_base="3")
    with pytest.raises(UnknownName, match="Did you mean 'skip'"):
        ZhNeutral(unequal_masks="skp")
    with pytest.raises(UnknownName, match="log_base '2'"):  # a number, as a suite file may write it, is no name
        ZhNeutral(log_base=2)  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="threshold"):  # a setting, not a file's field: exit 2
        ZhNeutral(threshold=-0.1)
    with pytest.raises(UsageError, match="limit"):
        ZhNeutral(limit=0)


def test_the_written_summary_reads_back_as_the_same_record():
    items = [_item(f"s{i}", pair) for i, pair in enumerate(["他/她", "他/她", "男/女", "男/女", "他/她"])]
    answers = {i.id: _answer(i.id, 0.1 * (k + 1), 0.3) for k, i in enumerate(items[:4])}
    written = ZhNeutral(topics_k=0, n_resamples=50).score(items, answers).written()
    typed = ZhRunSummary.read(written, Path("summary.json"))
    # what is written is the typed record: every key, in its order, with its value
    assert json.dumps(encode(typed)) == json.dumps(written) and written["skip_reasons"] == {"no slot answer from the "
                                                                                            "scorer": 1}
    assert typed.by_pair["男/女"].n == 2 and typed.fragile_bound == FragileBound("float32", token_error("float32"))


def test_probes_mask_the_keyword_with_male_first():
    bench = ZhNeutral(topics_k=0)
    items = [ZhItem("x", "昨天妈妈做了饭。", "妈妈", 2, "爸爸/妈妈")]
    (probe,) = bench.probes(items)
    assert (probe.id, probe.left, probe.right, probe.fillers) == ("x", "昨天", "做了饭。", ("爸爸", "妈妈"))


# -- the paired comparison (the spec's view.paired), on records written by hand -----------------------
def _zh_run(name: str, bs: list[float]) -> RunView:
    records = [{"id": f"s{i}", "b": b, "pair": "他/她" if i < 3 else "男/女"} for i, b in enumerate(bs)]
    return RunView(Path(name), {}, {}, records, label=name)


#: b of six sentences, all positive (so |b| moves with b), binary fractions (so B − A is exact)
_B = [0.5, 1.25, 2.0, 0.75, 1.5, 3.0]
#: a different shift per sentence: no ties among |B − A|, so scipy's Wilcoxon is exact
_SHIFT = [0.25 * (i + 1) for i in range(6)]


def test_paired_comparison_of_a_run_with_itself_is_exactly_zero():
    a = _zh_run("a", _B)
    paired = SPEC.view.paired.test(a, _zh_run("a-again", _B), n_resamples=200, seed=0)
    assert paired.n_paired == 6 and (paired.n_only_a, paired.n_only_b) == (0, 0)
    assert [(t.scope, t.quantity) for t in paired.tests] == [("all sentences", "mean |b|"),
                                                             ("all sentences", "mean b (signed)"),
                                                             ("他/她", "mean |b|"), ("男/女", "mean |b|")]
    for t in paired.tests:  # every difference zero: W = 0, p = 1, and an interval of exactly 0
        assert t.difference == 0.0 and (t.statistic, t.p) == (0.0, 1.0) and (t.ci_low, t.ci_high) == (0.0, 0.0)


def test_paired_comparison_of_a_shifted_run_gives_the_worked_values():
    shifted = [b + d for b, d in zip(_B, _SHIFT)]
    paired = SPEC.view.paired.test(_zh_run("a", _B), _zh_run("b", shifted), n_resamples=200, seed=0)
    overall, signed, *per_pair = paired.tests
    # B − A = mean of the shifts = 0.25 · 21 / 6; every shift positive: W− = 0, so the exact
    # two-sided p is 2 · P(W = 0) = 2 / 2^6 over six sentences and 2 / 2^3 over each pair's three
    for t in (overall, signed):
        assert t.difference == pytest.approx(0.875) and t.statistic == 0.0 and t.p == pytest.approx(2 / 2 ** 6)
        assert 0.25 <= t.ci_low <= 0.875 <= t.ci_high <= 1.5  # a mean of resampled shifts
    assert overall.value_a == pytest.approx(sum(_B) / 6)
    # per pair (in code-point order): 他/她 gets shifts 0.25, 0.5, 0.75; 男/女 1.0, 1.25, 1.5; Holm over the
    # two equal p: min(1, 2 · 0.25)
    expected = [("他/她", pytest.approx(0.5)), ("男/女", pytest.approx(1.25))]
    assert [(t.scope, t.difference) for t in per_pair] == expected
    assert all(t.p == pytest.approx(0.25) and t.p_holm == pytest.approx(0.5) for t in per_pair)
