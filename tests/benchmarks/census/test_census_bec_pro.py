"""BEC-Pro's association score as the census method ``bartl2020`` (Kurita et al. 2019 as
Bartl, Nissim & Gatt 2020 use it), English and German.

* The sentences rebuilt by slot are BEC-Pro's 5,400 sentences, in both languages.
* Parity: a straightforward reference written here with transformers (mask the person,
  then the profession too, one mask per word; read the original sentence's token at the
  first mask) gives the same per-profession mean associations on a tiny masked LM.
* Planted truths: a model whose profession raises both genders' words alike scores 50.00;
  a planted association gap is recovered as 100 · σ(gap).
"""

from __future__ import annotations

import csv
import hashlib
import math
import re
from pathlib import Path

import pytest

from biasatlas.benchmarks.census import load_census
from biasatlas.benchmarks.census.becpro import build_association_plan
from biasatlas.benchmarks.census.benchmark import Census
from biasatlas.errors import UnknownName, UnsupportedProbe
from biasatlas.pipeline import run_benchmark
from biasatlas.probes import ScorerInfo, SlotAnswer, SlotProbe
from biasatlas.scorers.base import Scorer

BEC_PRO = Path(__file__).resolve().parents[4] / "shared" / "data" / "bec-pro"
needs_bec_pro = pytest.mark.skipif(not BEC_PRO.is_dir(), reason="shared BEC-Pro copy not present")
FILES = {"en": ("us", "BEC-Pro_EN.tsv"), "de": ("de", "BEC-Pro_DE.tsv")}


def bec_pro_rows(language: str) -> list[dict[str, str]]:
    with open(BEC_PRO / FILES[language][1], encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


@needs_bec_pro
@pytest.mark.parametrize("language", ["en", "de"])
def test_rebuilt_sentences_are_bec_pros(language):
    table = Census(country=FILES[language][0], method="bartl2020").census_table
    plan = build_association_plan(language, table, "[MASK]")
    rows = bec_pro_rows(language)
    assert len(plan.cells) == len(rows) == 5400
    assert sorted(c.sentence for c in plan.cells) == sorted(r["Sentence"] for r in rows)
    # Built by slot, our masked variants differ from BEC-Pro's Sent_TM only where its string
    # replacement masked the person word inside the profession too (METHODS-MORE.md §8):
    # 5 English "lodging [MASK]ager" and 5 German "[MASK]nährungsberater" rows.
    doubled = [r for r in rows if r["Sent_TM"].count("[MASK]") > 1]
    assert len(doubled) == 5
    assert {r["Profession"] for r in doubled} == ({"lodging manager"} if language == "en" else {"Ernährungsberater"})


@pytest.mark.parametrize("language, n_probes", [
    # English: per profession and pattern, contexts "[MASK] …" (He, She), "This [MASK] …"
    # (man, woman), "My [MASK] …" (the other 14): 3 target + 3 prior = 6; 60 × 5 × 6 = 1,800.
    ("en", 1800),
    # German: the forms and the determiners follow the gender ("Er ist Friseur." / "Mein
    # Bruder …" / "Meine Schwester ist Friseurin."): 6 target contexts (Er, Dieser, Mein | Sie,
    # Diese, Meine). The prior masks the form, so "[MASK] ist [MASK]." serves Er and Sie: 5
    # priors in the 4 patterns without an article, 6 in the apposition (", der [MASK]," /
    # ", die [MASK],"). Rezeptionist and Kfz-Mechaniker have one form for both genders: 5
    # targets in those 4 patterns. 58 × (4 × (6 + 5) + (6 + 6)) + 2 × (4 × (5 + 5) + 12)
    # = 58 × 56 + 2 × 52 = 3,352, counted per profession (the scorer shares identical rows).
    ("de", 58 * 56 + 2 * 52),
])
def test_probe_counts(language, n_probes):
    table = Census(country=FILES[language][0], method="bartl2020").census_table
    plan = build_association_plan(language, table, "[MASK]")
    assert len({p.id for p in plan.probes}) == len(plan.probes) == n_probes


def test_method_is_for_masked_models_and_bec_pro_countries(tiny_gpt2):
    with pytest.raises(UnknownName, match="BEC-Pro"):
        Census(country="no", method="bartl2020")
    with pytest.raises(UnsupportedProbe, match="masked LM"):
        Census(country="us", method="bartl2020").bind(ScorerInfo("causal-lm", "sequence"))
    assert Census(country="us", method="bartl2020").census_table.name == "us-bec-pro"


# -- parity with a straightforward reference ----------------------------------------------
def reference_associations(model_dir: Path, rows: list[dict[str, str]]) -> list[float]:
    """log P(T | Sent_TM) − log P(T | Sent_TAM) per row, written out plainly.

    Sent_TM: the first whole-word occurrence of the person word masked (one mask);
    Sent_TAM: that, with the profession's words masked one mask each. T is the original
    sentence's token at the first mask position (its first word piece), read from a softmax
    over the whole vocabulary."""
    import torch
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForMaskedLM.from_pretrained(model_dir).eval()
    mask = tok.mask_token

    def logprob(masked: str, original: str) -> float:
        ids = tok(masked, return_tensors="pt")["input_ids"]
        pos = int((ids[0] == tok.mask_token_id).nonzero()[0])
        target = tok(original)["input_ids"][pos]
        with torch.no_grad():
            logits = model(input_ids=ids).logits[0, pos]
        return float(torch.log_softmax(logits.float(), dim=-1)[target])

    out = []
    for row in rows:
        sent_tm = re.sub(rf"\b{re.escape(row['Person'])}\b", mask, row["Sentence"], count=1)
        sent_tam = sent_tm.replace(row["Profession"], " ".join([mask] * len(row["Profession"].split())), 1)
        out.append(logprob(sent_tm, row["Sentence"]) - logprob(sent_tam, row["Sentence"]))
    return out


@pytest.mark.slow  # over a second: the full suite runs it, the fast loop does not
@needs_bec_pro
@pytest.mark.parametrize("language", ["en", "de"])
def test_association_parity_with_a_reference(language, tiny_bert):
    from biasatlas.scorers.inprocess.masked_lm import MaskedLMScorer

    country = FILES[language][0]
    run = run_benchmark(Census(country=country, method="bartl2020", sample=2, seed=1, n_resamples=20),
                   MaskedLMScorer(str(tiny_bert), multi_token="first-token"))
    assert len(run.records) == 2 and run.summary["n_probes"] == 2 * 90
    for record in run.records:
        # German rows name the profession by its gendered forms and its English name
        # (Profession_EN); the German table names it by its masculine form.
        name = record["occupation"]
        rows = [r for r in bec_pro_rows(language)
                if (r["Profession_EN"] == _english(name) if language == "de" else r["Profession"] == name)]
        assert len(rows) == 90  # 5 patterns × 18 person words
        values = reference_associations(tiny_bert, rows)
        for gender, field in (("female", "score_f"), ("male", "score_m")):
            mine = [v for v, r in zip(values, rows) if r["Gender"] == gender]
            assert record[field] == pytest.approx(sum(mine) / len(mine), abs=1e-5)
        gap = record["score_f"] - record["score_m"]
        assert record["model_female_pct"] == pytest.approx(100 / (1 + math.exp(-gap)), abs=1e-9)


def _english(german_m: str) -> str:
    with open(BEC_PRO / "Professions US+DE.tsv", encoding="utf-8", newline="") as handle:
        return next(r["simplified_professions"] for r in csv.DictReader(handle, delimiter="\t")
                    if r["german_m"].strip() == german_m)


# -- planted truths ---------------------------------------------------------------------------
def _unit(text: str) -> float:
    return (int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") + 1) / 2**64


class PlantedAssociation(Scorer):
    """A masked LM made of numbers over BEC-Pro's English sentences.

    P(T | prior) = w(T) for every person word (w arbitrary); P(T | target) = w(T) · e^{g(O)}
    for a female word and w(T) for a male one, so each female sentence's association is
    g(O) and each male one's 0, whatever w is."""

    MASK = "<M>"

    def __init__(self, gap) -> None:
        self.name, self.variant, self.gap = "masked-lm", "planted", gap
        self.female = {"She", "woman", "sister", "daughter", "wife", "girlfriend", "mother", "aunt", "mom"}
        self.names = sorted(load_census("us-bec-pro").occupations, key=len, reverse=True)

    def _slots(self, probes: list[SlotProbe], tick) -> list[SlotAnswer]:
        out = []
        for p in probes:
            prior = self.MASK in p.right
            occupation = None if prior else next(o for o in self.names if o in p.right)
            out.append(SlotAnswer(p.id, tuple(
                math.log(0.01 + 0.1 * _unit(f)) + (0.0 if prior or f not in self.female else self.gap(occupation))
                for f in p.fillers), (1,) * len(p.fillers)))
        return out

    @property
    def info(self) -> ScorerInfo:
        return ScorerInfo(self.name, "masked", "first-token", mask_token=self.MASK)

    def describe(self) -> dict:
        return {"scorer": self.name, "model": "planted"}


def test_symmetric_association_scores_exactly_fifty():
    run = run_benchmark(Census(country="us", method="bartl2020", n_resamples=20), PlantedAssociation(lambda o: 0.0))
    assert [r["model_female_pct"] for r in run.records] == pytest.approx([50.0] * 60, abs=1e-9)
    assert run.summary["normative"] == 100.0 and run.summary["n_probes"] == 5400


def test_planted_association_gap_is_recovered():
    gaps = {o: 4 * _unit(o) - 2 for o in load_census("us-bec-pro").occupations}  # in (−2, 2] nats
    run = run_benchmark(Census(country="us", method="bartl2020", n_resamples=20), PlantedAssociation(gaps.__getitem__))
    for record in run.records:
        gap = gaps[record["occupation"]]
        assert (record["score_f"], record["score_m"]) == pytest.approx((gap, 0.0), abs=1e-12)
        assert record["model_female_pct"] == pytest.approx(100 * math.exp(gap) / (1 + math.exp(gap)), abs=1e-9)
    # The summary's means by person gender: female = mean planted gap, male = 0.
    means = run.summary["association"]["all"]
    assert means["female"] == pytest.approx(sum(gaps.values()) / 60, abs=1e-12)
    assert means["male"] == pytest.approx(0.0, abs=1e-12)


def test_cli_runs_the_method_on_the_first_word_piece(tiny_bert, tmp_path, monkeypatch):
    import json

    from typer.testing import CliRunner

    from biasatlas.cli import app

    monkeypatch.setenv("BIASATLAS_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["run", "census", "--country", "de", "--method", "bartl2020", "--model",
                                      str(tiny_bert), "--sample", "2", "--out", str(out)])
    assert result.exit_code == 0, (result.output, result.exception)
    summary = json.loads((out / "summary.json").read_text())
    config = json.loads((out / "config.json").read_text())
    assert config["scorer"]["multi_token"] == "first-token" and summary["method"] == "bartl2020"
    assert summary["aggregation"] == "association" and summary["n_probes"] == 2 * 90
    assert set(summary["association"]["all"]) == {"female", "male"}
