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
    s = result.summary
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


def test_degenerate_pairs_are_ties_without_asking_the_model():
    bench = CrowsPairs(dataset=None)
    items = [_pair("same", "stereo", more="X", less="X"), _pair("ok", "stereo")]
    assert [p.id for p in bench.probes(items)] == ["ok"]
    result = bench.score(items, {"ok": PairAnswer("ok", -1.0, -2.0)})
    assert result.records[0]["outcome"] == "tie" and result.records[0]["flag"] == "identical sentences"
    assert result.summary["neutral"] == 1


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
