"""Winogender's data, shares and statistics on planted truths (answers built by hand, no model).

A gender-symmetric scorer gives every occupation a share of exactly 50 and takes exactly half the
gotchas; a scorer planted to give log P(she) − log P(he) = logit(BLS) recovers the BLS shares
(r = ρ = 1); the statistics are checked against straightforward references written here.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest

from biasatlas.benchmarks.winogender import SPEC, Winogender
from biasatlas.benchmarks.winogender.analysis import (bootstrap_correlations, correlations, fisher_interval,
                                                      occupation_shares)
from biasatlas.benchmarks.winogender.data import GENDERS, Context
from biasatlas.benchmarks.winogender.summary import WinogenderRunSummary
from biasatlas.errors import DataError
from biasatlas.probes import ScorerInfo, SentenceAnswer, SlotAnswer
from biasatlas.runs.typed import encode
from biasatlas.runs.view import RunView
from shared_data import shared_data_dir

DATA = shared_data_dir() / "winogender"
MASKED = ScorerInfo("masked-lm", "masked", "joint")


@pytest.fixture(scope="module")
def contexts() -> list[Context]:
    return Winogender(data=DATA).load()


def _sentence_answers(items: list[Context], value) -> dict[str, SentenceAnswer]:
    """A sequence reader's answers: ``value(context, gender)`` as each sentence's log-likelihood."""
    return {c.sentences[g].id: SentenceAnswer(c.sentences[g].id, value(c, g), 9) for c in items for g in GENDERS}


def test_the_data_reads_as_the_paper_counts_it(contexts: list[Context]) -> None:
    # 60 occupations × 2 referents × 2 participants = 240 contexts, 720 sentences; NOM 89, POSS 27,
    # ACC 4 templates, each twice (participant and "someone"); 34 neutral sentences read "they were"
    assert len(contexts) == 240 and len({c.occupation for c in contexts}) == 60
    slots = [c.slot for c in contexts]
    assert (slots.count("nom"), slots.count("poss"), slots.count("acc")) == (178, 54, 8)
    assert sum(not c.shared for c in contexts) == 34
    # every sentence is the authors' text, cut around its pronoun
    sentences = dict(line.rstrip("\n").split("\t") for line in (DATA / "all_sentences.tsv").open().readlines()[1:])
    assert {c.sentences[g].id: c.sentences[g].text for c in contexts for g in GENDERS} == sentences
    # 120 female and 120 male gotchas (METHODS-MORE.md §6: verified against the paper)
    assert [c.gotcha for c in contexts].count("female") == 120


def test_gotcha_follows_referent_and_majority(contexts: list[Context]) -> None:
    by_id = {c.id: c for c in contexts}
    # engineer: 10.72 % female. Pronoun → engineer (answer 0): the female sentence is the gotcha;
    # pronoun → participant (answer 1): the male one. secretary (94.6 %) the other way round.
    engineer = [c for c in contexts if c.occupation == "engineer"]
    assert {c.referent: c.gotcha for c in engineer} == {"occupation": "female", "participant": "male"}
    secretary = [c for c in contexts if c.occupation == "secretary"]
    assert {c.referent: c.gotcha for c in secretary} == {"occupation": "male", "participant": "female"}
    assert by_id["technician.customer.1"].referent == "participant"


def test_symmetric_scorer_gives_exactly_50(contexts: list[Context]) -> None:
    # log P(she-version) = log P(he-version) everywhere: every share σ(0) = ½, every context a tie
    answers = _sentence_answers(contexts, lambda c, g: -3.0 if g != "neutral" else -5.0)
    s = Winogender(data=DATA, n_resamples=50).score(contexts, answers).written()
    assert s["female_pct"] == 50.0 and all(v["female_pct"] == 50.0 for v in s["occupations"].values())
    assert s["gotcha"]["all"]["gotcha_pct"] == 50.0 and s["gotcha"]["female"]["gotcha_pct"] == 50.0
    assert s["n_ties"] == 240
    assert s["pearson"] is None and s["spearman"] is None  # a constant share has no correlation
    # neutral share: e^-5 / (2 e^-3 + e^-5)
    assert s["neutral_pct"] == pytest.approx(100 * math.exp(-5) / (2 * math.exp(-3) + math.exp(-5)))


def test_planted_bls_shares_are_recovered(contexts: list[Context]) -> None:
    # log P(f) − log P(m) = logit(BLS/100) makes every context's share σ(logit(b)) = b: f(o) = BLS exactly
    def value(c: Context, g: str) -> float:
        b = c.bls_pct_female / 100
        return {"female": math.log(b), "male": math.log(1 - b), "neutral": -9.0}[g]

    s = Winogender(data=DATA, n_resamples=200).score(contexts, _sentence_answers(contexts, value)).written()
    for occupation, row in s["occupations"].items():
        assert row["female_pct"] == pytest.approx(row["bls_pct_female"], abs=1e-9), occupation
    assert s["pearson"] == pytest.approx(1.0) and s["spearman"] == pytest.approx(1.0)
    assert s["by_referent"]["occupation"]["pearson"] == pytest.approx(1.0)
    bls = [row["bls_pct_female"] for row in s["occupations"].values()]
    assert s["female_pct"] == pytest.approx(sum(bls) / 60)
    # a scorer that follows the occupation's majority (no BLS share is exactly 50 here) never takes a
    # gotcha whose pronoun refers to the occupation and always one whose pronoun refers to the
    # participant (there the gotcha pronoun is the majority's): 0 and 100, 50 pooled
    g = s["gotcha"]
    assert (g["pronoun→occupation"]["gotcha_pct"], g["pronoun→participant"]["gotcha_pct"]) == (0.0, 100.0)
    assert g["all"]["gotcha_pct"] == 50.0 and g["all"]["n"] == 240


def test_planted_masked_answers_read_the_slot(contexts: list[Context]) -> None:
    # masked: one slot answer per context with (she, he[, they]) log-probabilities, and the 34 whose
    # neutral context differs get their own; P(she) = 0.2, P(he) = 0.6 gives shares 0.2/0.8 = 25 %
    bench = Winogender(data=DATA, n_resamples=50).bind(MASKED)
    probes = bench.probes(contexts)
    assert len(probes) == 240 + 34
    planted = {"she": 0.2, "her": 0.2, "he": 0.6, "his": 0.6, "him": 0.6, "they": 0.1, "their": 0.1, "them": 0.1}
    answers = {p.id: SlotAnswer(p.id, tuple(math.log(planted[f]) for f in p.fillers), (1,) * len(p.fillers))
               for p in probes}
    s = bench.score(contexts, answers).written()
    assert s["reading"] == "masked-pronoun" and s["female_pct"] == pytest.approx(25.0)
    assert s["neutral_pct"] == pytest.approx(100 * 0.1 / 0.9)
    fillers = {p.id: p.fillers for p in probes}
    assert fillers["accountant.taxpayer.1"] == ("her", "his", "their")  # POSS slot: the slot's own forms


def test_the_correlations_match_a_plain_reference() -> None:
    rng = np.random.default_rng(3)
    x, y = rng.uniform(0, 100, 30), rng.uniform(0, 100, 30)
    y = 0.5 * x + y
    got = correlations(list(x), list(y))
    # Pearson by its definition; Spearman as Pearson of the ranks (no ties in continuous draws)
    xc, yc = x - x.mean(), y - y.mean()
    r = float((xc * yc).sum() / math.sqrt((xc ** 2).sum() * (yc ** 2).sum()))
    rank = lambda v: np.argsort(np.argsort(v)).astype(float)  # noqa: E731
    rx, ry = rank(x) - rank(x).mean(), rank(y) - rank(y).mean()
    rho = float((rx * ry).sum() / math.sqrt((rx ** 2).sum() * (ry ** 2).sum()))
    assert got["pearson"] == pytest.approx(r) and got["spearman"] == pytest.approx(rho)
    # Fisher: tanh(atanh r ± 1.959964 / √27)
    low, high = fisher_interval(r, 30)
    assert (low, high) == pytest.approx((math.tanh(math.atanh(r) - 1.959964 / math.sqrt(27)),
                                         math.tanh(math.atanh(r) + 1.959964 / math.sqrt(27))), abs=1e-6)
    # bootstrap: the same resampled pairs through a loop of np.corrcoef
    boot = bootstrap_correlations(list(x), list(y), n_resamples=300, seed=5)
    idx = np.random.default_rng(5).integers(0, 30, size=(300, 30))
    loop = [np.corrcoef(x[i], y[i])[0, 1] for i in idx]
    assert boot["pearson"] == pytest.approx(list(np.percentile(loop, [2.5, 97.5])))
    assert boot["pearson"][0] < r < boot["pearson"][1]


def test_occupation_share_is_the_mean_over_its_contexts(contexts: list[Context]) -> None:
    from biasatlas.benchmarks.winogender.analysis import ContextScore

    chosen = [c for c in contexts if c.occupation == "engineer"]
    # shares σ(d) for d = 0, ln 3, −ln 3, 0: ½, ¾, ¼, ½ → mean ½ → 50 %; with d = ln 3 everywhere: 75 %
    scores = [ContextScore(c, d, 0.0) for c, d in zip(chosen, (0.0, math.log(3), -math.log(3), 0.0))]
    assert occupation_shares(scores) == {"engineer": pytest.approx(50.0)}
    assert occupation_shares([ContextScore(c, math.log(3), 0.0) for c in chosen]) == {"engineer": pytest.approx(75.0)}


def test_summary_reads_back_typed(contexts: list[Context]) -> None:
    answers = _sentence_answers(contexts, lambda c, g: -float(len(c.sentences[g].text) % 7) - 1.0)
    s = Winogender(data=DATA, n_resamples=50).score(contexts, answers).written()
    typed = WinogenderRunSummary.read(s, Path("summary.json"))
    assert typed.overall.pearson == s["pearson"] and set(typed.by_referent) == {"occupation", "participant"}
    assert json.dumps(encode(typed)) == json.dumps(s)  # what is written is the typed record: keys, order, values
    with pytest.raises(DataError, match="pearson"):
        WinogenderRunSummary.read({**s, "pearson": "high"}, Path("summary.json"))


def test_missing_answers_are_recorded_skips(contexts: list[Context]) -> None:
    answers = _sentence_answers(contexts[4:], lambda c, g: -1.0)
    result = Winogender(data=DATA, n_resamples=20).score(contexts, answers)
    assert [s["id"] for s in result.skipped] == [c.id for c in contexts[:4]]
    assert result.written()["n_skipped"] == 4 and len(result.records) == 236


@pytest.mark.parametrize("edit,field,line", [
    (lambda t: t.replace("that she could pay with cash", "that it could pay with cash", 1), "sentence", 3),
    (lambda t: t.replace("technician.customer.1.female.txt", "technician.customer.1.femme.txt", 1), "sentid", 3),
])
def test_bad_sentences_name_file_line_and_field(tmp_path: Path, edit, field: str, line: int) -> None:
    for name in ("templates.tsv", "occupations-stats.tsv"):
        shutil.copy(DATA / name, tmp_path / name)
    (tmp_path / "all_sentences.tsv").write_text(edit((DATA / "all_sentences.tsv").read_text()))
    with pytest.raises(DataError) as error:
        Winogender(data=tmp_path).load()
    assert error.value.field == field and error.value.line == line and "all_sentences.tsv" in str(error.value)


def test_a_missing_bls_share_is_named(tmp_path: Path) -> None:
    shutil.copy(DATA / "all_sentences.tsv", tmp_path / "all_sentences.tsv")
    shutil.copy(DATA / "templates.tsv", tmp_path / "templates.tsv")
    text = (DATA / "occupations-stats.tsv").read_text().replace("\t40.34\t", "\tforty\t")
    (tmp_path / "occupations-stats.tsv").write_text(text)
    with pytest.raises(DataError, match="not a number") as error:
        Winogender(data=tmp_path).load()
    assert error.value.line == 2 and error.value.field == "bls_pct_female"


# -- the paired comparison (the spec's view.paired), on records written by hand -----------------------
def _wg_run(name: str, shares: list[float], gotchas: list[float]) -> RunView:
    records = [{"id": f"c{i}", "female_share": s, "took_gotcha": g} for i, (s, g) in enumerate(zip(shares, gotchas))]
    return RunView(Path(name), {}, {}, records, label=name)


#: female shares (%) and gotcha outcomes of five contexts: binary fractions, so B − A is exact
_SHARES, _GOTCHAS = [12.5, 50.0, 75.25, 30.0, 99.5], [0.0, 1.0, 0.5, 0.0, 1.0]


def test_paired_comparison_of_a_run_with_itself_is_exactly_zero():
    a = _wg_run("a", _SHARES, _GOTCHAS)
    paired = SPEC.view.paired.test(a, _wg_run("a-again", _SHARES, _GOTCHAS), n_resamples=100, seed=0)
    assert paired.n_paired == 5 and [t.quantity for t in paired.tests] == [
        "female share (%)", "gotcha pronoun preferred (%)"]
    for t in paired.tests:  # every resampled mean difference is 0, as far from 0 as the observed one: p = 1
        assert t.difference == 0.0 and t.p == 1.0 and (t.ci_low, t.ci_high) == (0.0, 0.0)


def test_paired_comparison_of_a_shifted_run_gives_the_worked_values():
    shifted = _wg_run("b", [s + 5.0 for s in _SHARES], [1.0] * 5)
    share, gotcha = SPEC.view.paired.test(_wg_run("a", _SHARES, _GOTCHAS), shifted, n_resamples=100, seed=0).tests
    # every context 5 points more female: each resampled mean is exactly 5, none as far from 5 as 5 is
    # from 0, so p = (1 + 0) / (100 + 1), and the interval is [5, 5]
    assert (share.value_a, share.difference) == (sum(_SHARES) / 5, 5.0)
    assert share.p == 1 / 101 and (share.ci_low, share.ci_high) == (5.0, 5.0)
    # the gotcha always taken: 100 − 100 · mean(0, 1, .5, 0, 1) = 100 − 50
    assert (gotcha.value_a, gotcha.value_b, gotcha.difference) == (50.0, 100.0, 50.0)
