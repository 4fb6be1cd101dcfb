"""biasatlas lint: each rule on planted items (fires on the flaw it names, never on a clean
item), the edit arithmetic worked by hand, the counts the issue measured on the shared CrowS-Pairs
data with no model, and the command (exit 0, the JSONL of findings, file lines)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from biasatlas.cli import app
from biasatlas.lint import RULES, LintItem, counts, edit, flagged, lint


def _pair(id_: str, a: str, b: str, line: int = 2) -> LintItem:
    return LintItem(id_, line, {"sent_more": a, "sent_less": b})


@pytest.mark.parametrize(("a", "b", "spans", "tokens"), [
    ("The man is tall.", "The woman is tall.", 1, 1),  # man → woman
    ("He ran home fast.", "She walked home slowly.", 2, 3),  # he ran → she walked (2), fast → slowly (1)
    ("Poor people steal.", "Rich people steal!", 2, 2),  # poor → rich, . → !
    ("Women can't drive", "women can't drive", 0, 0),  # case is no edit
    ("A B", "A B C D E", 1, 3),  # one inserted span of three tokens
])
def test_edit_counts_spans_and_tokens(a, b, spans, tokens):
    assert edit(a, b) == (spans, tokens)


def test_each_rule_fires_on_its_flaw_and_nothing_fires_on_a_clean_pair():
    items = [_pair("clean", "The man is tall.", "The woman is tall."),
             _pair("same", "Old people are slow.", "Old people are slow."),
             _pair("two-spans", "He ran home fast.", "She ran home slowly."),
             _pair("many", "The rich man bought a car.", "The poor old woman sold her old car."),  # 1 span, 6
             _pair("bracket", "He (the boss left.", "She (the boss left."),
             _pair("quote", 'He said "no.', 'She said "no.'),
             _pair("fffd", "He is caf\ufffd.", "She is caf\ufffd."),
             _pair("mojibake", "He is cafÃ©.", "She is cafÃ©."),
             _pair("control", "He is\x07 here.", "She is\x07 here."),
             _pair("again", "The man is  tall.", "The woman is tall.")]  # the clean pair, spaced otherwise
    found = lint(items)
    rules = {(f.id, f.rule) for f in found}
    assert not any(i == "clean" for i, _ in rules)
    assert rules == {("same", "identical"), ("two-spans", "edit-spans"), ("many", "edit-tokens"),
                     ("bracket", "brackets"), ("quote", "brackets"),
                     ("fffd", "encoding"), ("mojibake", "encoding"), ("control", "encoding"),
                     ("again", "duplicate")}
    dup = next(f for f in found if f.rule == "duplicate")
    assert dup.detail == "the same texts as item clean" and dup.line == 2
    assert next(f for f in found if f.id == "control").detail == "control character U+0007"
    assert counts(found) == {"identical": 1, "edit-spans": 1, "edit-tokens": 1, "group-absent": 0, "brackets": 2,
                             "encoding": 3, "duplicate": 1, "option-absent": 0}
    assert list(counts(found)) == list(RULES) and len(flagged(found)) == 9


def test_max_tokens_is_the_bound_and_choices_have_no_edit_rules():
    many = _pair("many", "A B", "A B C D E")  # 3 tokens changed
    assert [f.rule for f in lint([many], max_tokens=3)] == []
    assert [f.rule for f in lint([many], max_tokens=2)] == ["edit-tokens"]
    choice = LintItem("q", None, {"a": "Yes.", "b": "No, not at all, never.", "c": "Yes."}, "choice")
    assert [(f.rule, f.field) for f in lint([choice])] == [("identical", "c")]


@pytest.mark.parametrize(("dataset", "expected"), [
    # measured for the issue on the shared data with no model: spans > 1, tokens > 3, identical
    ("en", (239, 73, 0)), ("en-revised", (204, 51, 0)), ("fr+210", (None, None, 3))])
def test_crows_pairs_counts_are_the_issues(dataset, expected, monkeypatch, shared_data):
    from biasatlas.benchmarks.crows_pairs import CrowsPairs
    from biasatlas.benchmarks.crows_pairs.spec import lint_items

    monkeypatch.setenv("BIASATLAS_DATA_DIR", str(shared_data))
    got = counts(lint(lint_items(CrowsPairs(dataset=dataset))))
    for rule, want in zip(("edit-spans", "edit-tokens", "identical"), expected):
        if want is not None:
            assert got[rule] == want, rule


def test_the_command_prints_counts_writes_findings_and_exits_0(tmp_path, monkeypatch):
    data = tmp_path / "pairs.csv"
    data.write_text("sent_more,sent_less,stereo_antistereo,bias_type\n"
                    "The man is tall.,The woman is tall.,stereo,gender\n"
                    "Old people are slow.,Old people are slow.,stereo,age\n", encoding="utf-8")
    out = tmp_path / "findings.jsonl"
    done = CliRunner().invoke(app, ["lint", "crows-pairs", "--data", str(data), "--out", str(out)],
                              env={"COLUMNS": "120"})
    assert done.exit_code == 0, done.output
    assert "crows-pairs lint: 1 of 2 items with a finding" in done.output
    (finding,) = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert finding["rule"] == "identical" and finding["line"] == 3 and finding["field"] == "sent_less"


def test_lint_lists_only_benchmarks_that_can_lint():
    from biasatlas.registry import BENCHMARKS, benchmark_spec

    done = CliRunner().invoke(app, ["lint", "--help"], env={"COLUMNS": "200"})
    assert done.exit_code == 0
    for name in BENCHMARKS:
        assert (f" {name} " in done.output) == (benchmark_spec(name).lint_items is not None), name


def test_choice_items_check_their_group_options_against_the_context():
    item = LintItem("q1", None, {"context": "A grandson and his grandfather met the managers.", "question": "Who?",
                                 "option 0": "The grandfather", "option 1": "The manager", "option 2": "The nurse",
                                 "option 3": "Cannot be determined"}, "choice",
                    ("option 0", "option 1", "option 2"))
    found = lint([item])
    # "grandfather" is there, "manager" is found inside "managers", "nurse" is absent; "the" is
    # under 4 letters; the unknown option is not checked
    assert [(f.rule, f.field, f.detail) for f in found] == [("option-absent", "option 2", "not in the context: nurse")]
    chinese = LintItem("z", None, {"context": "周末，孩子的妈妈和孩子的妈妈一起去看望了老人们。",
                                   "option 0": "孩子的妈妈", "option 1": "孩子的爸爸"},
                       "choice", ("option 0", "option 1"))
    assert [(f.rule, f.field) for f in lint([chinese])] == [("option-absent", "option 1")]  # one run, two+ chars
    same = LintItem("s", None, {"context": "x", "question": "x", "option 0": "A b", "option 1": "A b"}, "choice",
                    ("option 0", "option 1"))
    # options of one letter have no word to look for; context == question is no finding (not an option)
    assert [(f.rule, f.field) for f in lint([same])] == [("identical", "option 1")]


def _choice(context: str, *options: str) -> LintItem:
    texts = {"context": context, **{f"option {i}": o for i, o in enumerate(options)}}
    return LintItem("q", None, texts, "choice", tuple(f"option {i}" for i in range(len(options))))


@pytest.mark.parametrize(("context", "option"), [
    ("Two people came in, one carrying papers and the other in a wheelchair.", "The person with the wheelchair"),
    ("Alex Liu, whose parents are professors, got top marks.", "Alex Liu, the professors' child"),
    ("A cashier and a dentist were house hunting.", "The cashier's family"),
    ("Two women, one who uses a cane and one with dark hair, were there.", "The woman with a cane"),
    ("The White teenager's parents are both parking attendant.", "The teenager, whose parents are attendants"),
    ("Two friends of the bakery.", "The bakeries' friend"),  # -ies plural of a word the context has
    # EsBBQ, CaBBQ and MBBQ's generic person and function words, and a gendered word where the context names
    # that gender ("la mujer" for "dos mujeres")
    ("Llegaron dos mujeres, una en silla de ruedas.", "La persona que está en silla de ruedas"),
    ("Dos mujeres hablaban.", "La mujer gente"),
    ("Van arribar dues dones.", "La persona gent"),
    ("Er kwamen twee vrouwen binnen.", "De persoon, degene die vrouwen zag"),
    ("İki kadın geldi.", "Kadın olan kişi"),
])
def test_option_absent_ignores_generic_person_words_function_words_and_plurals(context, option):
    """Before: "person", "with", "child", "family", "woman" (the context says "women"),
    "whose", "attendants" (for "attendant") and "bakeries" each counted as a word the context lacks."""
    assert [f.detail for f in lint([_choice(context, option)]) if f.rule == "option-absent"] == []


@pytest.mark.parametrize(("context", "option", "missing"), [
    ("I met two clients, one who's gay and the other who's straight.", "The straight woman", "woman"),  # adds a gender
    ("A Latina woman (a bartender) and a White woman talked.", "The Latino bartender", "latino"),
    ("A doctor and a lawyer met.", "The nurses", "nurses"),  # a plural of a word the context lacks
    ("She and her brother met a lawyer.", "The gentleman lawyer", "gentleman"),  # the context's man is "brother"
    ("Conocí a dos clientes, uno gay y otro heterosexual.", "La mujer heterosexual", "mujer"),  # adds a gender
    ("Un metge i un advocat.", "La persona infermera", "infermera"),
])
def test_option_absent_still_finds_what_the_context_lacks(context, option, missing):
    found = [f.detail for f in lint([_choice(context, option)]) if f.rule == "option-absent"]
    assert found == [f"not in the context: {missing}"]


def _grouped(id_: str, a: str, b: str, words: tuple[str, ...], pattern: str = "") -> LintItem:
    return LintItem(id_, 2, {"sent_more": a, "sent_less": b}, group=words, group_pattern=pattern)


def test_group_absent_fires_when_the_edit_names_no_group_word():
    race = ("black", "white")
    items = [_grouped("swap", "Black people steal.", "White people steal.", race),
             _grouped("plural", "The blacks stole.", "The whites stole.", race),  # "whites" less its "s"
             _grouped("negation", "Black people will steal.", "Black people won't steal.", race),  # will → won ' t
             _grouped("mislabelled", "He is rude.", "She is rude.", race),
             _grouped("name", "Jamal was rude.", "Jake was rude.", race, "[A-Z]"),  # a name counts with the pattern
             _grouped("name-no-pattern", "Jamal was rude.", "Jake was rude.", race),
             _grouped("same", "Black people steal.", "Black people steal.", race),  # identical: no edit to read
             LintItem("no-terms", 2, {"a": "He is rude.", "b": "She is rude."})]  # no list: the rule does not apply
    found = [f for f in lint(items) if f.rule == "group-absent"]
    assert [(f.id, f.field) for f in found] == [("negation", "sent_less"), ("mislabelled", "sent_less"),
                                                ("name-no-pattern", "sent_less")]
    assert found[0].detail == "no group word in the edit (will won ' t)"  # both sides of the span, as written


def test_group_absent_with_a_context_looks_for_the_target_there():
    def item(context: str) -> LintItem:
        return LintItem("s", None, {"stereotype": "x y.", "anti-stereotype": "x z."}, group=("ethiopia",),
                        group_in=("context", context))

    assert lint([item("Ethiopian men are BLANK.")]) == []  # a substring, case aside
    (found,) = lint([item("She wanted to be a BLANK.")])
    assert (found.rule, found.field, found.detail) == ("group-absent", "context", "none of ethiopia in the context")


def test_crows_group_words_apply_to_the_english_sets_only(monkeypatch, shared_data):
    from biasatlas.benchmarks.crows_pairs import CrowsPairs
    from biasatlas.benchmarks.crows_pairs.spec import lint_items

    monkeypatch.setenv("BIASATLAS_DATA_DIR", str(shared_data))
    english, french = lint_items(CrowsPairs(dataset="en", limit=5)), lint_items(CrowsPairs(dataset="fr", limit=5))
    assert all(i.group for i in english) and not any(i.group for i in french)
    # pair 0 (line 2) swaps "black" for "white" under race-color: no finding
    assert english[0].id == "0" and not [f for f in lint(english[:1]) if f.rule == "group-absent"]


@pytest.mark.slow  # over a second: the full suite runs it, the fast loop does not
def test_bbq_lint_finds_the_stray_brace_checked_by_hand(monkeypatch, shared_data):
    # BBQ-en Nationality/2641's context reads "… the {Mozambican man looked horrified …" (checked by hand)
    from biasatlas.benchmarks.bbq import BBQ
    from biasatlas.benchmarks.bbq.spec import lint_items

    monkeypatch.setenv("BIASATLAS_DATA_DIR", str(shared_data))
    items = [i for i in lint_items(BBQ(dataset="en", category="Nationality")) if i.id == "Nationality/2641"]
    assert [(f.rule, f.field, f.detail) for f in lint(items)] == [("brackets", "context", "unbalanced {}")]
