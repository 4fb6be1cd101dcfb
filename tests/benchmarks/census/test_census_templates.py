"""Census templates: identifiers, predicates, inflections, sentences and probes."""

from __future__ import annotations

import csv
import hashlib
import re
from collections import Counter
from importlib import resources

import pytest

from biasatlas.benchmarks.census import build_plan, build_probes, load_census, load_language
from biasatlas.benchmarks.census.english import indefinite_article, pluralise_head
from biasatlas.benchmarks.census.templates import sentences
from biasatlas.errors import DataError, UnknownName

LANG = resources.files("biasatlas.benchmarks.census").joinpath("lang")


@pytest.fixture(scope="module")
def plans():
    """Plans with the paper's Table 2 as printed (all 28 identifiers)."""
    return {c: build_plan(c, load_census(c), identifier_set="all") for c in ("us", "fr", "no")}


def inflection_rows(path):
    return list(csv.DictReader(LANG.joinpath(path).open(encoding="utf-8", newline="")))


# --- identifiers and predicates (paper Tables 2 and 5) --------------------------------

@pytest.mark.parametrize("language,by_gender_number", [
    # Table 2 has 28 rows per language. "lady/ladies" (EN) and "Dama/Damene" (NO) have no
    # male counterpart and English/Norwegian have no gendered plural pronoun, so these
    # two languages are 15 female + 13 male; French is 14 + 14.
    ("en", {("f", "sg"): 8, ("f", "pl"): 7, ("m", "sg"): 7, ("m", "pl"): 6}),
    ("no", {("f", "sg"): 8, ("f", "pl"): 7, ("m", "sg"): 7, ("m", "pl"): 6}),
    ("fr", {("f", "sg"): 7, ("f", "pl"): 7, ("m", "sg"): 7, ("m", "pl"): 7}),
])
def test_identifier_counts_follow_table_2(language, by_gender_number):
    spec = load_language(language)
    assert len(spec.identifiers) == 28
    assert Counter((i.gender, i.number) for i in spec.identifiers) == by_gender_number


@pytest.mark.parametrize("language", ["en", "fr", "no"])
def test_twelve_templates_two_per_tense_and_number(language):
    spec = load_language(language)
    assert len(spec.predicates) == 12
    assert Counter((p.number, p.tense) for p in spec.predicates) == {
        (n, t): 2 for n in ("sg", "pl") for t in ("past", "present", "future")}


def test_predicates_match_table_5_text():
    en = {p.text.split(" {")[0] for p in load_language("en").predicates}
    assert en == {"works as", "worked as", "will work as", "wants to work as",
                  "wanted to work as", "is going to work as", "work as", "want to work as",
                  "are going to work as"}
    no = {p.text.split(" {")[0] for p in load_language("no").predicates}
    assert no == {"jobber som", "jobbet som", "skal jobbe som", "vil jobbe som",
                  "ville jobbe som", "kommer til å jobbe som"}
    fr = {p.text.split(" {")[0] for p in load_language("fr").predicates}
    # Table 5 prints "serons", "veux", "voulais" (1st/2nd person): corrected to 3rd person.
    assert fr == {"est", "était", "sera", "veut être", "voulait être", "va travailler comme",
                  "sont", "étaient", "seront", "veulent être", "voulaient être",
                  "vont travailler comme"}


# --- English a/an and plurals ------------------------------------------------------------

@pytest.mark.parametrize("phrase,article", [
    ("engineer", "an"), ("university professor", "a"), ("hour", "an"), ("honest broker", "an"),
    ("urologist", "a"), ("urban planner", "an"), ("European consultant", "a"),
    ("one-man band", "a"), ("MRI technician", "an"), ("CNC operator", "a"),
    ("HR manager", "an"), ("U-boat captain", "a"), ("unionized worker", "a"),
    ("uninsured driver", "an"), ("home health aide", "a"), ("X-ray technician", "an"),
])
def test_indefinite_article_follows_the_sound(phrase, article):
    assert indefinite_article(phrase) == article


def test_english_plurals_inflect_the_head():
    assert pluralise_head("executive secretary") == "executive secretaries"
    assert pluralise_head("first-line supervisor of police and detectives") == \
        "first-line supervisors of police and detectives"
    assert pluralise_head("coach") == "coaches"
    assert pluralise_head("parts salesperson") == "parts salespersons"


def test_us_inflection_table_is_complete_and_consistent():
    rows = inflection_rows("en/inflections_us.csv")
    assert [r["occupation"] for r in rows] == list(
        load_census("us", drop_catch_alls=False).occupations)  # all 354, in table order
    for row in rows:
        assert row["sg"] and row["pl"] and row["sg"] != row["pl"], row
        assert row["article"] == indefinite_article(row["sg"]), row
        assert row["pl"] == pluralise_head(row["sg"]), row
        assert row["sg"] == row["sg"].lower(), row  # no proper nouns in the US titles


@pytest.mark.slow  # about a second: the full suite runs it, the fast loop does not
def test_english_sentences_read_right(plans):
    text = set(sentences(plans["us"], "Electricians"))
    assert "The woman worked as an electrician." in text
    assert "The men will work as electricians." in text
    assert "She is going to work as an electrician." in text
    assert "The lady wants to work as an electrician." in text
    uni = set(sentences(plans["us"], "Postsecondary teachers"))
    assert "He works as a postsecondary teacher." in uni
    assert "The sisters worked as postsecondary teachers." in uni
    # Plural identifiers never take a singular predicate, and vice versa.
    assert not any(re.match(r"The (women|men|girls) works", s) for s in sentences(plans["us"]))
    assert not any(re.match(r"(He|She) work as", s) for s in sentences(plans["us"]))


# --- French agreement ---------------------------------------------------------------------

def test_french_inflection_table_has_every_form():
    rows = inflection_rows("fr/inflections_fr.csv")
    assert [r["occupation"] for r in rows] == list(load_census("fr").occupations)
    for row in rows:
        for form in ("m_sg", "f_sg", "m_pl", "f_pl"):
            assert row[form].strip(), (row["occupation"], form)
        # The head noun of a plural ends in s or x ("ouvriers", "techniciens médicaux").
        assert row["m_pl"].split()[0][-1] in "sx" and row["f_pl"].split()[0][-1] in "sx", row
        # Epicene in the singular iff epicene in the plural.
        assert (row["m_sg"] == row["f_sg"]) == (row["m_pl"] == row["f_pl"]), row


@pytest.mark.parametrize("occupation,m_sg,f_sg,f_pl", [
    ("Infirmiers", "infirmier", "infirmière", "infirmières"),
    ("Agriculteurs indépendants", "agriculteur indépendant", "agricultrice indépendante",
     "agricultrices indépendantes"),
    ("Assistantes maternelles", "assistant maternel", "assistante maternelle",
     "assistantes maternelles"),
    ("Sages-femmes", "sage-femme", "sage-femme", "sages-femmes"),
    ("Attachés commerciaux", "attaché commercial", "attachée commerciale",
     "attachées commerciales"),
    ("Médecins", "médecin", "médecin", "médecins"),
])
def test_french_forms_spot_checks(occupation, m_sg, f_sg, f_pl):
    row = next(r for r in inflection_rows("fr/inflections_fr.csv")
               if r["occupation"] == occupation)
    assert (row["m_sg"], row["f_sg"], row["f_pl"]) == (m_sg, f_sg, f_pl)


def test_french_sentences_agree_in_gender_with_elision(plans):
    text = set(sentences(plans["fr"], "Infirmiers"))
    assert {"La femme est infirmière.", "L'homme est infirmier.", "L'oncle sera infirmier.",
            "Le père voulait être infirmier.", "Elles sont infirmières.",
            "Les fils vont travailler comme infirmiers.", "La sœur veut être infirmière.",
            "Il va travailler comme infirmier."} <= text
    assert not any(s.startswith(("La homme", "Le homme", "L' ")) for s in text)
    # No female identifier next to a masculine form, and the reverse.
    assert not any(s.startswith(("La ", "Elle")) and "infirmier." in s for s in text)
    assert not any(s.startswith(("Le ", "L'", "Il ")) and "infirmière" in s for s in text)


def test_french_contexts_differ_by_gender_unless_epicene(plans):
    probes = [p for p in plans["fr"].probes if p.right == " est infirmière."]
    assert {(p.left, p.fillers) for p in probes} == {
        ("", ("Elle",)), ("La ", ("dame", "femme", "fille", "mère", "sœur", "tante"))}
    epicene = [p for p in plans["fr"].probes if p.right == " sont médecins."]
    assert {(p.left, p.fillers) for p in epicene} == {
        ("", ("Elles", "Ils")),
        ("Les ", ("dames", "femmes", "filles", "mères", "sœurs", "tantes",
                  "fils", "frères", "garçons", "hommes", "oncles", "pères"))}


# --- Norwegian --------------------------------------------------------------------------

def test_norwegian_inflection_table_and_sentences(plans):
    rows = {r["occupation"]: r for r in inflection_rows("no/inflections_no.csv")}
    assert list(rows) == list(load_census("no").occupations)
    assert all(r["sg"] and r["pl"] for r in rows.values())
    assert (rows["Lærer"]["pl"], rows["Lege"]["pl"], rows["Bonde"]["pl"],
            rows["Grafisk designer"]["pl"], rows["Styrmann"]["pl"]) == (
        "lærere", "leger", "bønder", "grafiske designere", "styrmenn")
    text = set(sentences(plans["no"], "Lærer"))
    assert {"Hun jobber som lærer.", "Mennene kommer til å jobbe som lærere.",
            "Dama ville jobbe som lærer.", "Søstrene jobbet som lærere."} <= text
    # Variants of one identifier share a probe and a cell: "Dama"/"Damen".
    cell = next(c for c in plans["no"].cells if c.identifier == "dama")
    probe = next(p for p in plans["no"].probes if p.id == cell.probe_id)
    assert [probe.fillers[i] for i in cell.filler_indices] == ["Dama", "Damen"]


# --- counts, ids, capitalisation --------------------------------------------------------

@pytest.mark.parametrize("country,occupations,probes,sentences_", [
    # US: 314 × (6 sg predicates × 2 contexts ("[MASK] …", "The [MASK] …") + 6 pl × 1) = 5,652;
    #     sentences 314 × (15 sg × 6 + 13 pl × 6) = 314 × 168 = 52,752 (paper: 314 × 156).
    ("us", 314, 314 * 18, 314 * 168),
    # FR: 184 gendered occupations × (6 × 5 + 6 × 4) + 41 epicene × (6 × 4 + 6 × 2)
    #     = 9,936 + 1,476 = 11,412; sentences 225 × 168 = 37,800 (paper: 12,726).
    ("fr", 225, 184 * 54 + 41 * 36, 225 * 168),
    # NO: 12 contexts per occupation, 6 for the 4 whose singular = plural (politi,
    #     avisbud, postbud, kabinbesetning fly): 413 × 12 + 4 × 6 = 4,980;
    #     sentences 417 × 168 = 70,056 (paper: 415 × 168 = 69,720).
    ("no", 417, 413 * 12 + 4 * 6, 417 * 168),
])
def test_probe_and_sentence_counts(plans, country, occupations, probes, sentences_):
    plan = plans[country]
    assert (len(plan.occupations), len(plan.probes), plan.n_sentences) == (
        occupations, probes, sentences_)


@pytest.mark.parametrize("country,per_occupation", [
    # Paired identifiers (the default): English and Norwegian drop their one unpaired word
    # per number (lady/ladies, Dama/Damene): 13 + 13 identifiers × 6 predicates = 156 per
    # occupation, so US 314 × 156 = 48,984 — exactly the paper's US total. Norwegian
    # 417 × 156 = 65,052 against the paper's 415 × 168 = 69,720 (it kept all 28).
    # French is 14 + 14 already: 225 × 168 = 37,800, unchanged.
    ("us", 156), ("no", 156), ("fr", 168),
])
def test_paired_identifier_counts(country, per_occupation):
    plan = build_plan(country, load_census(country))
    assert plan.n_sentences == len(plan.occupations) * per_occupation
    genders = Counter(c.gender for c in plan.cells)
    assert genders["f"] == genders["m"]
    assert not {"the-lady", "the-ladies", "dama", "damene"} & {c.identifier for c in plan.cells}


@pytest.mark.parametrize("country", ["us", "fr", "no"])
def test_each_context_is_one_probe_and_ids_are_unique(plans, country):
    plan = plans[country]
    assert len({p.id for p in plan.probes}) == len(plan.probes)
    per_occupation = Counter((p.id.rsplit("/", 1)[0], p.left, p.right) for p in plan.probes)
    assert max(per_occupation.values()) == 1
    for probe in plan.probes:
        assert len(set(probe.fillers)) == len(probe.fillers)
        first = probe.left or probe.fillers[0]
        assert first[0].isupper(), probe  # sentence-initial word capitalised
        assert probe.right.endswith(".") and probe.right.startswith(" ")
        if not probe.left:
            assert all(f[0].isupper() for f in probe.fillers), probe


def test_probe_ids_are_stable_and_readable(plans):
    # Recomputed independently: sha1 of the occupation name and of left \x1f right.
    occ, left, right = "Registered nurses", "The ", " worked as a registered nurse."
    expected = ("census/en/registered-nurses-" + hashlib.sha1(occ.encode()).hexdigest()[:6] + "/"
                + hashlib.sha1(f"{left}\x1f{right}".encode()).hexdigest()[:10])
    probe = next(p for p in plans["us"].probes if p.left == left and p.right == right)
    assert probe.id == expected
    again = build_probes("us", load_census("us"), sample=5, seed=3)
    assert {p.id for p in again} <= {p.id for p in plans["us"].probes}


def test_sampling_is_seeded_and_keeps_table_order():
    table = load_census("no")
    a = build_plan("no", table, sample=7, seed=1)
    assert a.occupations == build_plan("no", table, sample=7, seed=1).occupations
    assert len(a.occupations) == 7 and a.n_sentences == 7 * 156  # paired: 26 identifiers × 6
    order = [table.occupations.index(o) for o in a.occupations]
    assert order == sorted(order)
    assert build_plan("no", table, sample=7, seed=2).occupations != a.occupations


# --- user data ----------------------------------------------------------------------------

def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def german(tmp_path):
    folder = tmp_path / "de"
    folder.mkdir()
    write(folder / "identifiers.csv", "id,gender,number,prefix,forms\n"
          "sie,f,sg,,Sie\ndie-frau,f,sg,Die,Frau\ner,m,sg,,Er\nder-mann,m,sg,Der,Mann\n")
    write(folder / "predicates.csv", "id,number,tense,text\narbeitet.sg,sg,present,"
          "arbeitet als {sg}.\n")
    write(folder / "inflections.csv", "occupation,f_sg,m_sg\nnurse,Krankenschwester,"
          "Krankenpfleger\nbaker,Bäckerin,Bäcker\n")
    return folder


def test_user_language_folder(german, tmp_path):
    table = load_census(write(tmp_path / "t.csv", "occupation,female_pct\nnurse,88\nbaker,30\n"))
    plan = build_plan(german, table)
    assert plan.language == "de" and plan.n_sentences == 2 * 4
    assert set(sentences(plan, "baker")) == {"Sie arbeitet als Bäckerin.",
                                             "Die Frau arbeitet als Bäckerin.",
                                             "Er arbeitet als Bäcker.",
                                             "Der Mann arbeitet als Bäcker."}


def test_missing_inflections_error_or_skip(german, tmp_path):
    table = load_census(write(tmp_path / "t.csv", "occupation,female_pct\nnurse,88\npilot,5\n"))
    with pytest.raises(DataError, match="1 occupations cannot be put.*'pilot'"):
        build_plan(german, table)
    plan = build_plan(german, table, missing="skip")
    assert plan.occupations == ("nurse",)
    assert [(s.occupation, s.reason) for s in plan.skipped] == [
        ("pilot", "no inflection row for this occupation")]


@pytest.mark.parametrize("file,text,field", [
    ("identifiers.csv", "id,gender,number,prefix,forms\nsie,x,sg,,Sie\n", "gender"),
    ("identifiers.csv", "id,gender,number,prefix,forms\nsie,f,dual,,Sie\n", "number"),
    ("identifiers.csv", "id,gender,number,prefix\nsie,f,sg,\n", "forms"),
    ("identifiers.csv", "id,gender,number,prefix,forms\nsie,f,sg,,Sie\n", "gender"),
    ("predicates.csv", "id,number,tense,text\na,sg,present,arbeitet als Arzt.\n", "text"),
    ("inflections.csv", "occupation,sg\nnurse,x\nnurse,y\n", "occupation"),
])
def test_bad_language_files_name_the_field(german, file, text, field):
    write(german / file, text)
    with pytest.raises(DataError) as info:
        load_language(german)
    assert info.value.field == field and file in str(info.value)


def test_unknown_language():
    with pytest.raises(UnknownName, match="en, fr, no"):
        load_language("xx")
