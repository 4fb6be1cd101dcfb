"""Winogender's paraphrase (issue 27): the declared rule deletes the optional "that" before a subject
pronoun, in exactly the templates where the authors' files have it (counted here from templates.tsv);
a scorer that reads "that she" shows the flips and the spread computed from the sentences, and one
that reads the sentence as if "that" were not there shows none."""

from __future__ import annotations

import csv
import math
import re

import pytest

from biasatlas.benchmarks.winogender.paraphrases import without_that
from biasatlas.probes import SentenceAnswer, SentenceProbe
from biasatlas.registry import load_benchmark
from biasatlas.request import GivenModel, RunRequest
from biasatlas.scorers.fake import FakeScorer, _hash_score
from biasatlas.sensitivity import UNPERTURBED, run


def _templates(shared_data):
    with (shared_data / "winogender" / "templates.tsv").open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def test_the_rule_rewrites_exactly_the_templates_with_that_before_a_subject_pronoun(isolated_run, shared_data):
    rows = _templates(shared_data)
    ruled = {(r["occupation(0)"], r["answer"]) for r in rows
             if "that $NOM_PRONOUN" in r["sentence"] and "so that $NOM_PRONOUN" not in r["sentence"]}
    assert len(rows) == 120 and len(ruled) == 29
    contexts = load_benchmark("winogender").load()
    rewritten = without_that(contexts)
    changed = {(a.occupation, a.id.split(".")[2]) for a, b in zip(contexts, rewritten, strict=True) if a is not b}
    assert changed == ruled
    assert sum(a is not b for a, b in zip(contexts, rewritten, strict=True)) == 58  # each with its 2 participants
    for a, b in zip(contexts, rewritten, strict=True):
        for gender, sentence in a.sentences.items():
            new = b.sentences[gender]
            if a is b:
                assert new is sentence
            else:  # one word gone, the pronoun and everything after it unchanged
                assert new.text == sentence.text.replace(f" that {sentence.pronoun}", f" {sentence.pronoun}", 1)
                assert (new.pronoun, new.right) == (sentence.pronoun, sentence.right)


class ThatShe(FakeScorer):
    """Sentence log-likelihood 0, but −2 for "that he" and "that they": the female sentence wins
    wherever "that" stands before the pronoun, and every other context is a tie."""

    def _sentences(self, probes: list[SentenceProbe], tick):  # type: ignore[override]
        tick(len(probes))
        return [SentenceAnswer(p.id, -2.0 if re.search(r" that (he|they) ", p.text) else 0.0, 1) for p in probes]

    def describe(self):
        return {**super().describe(), "planted": "that-she"}


class ThatBlind(FakeScorer):
    """The fake scorer's hash of the sentence read with every " that " taken out: blind to the rule."""

    def _sentences(self, probes: list[SentenceProbe], tick):  # type: ignore[override]
        tick(len(probes))
        return [SentenceAnswer(p.id, _hash_score(p.text.replace(" that ", " ")), 1) for p in probes]

    def describe(self):
        return {**super().describe(), "planted": "that-blind"}


def _female_pct(contexts, wins) -> float:
    """The headline by its definition: per occupation the mean over its contexts of σ(l_f − l_m) (σ(2)
    where the female sentence wins by 2, ½ for a tie), then the mean over occupations, in %."""
    by_occupation: dict[str, list[float]] = {}
    for c in contexts:
        by_occupation.setdefault(c.occupation, []).append(1 / (1 + math.exp(-2)) if wins(c) else 0.5)
    return 100 * sum(sum(v) / len(v) for v in by_occupation.values()) / len(by_occupation)


def test_a_scorer_that_reads_that_she_flips_exactly_the_rewritten_contexts(isolated_run):
    result = run(RunRequest("winogender", {}, GivenModel.of(ThatShe())), "paraphrases", progress=False)
    contexts = load_benchmark("winogender").load()
    before = [c for c in contexts if " that she " in c.sentences["female"].text]
    ruled = [c for c in before if " so that she " not in c.sentences["female"].text]
    assert (len(before), len(ruled)) == (62, 58)  # "so that she" keeps its "that" and its preference
    unperturbed, paraphrase = result["runs"]
    assert (unperturbed["name"], paraphrase["name"]) == (UNPERTURBED, "paraphrase-no-that")
    assert paraphrase["flips"] == {"n": 240, "flipped": len(ruled), "share": pytest.approx(len(ruled) / 240)}
    wins, ruled_ids = {c.id for c in before}, {c.id for c in ruled}
    assert unperturbed["headlines"]["female_pct"]["value"] == pytest.approx(
        _female_pct(contexts, lambda c: c.id in wins))
    assert paraphrase["headlines"]["female_pct"]["value"] == pytest.approx(
        _female_pct(contexts, lambda c: c.id in wins - ruled_ids))
    assert result["spread"]["female_pct"]["range"] > 0


def test_a_scorer_blind_to_that_shows_no_spread_and_no_flips(isolated_run):
    result = run(RunRequest("winogender", {}, GivenModel.of(ThatBlind())), "paraphrases", progress=False)
    assert result["runs"][1]["flips"]["flipped"] == 0 and result["runs"][1]["flips"]["n"] == 240
    assert result["spread"]["female_pct"]["range"] == 0 and result["spread"]["pearson"]["range"] == 0
