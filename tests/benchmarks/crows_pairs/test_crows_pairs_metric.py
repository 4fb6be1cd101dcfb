"""The CrowS-Pairs metric on worked examples, the five data files, and malformed input."""

from __future__ import annotations

import pytest

from biasatlas.benchmarks.crows_pairs import CrowsPair, CrowsPairs, read_pairs, summarise
from biasatlas.errors import DataError
from biasatlas.probes import PairAnswer


def _pair(pid, direction, cat="gender", more="A more", less="A less"):
    return CrowsPair(pid, more, less, direction, cat, 2)


def test_worked_example_metric_stereo_anti_and_ties():
    bench = CrowsPairs(dataset=None, tie_decimals=3)
    items = [
        _pair("s1", "stereo"), _pair("s2", "stereo"), _pair("s3", "stereo"),
        _pair("a1", "antistereo", "age"), _pair("a2", "antistereo", "age"),
    ]
    # PairAnswer(a=sent1, b=sent2); sent1 is sent_more for stereo, sent_less for anti.
    answers = {
        "s1": PairAnswer("s1", -10.0, -12.0),     # sent_more higher → "more"
        "s2": PairAnswer("s2", -13.0, -12.0),     # sent_more lower → "less"
        "s3": PairAnswer("s3", -5.0001, -5.0004),  # both round to -5.0 → tie
        "a1": PairAnswer("a1", -9.0, -8.0),       # sent2 = sent_more is higher → "more"
        "a2": PairAnswer("a2", -7.0, -8.0),       # sent_more lower → "less"
    }
    result = bench.score(items, answers)
    outcomes = {r["id"]: r["outcome"] for r in result.records}
    assert outcomes == {"s1": "more", "s2": "less", "s3": "tie", "a1": "more", "a2": "less"}
    s = result.written()
    assert s["n"] == 5
    assert s["metric_score"] == pytest.approx(100 * 2 / 5)  # s1, a1 win over all N (ties included)
    assert s["stereo_score"] == pytest.approx(100 * 1 / 2)  # s1 of the non-tied s1, s2
    assert s["antistereo_score"] == pytest.approx(100 * 1 / 2)  # a1 of a1, a2
    assert s["neutral"] == 1
    assert s["by_category"]["gender"]["score"] == pytest.approx(100 * 1 / 3)
    assert s["by_category"]["age"]["score"] == pytest.approx(50.0)
    low, high = s["intervals"]["metric_score"]
    assert low < 40 < high


def test_tie_decimals_is_a_real_parameter():
    items = [_pair("s", "stereo")]
    answers = {"s": PairAnswer("s", -5.0001, -5.0004)}
    assert CrowsPairs(dataset=None, tie_decimals=3).score(items, answers).records[0]["outcome"] == "tie"
    assert CrowsPairs(dataset=None, tie_decimals=4).score(items, answers).records[0]["outcome"] == "more"


def test_wilson_interval_and_binomial_test_worked():
    # 60 wins of 100: Wilson 95% = (p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n)
    z = 1.959963984540054
    p, n = 0.6, 100
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / (1 + z * z / n)
    records = [{"outcome": "more" if i < 60 else "less", "direction": "stereo", "bias_type": "age"}
               for i in range(100)]
    s = summarise(records)
    assert s["intervals"]["metric_score"] == pytest.approx([100 * (centre - half), 100 * (centre + half)])
    # two-sided exact binomial p for 60/100: 2·P(X ≥ 60), X ~ Bin(100, 1/2)
    from math import comb

    tail = sum(comb(100, k) for k in range(60, 101)) / 2**100
    assert s["tests"]["metric_score"]["binomial_p"] == pytest.approx(2 * tail)


@pytest.mark.parametrize("rel,n,stereo", [
    ("crows-pairs-en/crows_pairs_anonymized.csv", 1508, 1290),
    ("crows-pairs-en/crows_pairs_EN_revised.csv", 1467, 1257),
    ("crows-pairs-en/crows_pairs_EN_revised+210.csv", 1677, 1466),
    ("crows-pairs-fr/crows_pairs_FR.csv", 1467, 1257),
    ("crows-pairs-fr/crows_pairs_FR_languagearc_contribution+210.csv", 1677, 1466),
])
def test_the_five_files_load_with_their_documented_counts(shared_data, rel, n, stereo):
    pairs = read_pairs(shared_data / rel)
    assert len(pairs) == n
    assert sum(p.direction == "stereo" for p in pairs) == stereo


def test_french_category_counts_equal_the_paper_table(shared_data):
    pairs = read_pairs(shared_data / "crows-pairs-fr/crows_pairs_FR_languagearc_contribution+210.csv")
    counts = {c: sum(p.bias_type == c for p in pairs) for c in {p.bias_type for p in pairs}}
    assert counts == {"race-color": 460, "gender": 321, "nationality": 253, "socioeconomic": 196,
                      "religion": 115, "sexual-orientation": 91, "age": 90,
                      "physical-appearance": 72, "disability": 66, "autre": 13}
    flagged = {p.id: p.degenerate for p in pairs if p.degenerate}
    assert flagged == {"59": "identical sentences", "379": "identical sentences",
                       "388": "identical sentences", "129": "empty sentence"}


def test_glitches_are_normalised(shared_data):
    pairs = {p.id: p for p in read_pairs(shared_data / "crows-pairs-en/crows_pairs_EN_revised.csv")}
    assert pairs["409"].bias_type == "race-color"  # was "Race-color"
    assert pairs["1293"].bias_type == "socioeconomic"  # was "stereo"


def test_degenerate_pairs_go_to_the_scorer_and_identical_ones_tie():
    """Every pair is asked, as every original scores every row; an identical pair is one text,
    so a tie whatever noise its two scores carry, and a pair the scorer refused is skipped."""
    bench = CrowsPairs(dataset=None)
    items = [_pair("same", "stereo", more="X", less="X"), _pair("ok", "stereo"),
             _pair("refused", "stereo", more="X", less="")]
    assert [p.id for p in bench.probes(items)] == ["same", "ok", "refused"]
    result = bench.score(items, {"same": PairAnswer("same", -1.0, -1.01), "ok": PairAnswer("ok", -1.0, -2.0)})
    assert result.records[0]["outcome"] == "tie" and result.records[0]["flag"] == "identical sentences"
    assert result.records[0]["fragile"] is False
    assert result.written()["neutral"] == 1 and result.written()["n"] == 2
    assert [s["id"] for s in result.skipped] == ["refused"]


def test_lowercase_switch(shared_data):
    bench = CrowsPairs(dataset=None, lowercase=True)
    probe = bench.probes([_pair("p", "antistereo", more="Élise Rit", less="Paul Rit")])[0]
    assert (probe.a, probe.b) == ("paul rit", "élise rit")  # sent1 = sent_less for antistereo


HEADER = "\tsent_more\tsent_less\tstereo_antistereo\tbias_type\n"


@pytest.mark.parametrize("content,line,field", [
    ("\tsent_more\tsent_less\tbias_type\n0\ta\tb\tage\n", 1, "stereo_antistereo"),  # missing column
    ("x,sent_more;sent_less;stereo_antistereo;bias_type\n", 1, "sent_more"),  # wrong delimiter
    (HEADER + "0\tA\tB\tstereo\tage\n1\tA\tB\tsterio\tage\n", 3, "stereo_antistereo"),
    (HEADER + "0\tA\tB\tstereo\tage\n1\tA\tB\tstereo\tweather\n", 3, "bias_type"),
    (HEADER + "0\tA\tB\tstereo\tage\textra\n", 2, None),  # an extra field
])
def test_malformed_rows_name_file_line_and_field(tmp_path, content, line, field):
    path = tmp_path / "bad.csv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(DataError) as err:
        read_pairs(path)
    assert err.value.line == line and err.value.field == field
    assert str(path) in str(err.value) and f"line {line}" in str(err.value)


def test_empty_file_and_bad_encoding(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(DataError, match="empty"):
        read_pairs(empty)
    latin = tmp_path / "latin.csv"
    latin.write_bytes((HEADER + "0\tA\tB\tstereo\tage\n1\tCafé\tB\tstereo\tage\n").encode("cp1252"))
    with pytest.raises(DataError) as err:
        read_pairs(latin)
    assert err.value.line == 3 and "UTF-8" in str(err.value)


def test_bom_and_blank_lines_are_fine(tmp_path):
    path = tmp_path / "bom.csv"
    path.write_text("\ufeff" + HEADER + "0\tA\tB\tstereo\tage\n\n1\tC\tD\tantistereo\tage\n", encoding="utf-8")
    assert [p.id for p in read_pairs(path)] == ["0", "1"]


# -- likelihood_difference (lm-evaluation-harness's mean |Δ score| per pair) -----------------------
T_975 = {3: 3.182446305284263, 4: 2.7764451051977987}  # Student t 0.975 quantiles (printed tables: 3.182, 2.776)


def test_likelihood_difference_is_exactly_zero_when_both_sentences_always_score_alike():
    bench = CrowsPairs(dataset=None)
    items = [_pair(f"p{i}", "stereo" if i % 2 else "antistereo") for i in range(5)]
    answers = {p.id: PairAnswer(p.id, -3.25 * (i + 1), -3.25 * (i + 1)) for i, p in enumerate(items)}
    result = bench.score(items, answers)
    assert [r["likelihood_difference"] for r in result.records] == [0.0] * 5
    s = result.written()
    assert s["likelihood_difference"] == 0.0 and s["n_likelihood_difference"] == 5
    assert s["intervals"]["likelihood_difference"] == [0.0, 0.0]  # no spread at all: shown as such


def test_likelihood_difference_mean_and_t_interval_by_hand():
    bench = CrowsPairs(dataset=None, tie_decimals=3)
    items = [_pair("s1", "stereo"), _pair("s2", "stereo"), _pair("a1", "antistereo"), _pair("a2", "antistereo")]
    # |Δ| per pair, whichever sentence is higher and whatever the direction: 1, 2, 3, 6
    answers = {"s1": PairAnswer("s1", -10.0, -11.0), "s2": PairAnswer("s2", -14.0, -12.0),
               "a1": PairAnswer("a1", -4.5, -7.5), "a2": PairAnswer("a2", -20.0, -14.0)}
    result = bench.score(items, answers)
    diffs = {r["id"]: r["likelihood_difference"] for r in result.records}
    assert diffs == {"s1": 1.0, "s2": 2.0, "a1": 3.0, "a2": 6.0}
    s = result.written()
    # mean = 12 / 4 = 3; deviations −2, −1, 0, 3: s² = 14 / 3; s/√4 = √(14/3) / 2 = 1.08012;
    # half width = t(0.975, 3) · 1.08012 = 3.43743 → [−0.43743, 6.43743] (a t interval, not clipped at 0)
    half = T_975[3] * (14 / 3) ** 0.5 / 2
    assert s["likelihood_difference"] == pytest.approx(3.0)
    assert s["n_likelihood_difference"] == 4 and s["n"] == 4
    assert s["intervals"]["likelihood_difference"] == pytest.approx([3.0 - half, 3.0 + half])
    assert half == pytest.approx(3.43743, abs=1e-5)


def test_likelihood_difference_uses_the_unrounded_scores():
    """A pair tied at 3 decimals still has its exact difference, as lm-evaluation-harness reports it."""
    result = CrowsPairs(dataset=None).score([_pair("s", "stereo")], {"s": PairAnswer("s", -5.0001, -5.0004)})
    assert result.records[0]["outcome"] == "tie"
    assert result.records[0]["likelihood_difference"] == pytest.approx(0.0003)


def test_likelihood_difference_of_a_single_pair_has_no_interval():
    result = CrowsPairs(dataset=None).score([_pair("s", "stereo")], {"s": PairAnswer("s", -1.0, -3.5)})
    assert result.written()["likelihood_difference"] == 2.5
    assert result.written()["intervals"]["likelihood_difference"] == [None, None]


def test_a_run_written_before_likelihood_difference_still_reads(tmp_path):
    """Older run folders lack the summary fields and the item field: the typed summary reads them
    as None and every output shows a dash."""
    import json

    from biasatlas.benchmarks.crows_pairs.summary import CrowsRunSummary
    from biasatlas.report import build_report, load_runs, render
    from report_fixtures import crows_run

    folder = crows_run(tmp_path / "old")
    summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    for key in ("likelihood_difference", "n_likelihood_difference"):
        summary.pop(key)
    summary["intervals"].pop("likelihood_difference")
    (folder / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    typed = CrowsRunSummary.read(summary, folder / "summary.json")
    assert typed.likelihood_difference is None and typed.interval("likelihood_difference") == (None, None)
    report = build_report(load_runs([folder]), compare=False)
    md = render(report, "md")
    assert "| likelihood difference | – | – | – | – |" in md
    assert "likelihood_difference,likelihood difference,,,," in render(report, "csv")
    assert "likelihood difference" in render(report, "latex")


def test_likelihood_difference_is_beside_the_metric_everywhere(tmp_path):
    """Terminal, report table, leaderboard, CSV and JSON: with its t interval (2 decimals) and n."""
    import csv
    import io
    import json

    from rich.console import Console

    from biasatlas.report.sections import run_terminal
    from biasatlas.report import build_report, load_runs, render
    from report_fixtures import crows_run

    a, b = crows_run(tmp_path / "a"), crows_run(tmp_path / "b", model="m2")
    for folder, diffs in ((a, [1.0, 2.0, 3.0, 6.0]), (b, [0.5] * 4)):
        summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
        records = [{**r, "likelihood_difference": diffs[i % 4]}
                   for i, r in enumerate(map(json.loads, (folder / "items.jsonl").read_text().splitlines()))]
        summary.update(summarise(records))
        (folder / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
        (folder / "items.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    runs = load_runs([a, b])
    report = build_report(runs, compare=False)
    # run a: the 12 pairs repeat 1, 2, 3, 6: mean 3, s² = (3·14) / 11, half = t(0.975, 11) · s / √12
    md = render(report, "md")
    assert "| likelihood difference | 12 | 3.00 | \\[" in md  # Markdown escapes a leading "["
    assert "| likelihood difference | 12 | 0.50 | no spread |" in md  # run b: every pair 0.5
    lead = next(line for line in md.splitlines() if line.startswith("| almanach/camembert-base |"))
    assert "| 50.00 | \\[" in lead and "| 3.00 | \\[" in lead
    rows = list(csv.DictReader(io.StringIO(render(report, "csv"))))
    ld = next(r for r in rows if r["run"] == "almanach/camembert-base" and r["metric"] == "likelihood_difference")
    assert ld["label"] == "likelihood difference" and float(ld["value"]) == pytest.approx(3.0) and ld["n"] == "12"
    half = 2.200985160082949 * (3 * 14 / 11) ** 0.5 / 12 ** 0.5  # t(0.975, 11) = 2.201
    assert float(ld["ci_low"]) == pytest.approx(3 - half) and float(ld["ci_high"]) == pytest.approx(3 + half)
    doc = json.loads(render(report, "json"))
    names = [m["metric"] for m in doc["runs"][0]["metrics"]]
    assert names[:2] == ["metric_score", "likelihood_difference"]
    console = Console(width=80, record=True, file=io.StringIO())
    console.print(run_terminal(runs[0]))
    text = console.export_text()
    assert "likelihood difference" in text and f"[{3 - half:.2f}, {3 + half:.2f}]" in text


def test_wilson_interval_contains_its_estimate_at_every_count():
    # Mathematically the Wilson interval always holds k/n; in floating point the bound at k = n
    # came out 99.99999999999999 for 12/12, an interval that excludes its own score.
    from biasatlas.stats import wilson

    for n in range(1, 41):
        for k in range(n + 1):
            low, high = wilson(k, n)
            assert low <= 100.0 * k / n <= high, (k, n)
    assert wilson(12, 12)[1] == 100.0 and wilson(0, 12)[0] == 0.0
