"""Dutch CrowS-Pairs (Strazda & Spanakis 2025) as ``crows-pairs --dataset nl``: read as upstream stores
it, in Mac Roman, and refused when a file is not what its declaration says.

The decoding is checked against a hand table: the seven non-ASCII byte values the file holds, each
looked up in Apple's Mac OS Roman table (0x8E é, 0x8F è, 0x91 ë, 0x95 ï, 0xD5 ’, and 0xC3 √,
0xA9 ©, the two bytes of a UTF-8 "é" that one line holds). The counts come from the shared copy's
PROVENANCE.md.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from pathlib import Path

import pytest

from biasatlas.benchmarks.crows_pairs.benchmark import DATASET_ENCODINGS, CrowsPairs
from biasatlas.benchmarks.crows_pairs.files import read_pairs
from biasatlas.benchmarks.crows_pairs.spec import SPEC, lint_items
from biasatlas.benchmarks.sensitivity import NEUTRAL_PREAMBLES
from biasatlas.errors import DataError
from biasatlas.lint import LintItem, lint

#: Apple's Mac OS Roman table, for the byte values the Dutch file holds (looked up by hand).
MAC_ROMAN_BY_HAND = {0x8E: "é", 0x8F: "è", 0x91: "ë", 0x95: "ï", 0xD5: "\u2019", 0xC3: "√", 0xA9: "©"}


@pytest.fixture
def dutch(shared_data: Path) -> Path:
    return shared_data / "crows-pairs-nl" / "datasets" / "crows_dutch.csv"


@pytest.fixture
def bench(isolated_run: Path) -> CrowsPairs:
    return CrowsPairs(dataset="nl")


def test_the_dutch_file_is_declared_mac_roman_and_its_accented_words_read_as_written(bench):
    assert DATASET_ENCODINGS == {"nl": "mac_roman"}
    texts = {t for p in bench.load() for t in (p.sent_more, p.sent_less)}
    words = " ".join(texts).split()
    for word in ("siësta", "André", "carrière", "naïef", "auto’s"):
        assert any(word in w for w in words), word


def test_every_sentence_is_the_hand_tables_decoding_of_its_bytes(bench, dutch):
    raw = dutch.read_bytes()
    assert {b for b in raw if b > 0x7F} == set(MAC_ROMAN_BY_HAND)  # no byte the table leaves out
    by_hand = "".join(MAC_ROMAN_BY_HAND[b] if b > 0x7F else chr(b) for b in raw)
    rows = list(csv.DictReader(io.StringIO(by_hand, newline=None)))
    assert [(p.id, p.sent_more, p.sent_less) for p in bench.load()] == [
        (r["id"], r["sent_more"], r["sent_less"]) for r in rows]


def test_the_set_as_its_provenance_counts_it(bench):
    pairs = bench.load()
    ids = [int(p.id) for p in pairs]
    assert len(pairs) == 1463 and len(set(ids)) == 1463 and max(ids) == 1507  # Nangia et al.'s ids, 45 left out
    assert Counter(p.direction for p in pairs) == {"stereo": 1249, "antistereo": 214}
    assert Counter(p.bias_type for p in pairs) == {
        "race-color": 475, "gender": 262, "nationality": 173, "socioeconomic": 171, "religion": 101, "age": 82,
        "sexual-orientation": 78, "physical-appearance": 63, "disability": 58}


def test_the_file_without_its_declaration_is_refused_as_not_utf8(dutch):
    with pytest.raises(DataError, match=r"line 29: not UTF-8 text \(byte 0x91"):
        read_pairs(dutch)  # as --data gives it: a user's file is UTF-8


def test_a_utf8_copy_declared_mac_roman_is_refused_not_read_as_mojibake(dutch, tmp_path):
    copy = tmp_path / "crows_dutch.csv"
    copy.write_bytes(dutch.read_bytes().decode("mac_roman").encode("utf-8"))
    with pytest.raises(DataError, match="declared mac_roman but its non-ASCII bytes read as UTF-8"):
        read_pairs(copy, encoding="mac_roman")
    assert read_pairs(copy)[0].sent_more == read_pairs(dutch, encoding="mac_roman")[0].sent_more


def test_an_ascii_file_reads_the_same_under_any_declaration(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("id,sent_more,sent_less,stereo_antistereo,bias_type\n0,A b.,A c.,stereo,age\n")
    assert read_pairs(path, encoding="mac_roman") == read_pairs(path)


def test_lint_finds_the_one_utf8_word_read_as_mac_roman(bench):
    findings = [f for f in lint(lint_items(bench)) if f.rule == "encoding"]
    assert [(f.id, f.field) for f in findings] == [("1367", "sent_more")]
    assert findings[0].detail == "UTF-8 read as Mac Roman: '√©'"


@pytest.mark.parametrize(("text", "flagged"), [("één".encode().decode("mac_roman"), True), ("één", False),
                                                 ("√2 is irrationeel", False), ("Ã©", True)])
def test_the_encoding_rule_on_planted_text(text, flagged):
    found = lint([LintItem("x", 1, {"sent_more": f"Zij is {text}.", "sent_less": "Hij is daar."})])
    assert any(f.rule == "encoding" for f in found) is flagged


def test_dutch_is_the_language_and_the_sensitivity_has_dutch_preambles(bench):
    assert SPEC.language is not None and SPEC.language(bench) == "Dutch"
    assert [name for name, _ in NEUTRAL_PREAMBLES["nl"]] == ["language", "sentence"]
    kinds = SPEC.sensitivity.kinds if SPEC.sensitivity else {}
    assert [p.name for p in kinds["preambles"](bench, "causal-lm")] == ["preamble-language", "preamble-sentence"]


@pytest.mark.slow  # five runs of tiny models (seconds)
@pytest.mark.parametrize(("fixture", "variant"), [("tiny_bert", "nangia"), ("tiny_bert", "modified-tokens"),
                                                  ("tiny_bert", "aul"), ("tiny_gpt2", "sentence-ll"),
                                                  ("tiny_gpt2", "shared-ll")])
def test_every_pair_variant_scores_the_dutch_pairs(isolated_run, request, fixture, variant):
    import biasatlas

    model = request.getfixturevalue(fixture)
    run = biasatlas.evaluate("crows-pairs", model=str(model), variant=variant, dataset="nl", limit=30, cache=False,
                             progress=False)
    summary = run.summary_dict
    assert summary["variant"] == variant and summary["dataset"] == "nl"
    assert summary["n"] + summary["n_skipped"] == 30 and summary["n"] >= 28  # the first 30 pairs hold "siësta"
