"""A benchmark added from outside biasatlas with one registry line gets a run folder, a report
section (HTML and Markdown), a leaderboard row and a paired comparison, with no edit to biasatlas.

The toy (tests/toy_benchmark.py) follows README "How to add a benchmark". Its numbers are
checked against the fake scorer's answers computed here, not through the toy's own code.
"""

from __future__ import annotations

import csv
import io
import json

import pytest

from biasatlas import registry
from biasatlas.pipeline import run_benchmark
from biasatlas.probes import PairProbe
from biasatlas.registry import load_scorer, register_benchmark
from biasatlas.report import build_report, compare_runs, leaderboard, load_runs, render, render_html
from biasatlas.report.compare import comparison_table
from biasatlas.runs.folder import write_run
from biasatlas.scorers.fake import FakeScorer
from toy_benchmark import SENTENCES

NAME = "toy-pronouns"


@pytest.fixture
def toy():
    """The toy registered for one test; the registry is restored afterwards."""
    saved = dict(registry.BENCHMARKS)
    register_benchmark(NAME, "toy_benchmark")  # the one line a new benchmark needs
    yield NAME
    registry.BENCHMARKS.clear()
    registry.BENCHMARKS.update(saved)


def _expected(scorer) -> tuple[float, float, list[float]]:
    """(% of items where "he" scores higher, mean gap, gaps), straight from the scorer's answers."""
    probes = [PairProbe(f"t{i}", s.format("He"), s.format("She")) for i, s in enumerate(SENTENCES)]
    answers = scorer.score(probes)
    gaps = [answers[p.id].score_a - answers[p.id].score_b for p in probes]
    return 100.0 * sum(g > 0 for g in gaps) / len(gaps), sum(gaps) / len(gaps), gaps


@pytest.fixture
def two_runs(toy, tmp_path):
    """Run A with the registry's fake scorer; run B with one that boosts "She" sentences."""
    plain, boosted = load_scorer("fake"), FakeScorer(boost=("She",), bias=5.0)
    a = write_run(run_benchmark(registry.load_benchmark(toy), plain), tmp_path / "a")
    b = write_run(run_benchmark(registry.load_benchmark(toy), boosted), tmp_path / "b")
    return (a, _expected(plain)), (b, _expected(boosted))


def test_the_toy_is_listed_and_loads_by_name(toy):
    assert NAME in registry.BENCHMARKS
    assert registry.load_benchmark(NAME).name == NAME
    assert registry.benchmark_spec(NAME).view.paired is not None


def test_the_run_folder_holds_the_toy_numbers(two_runs):
    (a, (pct, gap, gaps)), _ = two_runs
    summary = json.loads((a / "summary.json").read_text(encoding="utf-8"))
    assert summary["benchmark"] == NAME and summary["model"] == "fake"
    assert summary["n"] == len(SENTENCES) and summary["he_percent"] == pytest.approx(pct)
    assert summary["mean_gap"] == pytest.approx(gap)
    items = [json.loads(line) for line in (a / "items.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["gap"] for r in items] == pytest.approx(gaps)


def test_the_report_shows_its_section_leaderboard_and_comparison(two_runs):
    (a, (pct_a, gap_a, gaps_a)), (b, (pct_b, gap_b, gaps_b)) = two_runs
    assert gap_b < gap_a - 4  # every "She" sentence was boosted by 5: B prefers "she" more
    runs = load_runs([a, b])
    report = build_report(runs)

    # a report section per run, in Markdown and HTML
    md, html = render(report, "md"), render_html(report)
    row_a = f"| {len(SENTENCES)} | {pct_a:.2f} | {gap_a:.2f} |"
    assert "**Toy pronoun preference**" in md and row_a in md
    assert f"| {len(SENTENCES)} | {pct_b:.2f} | {gap_b:.2f} |" in md
    assert "Toy pronoun preference" in html and f"{gap_a:.2f}" in html and f"{gap_b:.2f}" in html
    assert "Wilcoxon signed-rank on toy gaps" in html  # the comparison note names the toy's test

    # the headline numbers in long form
    rows = list(csv.DictReader(io.StringIO(render(report, "csv"))))
    mine = {(r["run"], r["metric"]): float(r["value"]) for r in rows}
    assert mine[(runs[0].label, "mean_gap")] == pytest.approx(gap_a)
    assert mine[(runs[1].label, "he_percent")] == pytest.approx(pct_b)

    # a leaderboard row per run
    (board,) = report.leaderboard
    assert board.title == "Toy leaderboard" and board == leaderboard(runs)[0]
    assert [row[0] for row in board.rows] == [r.label for r in runs]
    assert board.rows[0][2:4] == pytest.approx((pct_a, gap_a))
    assert board.columns[4:] == ("items scored",) and board.rows[0][4:] == ("all items",)

    # the paired test, B against A
    (comparison,) = report.comparisons
    assert comparison.benchmark == NAME and comparison.n_paired == len(SENTENCES) and not comparison.differences
    (test,) = comparison.tests
    assert (test.value_a, test.value_b) == pytest.approx((gap_a, gap_b))
    assert test.method == "Wilcoxon signed-rank" and test.p is not None and test.p < 0.05
    table = comparison_table(comparison)
    assert table.title == f"{NAME} ({runs[0].dataset}): {runs[0].label} vs {runs[1].label}"
    assert table.rows[0][3:6] == pytest.approx((gap_a, gap_b, gap_b - gap_a))
    assert f"| all items | mean gap | {len(SENTENCES)} | {gap_a:.2f} | {gap_b:.2f} |" in md
    assert compare_runs(runs[0], runs[1]).tests == comparison.tests


def test_a_damaged_toy_summary_is_one_error_naming_the_field(two_runs):
    from biasatlas.errors import DataError

    (a, _), _ = two_runs
    summary = json.loads((a / "summary.json").read_text(encoding="utf-8"))
    summary["mean_gap"] = "large"
    (a / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    with pytest.raises(DataError, match="field 'mean_gap': expected a number or null"):
        load_runs([a])


@pytest.mark.parametrize("check", ["test_every_registered_benchmark_runs_its_example_writes_and_reads_it_back_typed",
                                   "test_the_paired_comparison_finds_no_difference_between_a_run_and_itself_and_one_"
                                   "from_a_mirrored_run", "test_every_benchmark_declares_its_options_once",
                                   "test_every_option_with_a_closed_set_refuses_a_value_outside_it",
                                   "test_every_benchmark_refuses_a_subset_no_run_can_mean"])
def test_the_toy_meets_the_contract_every_registered_benchmark_meets(check, toy, isolated_run):
    """tests/benchmarks/test_contract.py's checks, on a benchmark registered from outside (its spec's example)."""
    import inspect

    import test_contract

    run = getattr(test_contract, check)
    if "isolated_run" in inspect.signature(run).parameters:
        run(toy, isolated_run)
    else:
        run(toy)


def test_the_toy_scores_the_subset_its_options_ask_for(toy):
    """--limit and --sample come with Options: the toy's load honours them (the first N; N drawn in file order)."""
    assert [i.id for i in registry.load_benchmark(toy, limit=3).load()] == ["t0", "t1", "t2"]
    import numpy as np

    picked = sorted(int(i) for i in np.random.default_rng(1).choice(len(SENTENCES), size=3, replace=False))
    assert [i.id for i in registry.load_benchmark(toy, sample=3, seed=1).load()] == [f"t{i}" for i in picked]
