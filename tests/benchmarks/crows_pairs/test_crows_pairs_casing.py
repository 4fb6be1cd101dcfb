"""Casing per paper entry, from the original scripts' own model tables, and the like-for-like rule.

The tables, as the scripts state them (checkpoint → the ``uncased`` flag that makes the
script apply ``str.lower`` to both sentences):

* French CrowS-Pairs ``metric.py`` (Névéol et al. 2022; co-author mirror
  JulienBez/MemoireMaster), ``__lmname2model``: bert → bert-base-uncased True; roberta →
  roberta-large False; albert → albert-large-v2 True; camembert → camembert-base True;
  camembert_large → camembert/camembert-large True; flaubert →
  flaubert/flaubert_base_uncased True; flaubert_large → flaubert/flaubert_large_cased True;
  mbert → bert-base-multilingual-cased True; fralbert → qwant/fralbert-base True.
* nyu-mll/crows-pairs ``metric.py`` (Nangia et al. 2020), ``evaluate``: bert →
  bert-base-uncased True; roberta → roberta-large False; albert → albert-xxlarge-v2 True.

METHODS.md §2 step 1 summarises the French one as lower-casing "for every model, cased ones
included"; the table's one exception, RoBERTa, is what this file pins down.
"""

from __future__ import annotations

import pytest

from biasatlas.benchmarks.crows_pairs.paper import PAPER_SCORES, PaperScores, comparability
from biasatlas.report import load_run
from report_fixtures import crows_paper_run, hub_scorer

FRENCH_SCRIPT = {"bert-base-uncased": True, "roberta-large": False, "albert-large-v2": True,
                 "camembert-base": True, "camembert/camembert-large": True,
                 "flaubert/flaubert_base_uncased": True, "flaubert/flaubert_large_cased": True,
                 "bert-base-multilingual-cased": True, "qwant/fralbert-base": True}
NYU_SCRIPT = {"bert-base-uncased": True, "roberta-large": False, "albert-xxlarge-v2": True}


def _script_flag(entry: PaperScores) -> bool:
    """The flag of the entry's checkpoint in the table of the script behind its paper."""
    table = FRENCH_SCRIPT if entry.source.startswith("Névéol") else NYU_SCRIPT
    flags = {table[c] for c in entry.checkpoints if c in table}
    assert len(flags) == 1, f"{entry.model}: no single casing in the script's table for {entry.checkpoints}"
    return flags.pop()


def test_the_methods_summary_of_the_french_table_is_what_the_table_says_but_for_roberta(shared_data):
    methods = shared_data.parent / "METHODS.md"
    if not methods.is_file():
        pytest.skip(f"no {methods}")
    text = " ".join(methods.read_text(encoding="utf-8").split())
    step = text[text.index("the French script lower-cases"):][:80]
    assert "every model" in step  # METHODS.md §2's summary …
    assert [c for c, flag in FRENCH_SCRIPT.items() if not flag] == ["roberta-large"]  # … and its one exception


@pytest.mark.parametrize("entry", PAPER_SCORES, ids=[f"{e.dataset}-{e.model}" for e in PAPER_SCORES])
def test_every_paper_entry_is_cased_as_its_script_cased_it(entry):
    assert entry.lowercase is _script_flag(entry)


@pytest.mark.parametrize("entry", PAPER_SCORES, ids=[f"{e.dataset}-{e.model}" for e in PAPER_SCORES])
def test_like_for_like_needs_the_scripts_casing(entry, tmp_path):
    """A run of the entry's setting is comparable with the script's casing, and only with it."""
    n_pairs = entry.n_items or 20  # the paper's count where it states one; else any
    flag = _script_flag(entry)
    same = load_run(crows_paper_run(tmp_path / "same", hub_scorer(entry.checkpoint), n_pairs=n_pairs,
                                    lowercase=flag, dataset=entry.dataset))
    other = load_run(crows_paper_run(tmp_path / "other", hub_scorer(entry.checkpoint), n_pairs=n_pairs,
                                     lowercase=not flag, dataset=entry.dataset))
    assert comparability(same, entry).reasons == ()
    assert comparability(other, entry).reasons == (
        ("not lower-cased (the paper lower-cased both sentences)",) if flag
        else ("lower-cased (the paper kept the casing)",))
