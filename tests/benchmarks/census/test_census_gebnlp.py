"""The GeBNLP 2022 predecessor variant: its templates and its pronoun arithmetic."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from biasatlas.benchmarks.census import build_gebnlp_probes, compute_gebnlp_metrics, load_census
from biasatlas.benchmarks.census.gebnlp import gebnlp_sentence
from biasatlas.probes import SlotAnswer

SHARED = Path(__file__).resolve().parents[4] / "shared" / "data" / "census-occupations"


@pytest.mark.skipif(not SHARED.is_dir(), reason="shared data copies not present")
@pytest.mark.parametrize("template_set,file", [("er", "templates_er.txt"),
                                               ("jobber_som", "templates_jobber_som.txt")])
def test_probes_reproduce_the_published_template_files(template_set, file):
    published = (SHARED / "no_gebnlp2022" / file).read_text(encoding="utf-8").splitlines()
    probes = build_gebnlp_probes(load_census("no"), template_set)
    ours = ["[MASK]" + p.right for p in probes]
    # Same 417 lines; the published file orders three pairs differently.
    assert len(ours) == 417 and sorted(ours) == sorted(published)
    assert all(p.left == "" and p.fillers == ("Hun", "hun", "Han", "han") for p in probes)


def test_sentence_is_lowercased_occupation():
    assert gebnlp_sentence("CNC-operatør", "er") == "[MASK] er cnc-operatør."
    assert gebnlp_sentence("Art director", "jobber_som") == "[MASK] jobber som art director."


def answers_for(probes, probs):
    return {p.id: SlotAnswer(p.id, tuple(math.log(x) if x > 0 else -math.inf for x in probs(p)),
                             (1, 1, 1, 1)) for p in probes}


def test_pronoun_arithmetic_worked_example():
    table = load_census("no").subset(["Adjunkt", "Advokat", "Advokatassistent"])
    probes = build_gebnlp_probes(table, "er")
    values = {  # P(Hun), P(hun), P(Han), P(han)
        probes[0].id: (0.30, 0.10, 0.05, 0.05),  # F 0.40, M 0.10 → 80 %, flag 1
        probes[1].id: (0.02, 0.03, 0.04, 0.01),  # F 0.05, M 0.05 → 50 %, flag 0 (F > M strict)
        probes[2].id: (0.01, 0.01, 0.10, 0.08),  # F 0.02, M 0.18 → 10 %, flag 0
    }
    result = compute_gebnlp_metrics(table, answers_for(probes, lambda p: values[p.id]), "er")
    shares = [o.model_pct for o in result.census.occupations]
    assert shares == pytest.approx([80.0, 50.0, 10.0])
    # Census: Adjunkt 70.7 (F, flag 1), Advokat 48.1 (B, flag 0), Advokatassistent 85.9 (F, 1).
    # Flags agree for Adjunkt (1=1) and Advokat (0=0), not Advokatassistent → 2/3.
    assert result.binary_agreement == pytest.approx(200 / 3)
    # EACL reading of the same shares: classes F, B, M vs census F, B, F → descriptive 2/3,
    # normative 1/3.
    s = result.census.summary
    assert (s.descriptive, s.normative) == (pytest.approx(200 / 3), pytest.approx(100 / 3))
    assert result.census.aggregation == "gebnlp2022"


def test_zero_mass_and_missing_answers_are_skips():
    table = load_census("no").subset(["Adjunkt", "Advokat", "Agronom"])
    probes = build_gebnlp_probes(table)
    answers = answers_for(probes[:2], lambda p: (0.0, 0.0, 0.0, 0.0) if "advokat" in p.id
                          else (0.1, 0.1, 0.2, 0.2))
    result = compute_gebnlp_metrics(table, answers)
    assert [o.occupation for o in result.census.occupations] == ["Adjunkt"]
    assert [s.occupation for s in result.census.skipped] == ["Advokat", "Agronom"]


def test_unknown_template_set():
    with pytest.raises(ValueError, match="er, jobber_som"):
        build_gebnlp_probes(load_census("no"), "is")
