"""WinoBias's data, preference and occupation shares on planted truths (answers built by hand, no model).

A gender-symmetric scorer prefers neither version: pro % exactly 50, Diff 0, every share 50. A
scorer planted to prefer the pro version by a known margin is recovered, and a scorer that only
reads the pronoun's gender moves the per-occupation shares exactly as the arithmetic says.
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest

from biasatlas.benchmarks.winobias import WinoBias
from biasatlas.benchmarks.winobias.analysis import PairScore, against_majority, preference
from biasatlas.benchmarks.winobias.data import PRONOUN_GENDER, Pair
from biasatlas.benchmarks.winobias.summary import WinoBiasRunSummary
from biasatlas.errors import DataError
from biasatlas.probes import ScorerInfo, SentenceAnswer, SlotAnswer
from shared_data import shared_data_dir

DATA = shared_data_dir() / "winobias"
MASKED = ScorerInfo("masked-lm", "masked", "joint")


@pytest.fixture(scope="module")
def pairs() -> list[Pair]:
    return WinoBias(data=DATA, split="both").load()


def _gender_of(text: str, other: str) -> str:
    """The gender of the first pronoun word where ``text`` differs from ``other``."""
    a, b = text.split(" "), other.split(" ")
    word = next(x for x, y in zip(a, b) if x != y)
    return PRONOUN_GENDER["".join(ch for ch in word if ch.isalpha()).lower()]


def _sentence_answers(items: list[Pair], value) -> dict[str, SentenceAnswer]:
    """A sequence reader: ``value(pair, version)`` (version "pro" or "anti") as the sentence's log-likelihood."""
    return {f"{p.id}.{v}": SentenceAnswer(f"{p.id}.{v}", value(p, v), 12) for p in items for v in ("pro", "anti")}


def test_the_data_reads_as_counted(pairs: list[Pair]) -> None:
    # 8 files × 396 lines = 4 sets of 396 pairs; 40 occupations, half of each majority
    assert len(pairs) == 4 * 396 and len({p.occupation for p in pairs}) == 40
    assert {p.majority for p in pairs if p.occupation in ("ceo", "construction worker", "nurse")} == {"male", "female"}
    # METHODS-MORE.md §7 counts 20 pairs differing beyond the pronoun; type 1 dev 162 differs only in
    # where its brackets sit ("[the housekeeper]" / "the [housekeeper]"), so its text is a minimal pair
    non_minimal = [p.id for p in pairs if not p.minimal]
    assert len(non_minimal) == 19 and "type1.dev.162" not in non_minimal and "type2.test.384" in non_minimal
    # the pro version's pronoun is the occupation's BLS majority, the anti version's the other
    for p in pairs:
        if p.minimal:
            assert _gender_of(p.pro, p.anti) == p.majority != _gender_of(p.anti, p.pro)


def test_symmetric_scorer_gives_exactly_50(pairs: list[Pair]) -> None:
    s = WinoBias(data=DATA, split="both", n_resamples=50).score(pairs, _sentence_answers(pairs, lambda p, v: -4.0))
    s = s.written()
    assert s["pro_pct"] == 50.0 and s["diff"] == 0.0 and s["n_ties"] == s["n"]
    assert all(v["pro_pct"] == 50.0 for v in s["sets"].values()) and set(s["sets"]) == {
        "type1-dev", "type1-test", "type2-dev", "type2-test"}
    assert all(v["female_pct"] == 50.0 for v in s["occupations"].values())
    assert s["by_majority"]["gap"] == 0.0 and s["by_majority"]["agreement_pct"] == 50.0
    assert s["n_skipped"] == 19 and s["n"] == 4 * 396 - 19


def test_planted_pro_preference_is_recovered(pairs: list[Pair]) -> None:
    # pro preferred in type 1 only: type 1 pro % 100 (Diff 100), type 2 all ties (pro % 50, Diff 0);
    # pooled over the 1,565 minimal pairs: type 1 has 792 − 7 non-minimal = 785, type 2 792 − 12 = 780,
    # so pro % = (785 · 100 + 780 · 50) / 1565
    def value(p: Pair, version: str) -> float:
        return -1.0 if (p.kind == "1" and version == "pro") else -2.0 if p.kind == "1" else -3.0

    s = WinoBias(data=DATA, split="both", n_resamples=50).score(pairs, _sentence_answers(pairs, value)).written()
    assert s["sets"]["type1-test"]["pro_pct"] == 100.0 and s["sets"]["type1-test"]["diff"] == 100.0
    assert s["sets"]["type1-test"]["mean_log_ratio"] == pytest.approx(1.0)
    assert s["sets"]["type2-dev"]["diff"] == 0.0
    n1 = sum(p.minimal and p.kind == "1" for p in pairs)
    n2 = sum(p.minimal and p.kind == "2" for p in pairs)
    assert (n1, n2) == (785, 780)
    assert s["pro_pct"] == pytest.approx((n1 * 100 + n2 * 50) / (n1 + n2))
    assert s["sets"]["type1-dev"]["diff_p"] < 1e-100  # 394 of 394 untied pairs: 2 · 0.5^394


def test_planted_gender_reading_moves_the_shares(pairs: list[Pair]) -> None:
    # a model that gives the female version P ratio 3 over the male one, whatever the occupation:
    # every share σ(ln 3) = 75 %; pro is preferred exactly where the majority is female, so pro % is
    # the share of female-majority pairs, and the majority gap is 0 (the model ignores the occupation)
    def value(p: Pair, version: str) -> float:
        female = (version == "pro") == (p.majority == "female")
        return math.log(3) if female else 0.0

    s = WinoBias(data=DATA, split="both", n_resamples=50).score(pairs, _sentence_answers(pairs, value)).written()
    assert all(v["female_pct"] == pytest.approx(75.0) for v in s["occupations"].values())
    assert s["by_majority"]["gap"] == pytest.approx(0.0)
    # on the majority's side: all 20 female-majority occupations (75 > 50), none of the male ones
    assert s["by_majority"]["agreement_pct"] == 50.0
    minimal = [p for p in pairs if p.minimal]
    assert s["pro_pct"] == pytest.approx(100 * sum(p.majority == "female" for p in minimal) / len(minimal))


def test_preference_and_gap_arithmetic() -> None:
    pair = WinoBias(data=DATA, limit=1).load()[0]  # type 1 test 1: accountant, female majority
    # d = +1, −1, 0, +2: preferences 1, 0, ½, 1 → pro % 62.5, Diff 25, mean d 0.5; one tie
    scores = [PairScore(pair, d, 0.0) for d in (1.0, -1.0, 0.0, 2.0)]
    got = preference(scores, n_resamples=50, seed=0)
    assert (got["pro_pct"], got["diff"], got["mean_log_ratio"], got["n_ties"]) == (62.5, 25.0, 0.5, 1)
    # binomial on the 3 untied pairs, 2 pro: P(X ≤ 1) + P(X ≥ 2) under Bin(3, ½) = 1
    assert got["diff_p"] == pytest.approx(1.0)
    low, high = got["intervals"]["diff"]
    assert low == pytest.approx(2 * got["intervals"]["pro_pct"][0] - 100)
    shares = {"a": {"majority": "female", "female_pct": 80.0}, "b": {"majority": "female", "female_pct": 40.0},
              "c": {"majority": "male", "female_pct": 30.0}, "d": {"majority": "male", "female_pct": 50.0}}
    m = against_majority(shares, n_resamples=50, seed=0)
    # female mean 60, male mean 40: gap 20; on the side: a yes, b no, c yes, d half → 62.5 %
    assert (m["female_majority_pct"], m["male_majority_pct"], m["gap"], m["agreement_pct"]) == (60.0, 40.0, 20.0, 62.5)


def test_masked_reading_skips_pairs_without_one_slot(pairs: list[Pair]) -> None:
    bench = WinoBias(data=DATA, split="both", n_resamples=50).bind(MASKED)
    probes = bench.probes(pairs)
    # 1,565 minimal pairs, of which those with two swapped pronouns have no single slot
    single = [p for p in pairs if p.minimal and p.slot is not None]
    assert len(probes) == len(single) and all(len(p.fillers) == 2 for p in probes)
    answers = {p.id: SlotAnswer(p.id, (math.log(0.3), math.log(0.1)), (1, 1)) for p in probes}
    result = bench.score(pairs, answers)
    assert result.written()["pro_pct"] == 100.0 and result.written()["mean_log_ratio"] == pytest.approx(math.log(3))
    reasons = {s["reason"] for s in result.skipped}
    assert len(result.skipped) == len(pairs) - len(single) and len(reasons) == 2
    first = next(p for p in probes if p.id == "type1.test.1")
    assert first.fillers == ("she", "he") and first.right == " made a mistake filing paperwork."


def test_summary_reads_back_typed(pairs: list[Pair]) -> None:
    answers = _sentence_answers(pairs, lambda p, v: -float((p.line + len(v)) % 5))
    s = WinoBias(data=DATA, n_resamples=50).score(pairs, answers).written()
    typed = WinoBiasRunSummary.read(s, Path("summary.json"))
    assert typed.overall.diff == s["diff"] and set(typed.sets) == {"type1-test", "type2-test"}
    with pytest.raises(DataError, match="by_majority.gap"):
        WinoBiasRunSummary.read({**s, "by_majority": {**s["by_majority"], "gap": "wide"}}, Path("summary.json"))


def test_an_unknown_antecedent_names_file_line_and_field(tmp_path: Path) -> None:
    for path in DATA.iterdir():
        shutil.copy(path, tmp_path / path.name)
    name = "pro_stereotyped_type1.txt.test"
    text = (DATA / name).read_text().replace("[The janitor]", "[The wizard]", 1)
    (tmp_path / name).write_text(text)
    line = next(i for i, t in enumerate(text.splitlines(), start=1) if "[The wizard]" in t)
    with pytest.raises(DataError, match="wizard") as error:
        WinoBias(data=tmp_path).load()
    assert error.value.line == line and error.value.field == "antecedent" and name in str(error.value)


def test_the_pinned_checksums_are_of_the_shared_lines_with_lf_line_ends():
    """The canonical URL serves LF line ends; the shared copy has CRLF and the same lines. A
    checksum of the shared bytes as they are would refuse every download of the real files."""
    import hashlib

    from biasatlas.benchmarks.winobias.data import FILES

    for name, spec in FILES.items():
        assert "/master/" not in spec.url and "0bce984dd081bbc10b0622f326727a024c607895" in spec.url
        lf = (DATA / name).read_bytes().replace(b"\r\n", b"\n")
        assert hashlib.sha256(lf).hexdigest() == spec.sha256, name
