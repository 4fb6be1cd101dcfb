"""CrowS-Pairs text as the model sees it: as stored by default, each change a named, recorded option."""

from __future__ import annotations

import csv
import unicodedata

from biasatlas.benchmarks.crows_pairs import CrowsPair, CrowsPairs, read_pairs
from biasatlas.benchmarks.crows_pairs.paper import PAPER_SCORES, comparability
from biasatlas.pipeline import run_benchmark
from biasatlas.report import build_report, load_run, load_runs, render
from biasatlas.scorers.fake import FakeScorer
from biasatlas.runs.folder import write_run
from report_fixtures import crows_paper_run, hub_scorer

HEADER = "\tsent_more\tsent_less\tstereo_antistereo\tbias_type\n"
DECOMPOSED = unicodedata.normalize("NFD", "Les élèves")  # e + U+0301: what a spreadsheet may save


def _pair(more: str, less: str) -> CrowsPair:
    return CrowsPair("p", more, less, "stereo", "gender", 2)


def test_sentences_are_scored_as_stored_by_default():
    probe = CrowsPairs(dataset=None).probes([_pair(" She  cried. ", DECOMPOSED + " rient. ")])[0]
    assert (probe.a, probe.b) == (" She  cried. ", DECOMPOSED + " rient. ")  # edge and inner spaces, NFD, kept


def test_strip_whitespace_and_unicode_nfc_are_the_only_changes_and_are_named():
    pair = _pair(" She  cried. ", DECOMPOSED + " rient. ")
    stripped = CrowsPairs(dataset=None, strip_whitespace=True).probes([pair])[0]
    assert (stripped.a, stripped.b) == ("She  cried.", DECOMPOSED + " rient.")  # inner double space kept
    nfc = CrowsPairs(dataset=None, unicode_nfc=True).probes([pair])[0]
    assert nfc.b == "Les \u00e9l\u00e8ves rient. " and nfc.b != pair.sent_less
    both = CrowsPairs(dataset=None, strip_whitespace=True, unicode_nfc=True, lowercase=True).probes([pair])[0]
    assert (both.a, both.b) == ("she  cried.", "les \u00e9l\u00e8ves rient.")


def test_a_pair_identical_only_once_stripped_is_flagged_as_scored(tmp_path):
    path = tmp_path / "p.tsv"
    path.write_text(HEADER + "0\tSame. \tSame.\tstereo\tage\n", encoding="utf-8")
    kept = run_benchmark(CrowsPairs(dataset=None, data=path), FakeScorer())
    stripped = run_benchmark(CrowsPairs(dataset=None, data=path, strip_whitespace=True), FakeScorer())
    assert kept.records[0]["flag"] is None and kept.records[0]["likelihood_difference"] > 0
    assert stripped.records[0]["flag"] == "identical sentences"
    assert stripped.records[0]["outcome"] == "tie" and stripped.records[0]["likelihood_difference"] == 0.0


def test_the_options_are_recorded_and_shown_in_the_leaderboard(tmp_path):
    path = tmp_path / "p.tsv"
    path.write_text(HEADER + "0\tA she. \tA he.\tstereo\tgender\n1\tB her.\tB him.\tantistereo\tgender\n",
                    encoding="utf-8")
    plain = run_benchmark(CrowsPairs(dataset=None, data=path), FakeScorer())
    strip = run_benchmark(CrowsPairs(dataset=None, data=path, strip_whitespace=True), FakeScorer())
    assert (plain.config["benchmark"]["strip_whitespace"], plain.config["benchmark"]["unicode_nfc"]) == (False, False)
    assert strip.config["benchmark"]["strip_whitespace"] is True
    write_run(plain, tmp_path / "plain")
    write_run(strip, tmp_path / "strip")
    md = render(build_report(load_runs([tmp_path / "plain", tmp_path / "strip"]), compare=False), "md")
    assert "| lowercase | strip-whitespace | unicode-nfc |" in md
    assert "| no | yes | no |" in md and "| no | no | no |" in md


def test_a_run_that_trimmed_or_normalised_is_not_like_for_like(tmp_path):
    entry = next(e for e in PAPER_SCORES if e.model == "CamemBERT")
    folder = crows_paper_run(tmp_path / "run", hub_scorer("camembert-base"))
    config = (folder / "config.json")
    import json

    data = json.loads(config.read_text())
    assert comparability(load_run(folder), entry).reasons == ()
    data["benchmark"]["strip_whitespace"] = True
    config.write_text(json.dumps(data))
    assert comparability(load_run(folder), entry).reasons == (
        "edge whitespace stripped (the paper scored the text as stored)",)
    del data["benchmark"]["strip_whitespace"], data["benchmark"]["unicode_nfc"]  # a version-1 run
    config.write_text(json.dumps(data))
    assert comparability(load_run(folder), entry).reasons == (
        "text preparation not recorded (runs before version 2 stripped edge whitespace)",)


def test_line_ends_are_read_as_the_scripts_text_mode_open_reads_them(tmp_path):
    """CRLF rows and a CRLF inside a quoted cell: the scripts' ``open()`` turns both into LF."""
    path = tmp_path / "crlf.tsv"
    path.write_bytes(b"\tsent_more\tsent_less\tstereo_antistereo\tbias_type\r\n"
                     b'0\t"Two\r\nlines. "\tOne line. \tstereo\tage\r\n'
                     b"1\tA\tB\tantistereo\tage\r\n")
    with open(path, encoding="utf-8") as handle:  # what metric.py does
        want = [(r["sent_more"], r["sent_less"]) for r in csv.DictReader(handle, delimiter="\t")]
    assert [(p.sent_more, p.sent_less) for p in read_pairs(path)] == want == [("Two\nlines. ", "One line. "),
                                                                               ("A", "B")]
