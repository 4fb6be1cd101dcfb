"""Paired tests between runs: worked examples by hand, then the comparisons of fixed runs."""

from __future__ import annotations

import math

import numpy as np
import pytest

from biasatlas.errors import DataError
from biasatlas.report import compare_runs, holm, load_run, load_runs, mcnemar_table, mcnemar_test
from biasatlas.report.compare import comparison_pairs, pairing_differences
from biasatlas.stats import paired_bootstrap, wilcoxon_test
from report_fixtures import CROWS_B, census_run, crows_paper_run, crows_run, hub_scorer, zh_run


# -- McNemar ---------------------------------------------------------------------------------
def test_mcnemar_table_counts_concordant_and_discordant_pairs():
    a = [True, True, False, False, True, False]
    b = [True, False, True, False, False, False]
    # both: item 0; A only: items 1, 4; B only: item 2; neither: items 3, 5
    assert mcnemar_table(a, b).tolist() == [[1, 2], [1, 2]]


def test_mcnemar_exact_matches_the_binomial_by_hand():
    # 5 discordant pairs one way, 1 the other: p = 2 · P(X ≤ 1 | n = 6, ½) = 2 · (1 + 6) / 64
    table = np.array([[3, 5], [1, 4]])
    stat, p, method = mcnemar_test(table)
    assert p == pytest.approx(14 / 64)
    assert stat == 1  # statsmodels reports min(b, c) for the exact test
    assert method == "McNemar exact"


def test_mcnemar_chi_square_with_continuity_correction_above_25_discordant():
    # b = 30, c = 10: χ² = (|30 − 10| − 1)² / 40 = 361 / 40 = 9.025; p = erfc(√(χ²/2)) for 1 df
    stat, p, method = mcnemar_test(np.array([[50, 30], [10, 60]]))
    assert stat == pytest.approx(9.025)
    assert p == pytest.approx(math.erfc(math.sqrt(9.025 / 2)))
    assert method.startswith("McNemar χ²")


# -- Holm ------------------------------------------------------------------------------------
def test_holm_on_known_p_values():
    # sorted: 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 = 0.04 → raised to 0.06 (monotone)
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])


def test_holm_leaves_missing_p_values_out_of_the_family():
    # two real tests: 0.02·2 = 0.04, 0.3·1 = 0.3
    out = holm([0.3, None, 0.02, float("nan")])
    assert out[1] is None and out[3] is None
    assert out[0] == pytest.approx(0.3) and out[2] == pytest.approx(0.04)


def test_holm_caps_at_one():
    assert holm([0.6, 0.7]) == pytest.approx([1.0, 1.0])  # 0.6·2 = 1.2 → 1


# -- Wilcoxon and the bootstrap ----------------------------------------------------------------
def test_wilcoxon_exact_on_a_worked_example():
    # d = a − b = [1, −2, 3, 4, 5]: ranks 1..5, W− = 2, W+ = 13, statistic min = 2.
    # Subsets of {1..5} with rank sum ≤ 2: {}, {1}, {2} → 3/32 one-sided, 6/32 two-sided.
    a = np.array([2.0, 0.0, 4.0, 5.0, 6.0])
    b = np.array([1.0, 2.0, 1.0, 1.0, 1.0])
    stat, p, _ = wilcoxon_test(a, b)
    assert stat == 2
    assert p == pytest.approx(6 / 32)


def test_wilcoxon_with_no_differences_is_p_one_without_a_warning(recwarn):
    stat, p, detail = wilcoxon_test(np.ones(4), np.ones(4))
    assert (stat, p) == (0.0, 1.0) and "zero" in detail
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_paired_bootstrap_matches_a_straightforward_loop():
    diff = np.array([3.0, -1.0, 0.0, 2.0, 5.0, -2.0, 1.0])
    p, low, high = paired_bootstrap(diff, n_resamples=500, seed=7)
    rng = np.random.default_rng(7)
    draws = rng.integers(0, len(diff), size=(500, len(diff)))
    means = [sum(diff[j] for j in row) / len(row) for row in draws]
    observed = diff.mean()
    extreme = sum(abs(m - observed) >= abs(observed) for m in means)
    assert p == pytest.approx((1 + extreme) / 501)
    assert (low, high) == pytest.approx(tuple(np.quantile(means, [0.025, 0.975])))


def test_paired_bootstrap_extremes():
    assert paired_bootstrap(np.zeros(5))[0] == 1.0  # no difference at all
    # a constant difference: every resample equals it, none is ≥ |2| away → p = 1/(B+1)
    assert paired_bootstrap(np.full(5, 2.0), n_resamples=99)[0] == pytest.approx(1 / 100)


# -- comparisons of fixed runs ---------------------------------------------------------------------
def test_crows_comparison_per_category_and_holm(tmp_path):
    a = load_run(crows_run(tmp_path / "a"))
    b = load_run(crows_run(tmp_path / "b", model="flaubert/flaubert_base_cased", outcomes=CROWS_B))
    c = compare_runs(a, b)
    rows = {t.scope: t for t in c.tests}
    assert c.n_paired == 12 and (c.n_only_a, c.n_only_b) == (0, 0)
    # overall: A 6/12, B 8/12; discordant A-only 2, B-only 4 → p = 2·(1 + 6 + 15)/64
    assert rows["all pairs"].value_a == pytest.approx(50.0)
    assert rows["all pairs"].value_b == pytest.approx(200 / 3)
    assert rows["all pairs"].p == pytest.approx(44 / 64)
    assert rows["all pairs"].p_holm is None  # outside the family of categories
    # gender: A-only 2 → p = 2·¼ = 0.5; race-color: B-only 1 → p = 1; religion: B-only 3 → 2/8
    assert [rows[k].p for k in ("gender", "race-color", "religion")] == pytest.approx([0.5, 1.0, 0.25])
    # Holm: 0.25·3 = 0.75, 0.5·2 = 1.0, 1.0·1 = 1.0
    assert [rows[k].p_holm for k in ("gender", "race-color", "religion")] == pytest.approx([1.0, 1.0, 0.75])


def test_zh_comparison_on_abs_b(tmp_path):
    from report_fixtures import ZH_B

    a = load_run(zh_run(tmp_path / "a"))
    b = load_run(zh_run(tmp_path / "b", model="hfl/chinese-roberta-wwm-ext", bs=[x / 2 for x in ZH_B]))
    rows = {(t.scope, t.quantity): t for t in compare_runs(a, b).tests}
    overall = rows[("all sentences", "mean |b|")]
    # mean |b|: 9.72/12 = 0.81 and half that; every |b| shrinks, no ties → 2/2¹² two-sided
    assert (overall.value_a, overall.value_b) == pytest.approx((0.81, 0.405))
    assert overall.p == pytest.approx(2 / 4096)
    # per pair: 他/她 n = 6 → 2/64; 男/女 and 爸爸/妈妈 n = 3 → 2/8. Holm: 0.03125·3, 0.25·2, 0.25 → 0.5
    per_pair = {k[0]: t for k, t in rows.items() if k[0] != "all sentences"}
    assert per_pair["他/她"].p == pytest.approx(2 / 64)
    assert per_pair["他/她"].p_holm == pytest.approx(0.09375)
    assert per_pair["男/女"].p_holm == pytest.approx(0.5) and per_pair["爸爸/妈妈"].p_holm == pytest.approx(0.5)


def test_census_comparison_paired_bootstrap(tmp_path):
    a = load_run(census_run(tmp_path / "a"))
    b = load_run(census_run(tmp_path / "b", model="ltg/norbert2", shares=[50.0] * 10))
    rows = {(t.scope, t.quantity): t for t in compare_runs(a, b, n_resamples=500).tests}
    normative = rows[("all occupations", "normative")]
    # A classes 4 of 10 balanced → 40; B all balanced → 100
    assert (normative.value_a, normative.value_b, normative.difference) == pytest.approx((40.0, 100.0, 60.0))
    # Resampled differences reach 0 only when all 10 draws hit A's 4 balanced ones (0.4¹⁰ ≈ 1e-4).
    assert normative.p < 0.01
    # descriptive: A 40; B agrees only on the 3 census-balanced → 30
    assert rows[("all occupations", "descriptive")].difference == pytest.approx(-10.0)
    classes = {k[0]: t for k, t in rows.items() if k[1] == "descriptive" and k[0] != "all occupations"}
    assert set(classes) == {"female", "male", "balanced"}
    assert classes["balanced"].value_a == pytest.approx(10.0) and classes["balanced"].value_b == pytest.approx(30.0)
    assert all(t.p_holm is not None and t.p_holm >= t.p for t in classes.values())


def test_unmatched_items_are_counted_and_left_out(tmp_path):
    a = load_run(crows_run(tmp_path / "a"))
    b_path = crows_run(tmp_path / "b", outcomes=CROWS_B)
    lines = (b_path / "items.jsonl").read_text(encoding="utf-8").splitlines()
    (b_path / "items.jsonl").write_text("\n".join(lines[2:]) + "\n", encoding="utf-8")  # drop ids 1, 2
    c = compare_runs(a, load_run(b_path))
    assert (c.n_paired, c.n_only_a, c.n_only_b) == (10, 2, 0)
    assert any("only in A" in n for n in c.notes)


def test_runs_of_different_benchmarks_do_not_pair(tmp_path):
    with pytest.raises(DataError, match="cannot pair"):
        compare_runs(load_run(crows_run(tmp_path / "a")), load_run(zh_run(tmp_path / "z")))


def test_comparison_pairs_against_the_first_of_each_group(tmp_path):
    runs = load_runs([crows_run(tmp_path / "a"), crows_run(tmp_path / "b", model="m2"),
                      crows_run(tmp_path / "c", model="m3"), zh_run(tmp_path / "z")])
    labels = [(a.label, b.label) for a, b in comparison_pairs(runs)]
    assert labels == [("almanach/camembert-base", "m2"), ("almanach/camembert-base", "m3")]
    assert len(comparison_pairs(runs, all_pairs=True)) == 3


# -- like for like only ----------------------------------------------------------------------------
def _compare_cli(*args: str):
    """The real command line (``python -m biasatlas``): the error path is the one users see."""
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "biasatlas", "compare", *map(str, args)], capture_output=True,
                          text=True, timeout=300)


def test_compare_refuses_cased_against_lower_cased(tmp_path):
    a = crows_paper_run(tmp_path / "lower", hub_scorer("camembert-base"), n_pairs=40)
    b = crows_paper_run(tmp_path / "cased", hub_scorer("camembert-base"), n_pairs=40, lowercase=False)
    done = _compare_cli(a, b, "--format", "md")
    assert done.returncode != 0
    assert "Traceback" not in done.stderr and done.stdout == ""
    assert "error: runs differ in data, subset or preprocessing" in done.stderr
    assert "lowercase: A yes, B no" in done.stderr and "--force" in done.stderr


@pytest.mark.slow  # over a second: the full suite runs it, the fast loop does not
def test_compare_force_pairs_them_with_a_visible_warning(tmp_path):
    a = crows_paper_run(tmp_path / "lower", hub_scorer("camembert-base"), n_pairs=40)
    b = crows_paper_run(tmp_path / "cased", hub_scorer("camembert-base"), n_pairs=40, lowercase=False)
    done = _compare_cli(a, b, "--format", "md", "--force")
    assert done.returncode == 0, done.stderr
    warning = ("Not like-for-like: camembert-base (nangia) [lower] vs camembert-base (nangia) [cased] differ in "
               "lowercase: A yes, B no.")
    assert done.stdout.startswith(f"> **WARNING:** {warning}")
    assert f"WARNING: {warning}" in done.stdout.split("**crows-pairs (")[1]  # and in the table's caption
    assert "McNemar" in done.stdout


@pytest.mark.slow  # about a second: the full suite runs it, the fast loop does not
def test_compare_force_warns_on_the_terminal_and_in_json(tmp_path):
    from typer.testing import CliRunner

    from biasatlas.cli import app

    a = crows_paper_run(tmp_path / "full", hub_scorer("camembert-base"), n_pairs=40)
    b = crows_paper_run(tmp_path / "part", hub_scorer("camembert-base"), n_pairs=40, limit=30)
    result = CliRunner().invoke(app, ["compare", str(a), str(b), "--force"], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    assert "WARNING: Not like-for-like" in result.output and "limit: A none, B 30" in result.output
    result = CliRunner().invoke(app, ["compare", str(a), str(b), "--force", "--format", "json"])
    tables = __import__("json").loads(result.output)
    assert tables[-1]["caption"].startswith("WARNING: Not like-for-like")


@pytest.mark.parametrize(("bench_a", "bench_b", "difference"), [
    ({"identifiers": "paired"}, {"identifiers": "all"}, "identifiers: A paired, B all"),
    ({"sample": 5, "seed": 0}, {"sample": 5, "seed": 1}, "sample seed: A 0, B 1"),
    ({"country": "no"}, {"country": "us"}, "census country: A no, B us"),
    ({"method": "touileb2023"}, {"method": "gebnlp2022"}, "method: A touileb2023, B gebnlp2022"),
    # Folders of format 1 recorded the method as "variant": read as "method", beside a new folder too.
    ({"variant": "touileb2023"}, {"variant": "gebnlp2022"}, "method: A touileb2023, B gebnlp2022"),
    ({"variant": "gebnlp2022"}, {"method": "touileb2023"}, "method: A gebnlp2022, B touileb2023"),
    ({"identifiers": "paired"}, {}, "identifiers: A paired, B not recorded"),
])
def test_census_runs_differing_in_preparation_are_refused(tmp_path, bench_a, bench_b, difference):
    from biasatlas.report.compare import NotLikeForLike

    a = load_run(census_run(tmp_path / "a", bench=bench_a))
    b = load_run(census_run(tmp_path / "b", model="ltg/norbert2", bench=bench_b))
    with pytest.raises(NotLikeForLike, match=difference):
        compare_runs(a, b, n_resamples=50)
    forced = compare_runs(a, b, force=True, n_resamples=50)
    assert forced.differences == (difference,)


def test_a_seed_without_a_sample_is_no_difference(tmp_path):
    a = load_run(census_run(tmp_path / "a", bench={"sample": None, "seed": 0, "causal_reading": None}))
    b = load_run(census_run(tmp_path / "b", bench={"sample": None, "seed": 7, "causal_reading": "joint"}))
    assert pairing_differences(a, b) == ()  # the causal reading is the scorer's: comparing it is the point


def test_compare_refuses_runs_of_different_datasets_unless_forced(tmp_path):
    a = crows_paper_run(tmp_path / "fr", hub_scorer("camembert-base"), n_pairs=40)
    b = crows_paper_run(tmp_path / "en", hub_scorer("camembert-base"), n_pairs=40, dataset="en-revised+210")
    done = _compare_cli(a, b)
    assert done.returncode != 0 and "dataset: A fr+210, B en-revised+210" in done.stderr
    assert "data sha256: A 1b5de822b341, B c2c449a051ae" in done.stderr


def test_report_compares_a_subset_run_with_a_visible_warning(tmp_path):
    from biasatlas.report import build_report, render_html

    runs = load_runs([crows_paper_run(tmp_path / "full", hub_scorer("camembert-base")),
                      crows_paper_run(tmp_path / "part", hub_scorer("flaubert/flaubert_base_cased"), limit=80)])
    page = render_html(build_report(runs, n_resamples=50))
    assert ('<p class="warn" role="alert">Not like-for-like: camembert-base (nangia) vs '
            'flaubert/flaubert_base_cased (nangia) differ in limit: A none, B 80.') in page


def test_difference_interval_of_a_constant_shift_is_that_shift():
    from biasatlas.display.paired import difference_interval

    a = [1.0, 4.0, 2.0, 8.0, 5.0]
    assert difference_interval(a, a, 200, 0) == (0.0, 0.0)  # the same run twice: no spread
    # every item moves by exactly +10, so every resample's mean difference is 10
    assert difference_interval(a, [x + 10 for x in a], 200, 0) == pytest.approx((10.0, 10.0))
    assert difference_interval([], [], 200, 0) == (None, None)


@pytest.mark.slow  # four small BBQ runs, each hashing its data files
def test_bbq_runs_pair_only_when_asked_and_answered_the_same_way(isolated_run):
    """chat_template and answers are recorded only when used: absent, they mean the plain prompt
    and the likelihood reading, so a plain likelihood run never pairs silently with a templated or
    a generated one, and two plain likelihood runs still pair."""
    import json

    import biasatlas

    def run(name: str, **config: str) -> object:
        biasatlas.evaluate("bbq", model="fake", category="Religion", limit=6, n_resamples=10, progress=False,
                           out=name)
        if config:  # the settings a templated or generated run records (the fake scorer can do neither)
            path = isolated_run / name / "config.json"
            written = json.loads(path.read_text(encoding="utf-8"))
            written["benchmark"].update(config)
            path.write_text(json.dumps(written), encoding="utf-8")
        return load_run(isolated_run / name)

    plain, again = run("plain"), run("again")
    assert pairing_differences(plain, again) == ()
    assert pairing_differences(plain, run("chat", chat_template="model")) == ("chat template: A none, B model",)
    generated = run("generated", answers="generated", parser="lm-eval-0.4.13")
    assert pairing_differences(plain, generated) == ("answers: A likelihood, B generated",
                                                     "answer parser: A not recorded, B lm-eval-0.4.13")
