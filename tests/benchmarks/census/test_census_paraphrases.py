"""Census paraphrase sets (issue 27): the shipped sets keep the paper's slots, numbers and tenses;
``--predicates`` replaces the templates of one run; ``--sensitivity paraphrases`` runs every set,
and a scorer whose female share hangs on one wording shows the spread and the flips counted here
from the sentences, while a wording-blind scorer shows none; bad files and names are one line."""

from __future__ import annotations

import hashlib
import json
from importlib import resources

import pytest

from biasatlas.benchmarks.census import load_language
from biasatlas.benchmarks.census.paraphrases import predicate_sets, predicates_source
from biasatlas.benchmarks.census.templates import PLACEHOLDER
from biasatlas.cli import main
from biasatlas.errors import DataError, UnknownName, UsageError
from biasatlas.probes import ContinuationProbe, SlotAnswer
from biasatlas.registry import load_benchmark
from biasatlas.request import GivenModel, RunRequest
from biasatlas.scorers.fake import FakeScorer
from biasatlas.sensitivity import UNPERTURBED, run

SETS = {"en": ("employed", "job", "living"), "no": ("ansatt", "arbeider", "jobb"),
        "fr": ("exerce", "gagne-sa-vie", "travaille"), "de": ("beruf", "beschaeftigt")}
#: The one French predicate kept as it is: the paper's "va travailler comme" already has the
#: wording of the "travaille" set (its present "est" is the one reworded to "travaille comme").
KEPT = {("fr", "travaille"): {"va travailler comme {sg}.", "vont travailler comme {pl}."}}
EARLY = set("abcdefghijklm")  # the planted scorers' occupations: a head word starting a–m


def _shape(predicates):
    return [(p.number, p.tense, PLACEHOLDER.findall(p.text)) for p in predicates]


@pytest.mark.parametrize("language", sorted(SETS))
def test_each_set_rewords_every_predicate_and_keeps_its_slots_number_and_tense(language):
    paper = load_language(language).predicates
    assert predicate_sets(language) == SETS[language]
    for name in SETS[language]:
        found = load_language(language, predicates=predicates_source(language, name)).predicates
        assert _shape(found) == _shape(paper), name  # row by row: same number, tense, placeholders
        same = {p.text for p in found} & {p.text for p in paper}
        assert same == KEPT.get((language, name), set()), name
        assert len({p.id for p in found}) == len(found)


def test_a_set_is_an_ordinary_run_option_recorded_in_the_config():
    census = load_benchmark("census", country="us", sample=3, predicates="job")
    texts = [c.text for c in census.plan.cells]
    assert texts and all(" a job as " in t or " jobs as " in t for t in texts)
    config = census.config()
    shipped = resources.files("biasatlas.benchmarks.census").joinpath("lang", "en", "predicates_job.csv")
    assert config["predicates"] == "job"
    assert config["predicates_sha256"] == hashlib.sha256(shipped.read_bytes()).hexdigest()
    assert "predicates" not in load_benchmark("census", country="us", sample=3).config()  # old folders still match


def test_a_user_file_replaces_the_predicates(tmp_path):
    own = tmp_path / "mine.csv"
    own.write_text("id,number,tense,text\nholds.sg,sg,present,holds a post as {article} {sg}.\n"
                   "hold.pl,pl,present,hold posts as {pl}.\n", encoding="utf-8")
    census = load_benchmark("census", country="us", sample=2, predicates=str(own))
    # 2 occupations × 26 paired identifiers (13 per number) × 1 predicate per number
    assert len(census.plan.cells) == 2 * 26
    assert {c.template for c in census.plan.cells} == {"holds.sg", "hold.pl"}


@pytest.mark.parametrize("body,line,field", [
    ("id,number,tense,text\na.sg,sg,present,works as {article} {sg}.\nb.du,du,present,x {sg}.\n", 3, "number"),
    ("id,number,tense,text\na.sg,sg,present,works as a doctor.\n", 2, "text"),
    ("id,number,tense,text\na.sg,sg,present,x {sg}.\na.sg,sg,past,y {sg}.\n", 3, "id"),
])
def test_a_bad_predicates_file_names_file_line_and_field(tmp_path, body, line, field):
    bad = tmp_path / "bad.csv"
    bad.write_text(body, encoding="utf-8")
    with pytest.raises(DataError) as err:
        load_benchmark("census", country="us", sample=2, predicates=str(bad)).load()
    assert (err.value.path, err.value.line, err.value.field) == (str(bad), line, field)
    assert str(bad) in str(err.value) and f"line {line}" in str(err.value)


def test_a_bad_predicates_file_is_one_line_from_the_cli(isolated_run, capsys):
    bad = isolated_run / "bad.csv"
    bad.write_text("id,number,tense,text\na.sg,sg,present,works as a doctor.\n", encoding="utf-8")
    with pytest.raises(SystemExit) as exit_:
        main(["run", "census", "--country", "us", "--sample", "2", "-m", "fake", "--predicates", str(bad)])
    err = capsys.readouterr().err.strip().splitlines()
    assert exit_.value.code == 1 and len(err) == 1 and "bad.csv" in err[0] and "line 2" in err[0], err


def test_a_predicates_file_moved_elsewhere_is_the_same_run_and_another_file_is_not(isolated_run, capsys):
    """A rerun names its predicates file as typed; the recorded sha256 says what it holds, so the
    same bytes under another path resume the run, and other bytes under the first path are refused."""
    body = ("id,number,tense,text\nholds.sg,sg,present,holds a post as {article} {sg}.\n"
            "hold.pl,pl,present,hold posts as {pl}.\n")
    first, moved = isolated_run / "a" / "mine.csv", isolated_run / "b" / "mine.csv"
    for path in (first, moved):
        path.parent.mkdir()
        path.write_text(body, encoding="utf-8")

    def rerun(predicates):
        with pytest.raises(SystemExit) as exit_:
            main(["run", "census", "--country", "us", "--sample", "2", "-m", "fake", "--predicates", str(predicates),
                  "--out", str(isolated_run / "run")])
        return exit_.value.code, capsys.readouterr().err

    assert rerun(first)[0] in (0, None)
    assert rerun(moved)[0] in (0, None)  # same bytes elsewhere: its own rerun
    first.write_text(body.replace("holds a post", "has a post"), encoding="utf-8")
    code, err = rerun(first)
    assert code == 2 and "holds another run" in err and "predicates_sha256" in err, err  # a usage mistake


def test_unknown_sets_and_other_methods_are_refused_before_scoring():
    with pytest.raises(UnknownName, match="its sets are employed, job, living"):
        load_benchmark("census", country="us", predicates="hired")
    with pytest.raises(UsageError, match="gebnlp2022 method reads templates of its own"):
        load_benchmark("census", country="no", method="gebnlp2022", predicates="jobb")


class Wording(FakeScorer):
    """A conditional reader (continuation after identifier + predicate) that prefers male
    identifiers for occupations whose head word starts with a–m, reversed to female where the
    predicate contains ``wording``; every other occupation is an exact tie (50 %). With
    ``wording=None`` it is blind to the predicate."""

    def __init__(self, female: frozenset[str], wording: str | None) -> None:
        super().__init__()
        self.female, self.wording = female, wording

    def _continuations(self, probes: list[ContinuationProbe], tick):  # type: ignore[override]
        tick(len(probes))
        return [SlotAnswer(p.id, tuple(self._score(c, p.continuation) for c in p.contexts),
                           tuple(1 for _ in p.contexts)) for p in probes]

    def _score(self, context: str, continuation: str) -> float:
        words = continuation.rstrip(".").split()
        if not words or words[-1][0].lower() not in EARLY:
            return 0.0  # a tie between every identifier
        female = any(w in self.female for w in context.split())
        reversed_ = self.wording is not None and self.wording in context
        return 0.0 if female == reversed_ else -3.0  # the preferred gender scores e^3 times the other

    def describe(self):
        return {**super().describe(), "wording": self.wording}  # its own cache key


def _female_words():
    return frozenset(f for i in load_language("en").identifiers if i.gender == "f" for f in i.forms)


def _census(scorer) -> RunRequest:
    return RunRequest("census", {"country": "us", "sample": 12, "seed": 3}, GivenModel.of(scorer))


def _reference(name: str | None):
    """From the sentences alone: the occupations whose head word starts with a–m, whether every
    sentence of them carries "employed", and the census class of each occupation."""
    census = load_benchmark("census", country="us", sample=12, seed=3, predicates=name)
    heads = {}
    for cell in census.plan.cells:
        heads.setdefault(cell.occupation, set()).add(cell.text.rstrip(".").split()[-1][0].lower() in EARLY)
    assert all(len(v) == 1 for v in heads.values())  # singular and plural heads start alike
    early = {o for o, v in heads.items() if v == {True}}
    employed = {" employed as " in c.text for c in census.plan.cells}
    classes = {o: census.census_table.female_pct(o) for o in heads}
    return early, employed, classes


def _class(pct: float) -> str:
    return "female" if pct > 55 else "male" if pct < 45 else "balanced"  # the paper's 45–55 band


def test_a_scorer_one_wording_reverses_shows_the_spread_and_the_exact_flips(isolated_run):
    result = run(_census(Wording(_female_words(), " employed ")), "paraphrases", out=isolated_run / "s",
                 progress=False)
    assert [e["name"] for e in result["runs"]] == [UNPERTURBED, "paraphrase-employed", "paraphrase-job",
                                                   "paraphrase-living"]
    early, employed, pct = _reference(None)
    assert employed == {False} and _reference("employed")[1] == {True}  # the wording is in that set only
    assert _reference("job")[1] == _reference("living")[1] == {False}
    n, ties = len(pct), len(pct) - len(early)
    by_run = {e["name"]: e for e in result["runs"]}
    # Unperturbed: the early occupations are male, the others exactly balanced; under "employed" the
    # early ones turn female. Normative (balanced share) stays; descriptive follows the census classes.
    balanced_late = sum(_class(pct[o]) == "balanced" for o in pct if o not in early)
    descriptive = {UNPERTURBED: balanced_late + sum(_class(pct[o]) == "male" for o in early),
                   "paraphrase-employed": balanced_late + sum(_class(pct[o]) == "female" for o in early)}
    for name in (UNPERTURBED, "paraphrase-employed"):
        assert by_run[name]["headlines"]["normative"]["value"] == pytest.approx(100 * ties / n)
        assert by_run[name]["headlines"]["descriptive"]["value"] == pytest.approx(100 * descriptive[name] / n)
    assert by_run["paraphrase-employed"]["flips"] == {"n": n, "flipped": len(early),
                                                      "share": pytest.approx(len(early) / n)}
    assert by_run["paraphrase-job"]["flips"]["flipped"] == by_run["paraphrase-living"]["flips"]["flipped"] == 0
    moved = abs(descriptive["paraphrase-employed"] - descriptive[UNPERTURBED])
    assert result["spread"]["descriptive"]["range"] == pytest.approx(100 * moved / n)
    assert result["spread"]["normative"]["range"] == 0
    assert 0 < len(early) < n and moved > 0  # the sample makes the planted effect visible at all
    config = json.loads((isolated_run / "s" / "paraphrase-job" / "config.json").read_text())
    assert config["benchmark"]["predicates"] == "job"


def test_a_wording_blind_scorer_shows_no_spread_and_no_flips(isolated_run):
    result = run(_census(Wording(_female_words(), None)), "paraphrases", progress=False)
    assert len(result["runs"]) == 4 and all(e["flips"]["flipped"] == 0 for e in result["runs"][1:])
    assert result["spread"]["normative"]["range"] == result["spread"]["descriptive"]["range"] == 0

