"""Paper values beside a run only like for like: same data in full, same casing, same method,
and the paper's checkpoint proven by provenance (hub id and revision, or known file hashes),
never by a folder's name. Every assertion reads the rendered output."""

from __future__ import annotations

import json
from types import MappingProxyType

import pytest

from biasatlas.report import build_report, load_run, load_runs, render, render_html
from biasatlas.benchmarks.crows_pairs import paper as paper_module
from biasatlas.benchmarks.crows_pairs.paper import KnownFiles, comparability, paper_check, paper_entry
from biasatlas.display.style import style
from biasatlas.report.sections import run_plots
from report_fixtures import census_run, crows_paper_run, crows_run, hub_scorer, local_scorer

COLUMN = "paper (Névéol et al. 2022, CamemBERT)"
NOT_SHOWN = "Paper values not shown: not comparable with Névéol et al. 2022 CamemBERT: "


def _md(*folders) -> str:
    return render(build_report(load_runs(list(folders)), compare=False), "md")


def _diamonds(run) -> list:
    with style():
        (plot,) = run_plots(run)
    return [c for c in plot.figure.axes[0].collections if c.get_gid() == "paper"]


# -- shown: the published setting, proven ------------------------------------------------------------
@pytest.mark.parametrize("hub_id", ["camembert-base", "almanach/camembert-base"])
def test_hub_load_of_the_checkpoint_on_the_full_lower_cased_set_gets_the_paper_column(tmp_path, hub_id):
    folder = crows_paper_run(tmp_path / "run", hub_scorer(hub_id))
    md = _md(folder)
    assert f"| {COLUMN} |" in md
    # Névéol et al. 2022, CamemBERT: metric 59.3, stereo 58.5, anti-stereo 65.9; gender 54.8, age 61.1
    assert "| metric | 1677 | 60.05 |" in md and "| 59.30 |" in md and "| 58.50 |" in md
    assert "| gender | 419 |" in md and "| 54.80 |" in md and "| 61.10 |" in md
    assert "casing as in the French script's model table" in md  # the casing's source, visible
    assert "Paper values not shown" not in md
    assert len(_diamonds(load_run(folder))) == 1


def test_a_limit_above_the_set_size_is_still_the_full_set(tmp_path):
    folder = crows_paper_run(tmp_path / "run", hub_scorer("camembert-base"), limit=5000)
    assert f"| {COLUMN} |" in _md(folder)


def test_local_folder_with_the_known_files_is_identified_whatever_its_name(tmp_path, monkeypatch):
    files = {"model.safetensors": "a" * 64, "sentencepiece.bpe.model": "b" * 64}
    monkeypatch.setattr(paper_module, "KNOWN_FILES",
                        (KnownFiles("almanach/camembert-base", MappingProxyType(files)),))
    folder = crows_paper_run(tmp_path / "run", local_scorer("my-weights", {**files, "config.json": "c" * 64}))
    md = _md(folder)
    assert f"| {COLUMN} |" in md and "| 59.30 |" in md


# -- not shown: a visible sentence with every reason instead --------------------------------------------
def test_subset_and_cased_run_gets_no_column_but_the_reasons(tmp_path):
    folder = crows_paper_run(tmp_path / "run", hub_scorer("almanach/camembert-base"), limit=80, lowercase=False)
    md = _md(folder)
    assert COLUMN not in md and "| 59.30 |" not in md
    assert (f"> **{NOT_SHOWN}limit 80 of 1,677 pairs; not lower-cased (the paper lower-cased both "
            "sentences).**") in md
    page = render_html(build_report(load_runs([folder]), compare=False))
    assert f'<p class="warn" role="note">{NOT_SHOWN}limit 80 of 1,677 pairs; not lower-cased' in page
    assert COLUMN not in page
    assert _diamonds(load_run(folder)) == []


def test_local_folder_named_like_the_checkpoint_is_not_the_checkpoint(tmp_path):
    # any weights can sit in a folder called camembert-base: only file hashes could prove them
    folder = crows_paper_run(tmp_path / "run", local_scorer("camembert-base"))
    md = _md(folder)
    assert COLUMN not in md
    assert f"> **{NOT_SHOWN}local folder: weights not identified as camembert-base by file hash.**" in md
    assert _diamonds(load_run(folder)) == []
    doc = json.loads(render(build_report(load_runs([folder]), compare=False), "json"))
    paper = doc["runs"][0]["paper"]
    assert paper["comparable"] is False and "metric_score" not in paper
    assert paper["reasons"] == ["local folder: weights not identified as camembert-base by file hash"]


def test_local_folder_whose_hashes_are_another_checkpoint_is_not_camembert(tmp_path, monkeypatch):
    files = {"model.safetensors": "f" * 64}
    monkeypatch.setattr(paper_module, "KNOWN_FILES", (KnownFiles("qwant/fralbert-base", MappingProxyType(files)),))
    run = load_run(crows_paper_run(tmp_path / "run", local_scorer("camembert-base", files)))
    # the hashes prove FrALBERT, so the FrALBERT entry is the one explained against, and it matches
    assert paper_entry(run).model == "FrALBERT" and paper_check(run).comparable


def test_a_fork_with_the_same_repository_name_is_not_the_checkpoint(tmp_path):
    md = _md(crows_paper_run(tmp_path / "run", hub_scorer("someone/camembert-base")))
    assert COLUMN not in md
    assert "model someone/camembert-base is not camembert-base or almanach/camembert-base" in md


@pytest.mark.parametrize(("scorer", "reason"), [
    (hub_scorer("camembert-base", revision=None), "hub revision of camembert-base not recorded"),
    (hub_scorer("camembert-base", variant="aul"), "variant aul (the paper: nangia)"),
    ({**hub_scorer("camembert-base"), "scorer": "causal-lm"}, "scorer causal-lm (the paper: masked-lm)"),
    ({k: v for k, v in hub_scorer("camembert-base").items() if k != "revision"},
     "model provenance not recorded (neither a hub revision nor file hashes)"),
])
def test_each_mismatch_is_named(tmp_path, scorer, reason):
    run = load_run(crows_paper_run(tmp_path / "run", scorer))
    assert paper_check(run).reasons == (reason,)
    assert f"{NOT_SHOWN}{reason}." in _md(run.path)


def test_skipped_pairs_are_not_the_full_set(tmp_path):
    run = load_run(crows_paper_run(tmp_path / "run", hub_scorer("camembert-base"), skipped=3))
    assert paper_check(run).reasons == ("3 pair(s) not scored",)


def test_casing_must_match_the_paper_either_way(tmp_path):
    # Nangia et al.'s script keeps RoBERTa's casing; it lower-cases for the uncased BERT
    roberta = load_run(crows_paper_run(tmp_path / "r", hub_scorer("roberta-large"), dataset="en", n_pairs=1508))
    assert paper_check(roberta).reasons == ("lower-cased (the paper kept the casing)",)
    cased = crows_paper_run(tmp_path / "c", hub_scorer("roberta-large"), dataset="en", n_pairs=1508,
                            lowercase=False)
    assert "| paper (Nangia et al. 2020, RoBERTa-large) |" in _md(cased) and "| 64.10 |" in _md(cased)
    bert = load_run(crows_paper_run(tmp_path / "b", hub_scorer("bert-base-uncased"), dataset="en", n_pairs=1400))
    assert paper_check(bert).reasons == ("1,400 of 1,508 pairs scored",)


def test_run_on_another_dataset_is_explained_against_nothing(tmp_path):
    # no paper reports CamemBERT on the English set: nothing to explain, nothing new said
    run = load_run(crows_paper_run(tmp_path / "run", hub_scorer("camembert-base"), dataset="en", n_pairs=20))
    assert paper_check(run) is None
    entry = paper_module.PAPER_SCORES[0]
    assert comparability(run, entry).reasons[0] == "dataset en (the paper: fr+210)"


def test_no_paper_for_the_model_says_nothing_new(tmp_path):
    md = _md(crows_run(tmp_path / "x", model="my-local-model"))
    assert "Paper values not shown" not in md and "paper (" not in md


# -- settings in the provenance table and the leaderboards ------------------------------------------------
def test_provenance_and_crows_leaderboard_show_limit_and_lowercase(tmp_path):
    full = crows_paper_run(tmp_path / "full", hub_scorer("camembert-base"))
    part = crows_paper_run(tmp_path / "part", hub_scorer("flaubert/flaubert_base_cased"), limit=80,
                           lowercase=False)
    md = _md(full, part)
    assert ("| model | dataset | n | metric | 95% CI | likelihood difference | 95% CI | stereo | anti-stereo | ties "
            "| items scored | lowercase | strip-whitespace | unicode-nfc |") in md
    assert "| flaubert/flaubert_base_cased (nangia) | fr+210 | 80 |" in md
    row = next(line for line in md.splitlines() if line.startswith("| flaubert/flaubert_base_cased (nangia) |"))
    assert row.endswith("| limit 80 | no | no | no |")
    assert "- items scored: limit 80\n- lowercase: no\n" in md and "- items scored: all items\n- lowercase: yes\n" in md
    page = render_html(build_report(load_runs([part]), compare=False))
    assert "<dt>items scored</dt><dd>limit 80</dd><dt>lowercase</dt><dd>no</dd>" in page


def test_census_leaderboard_has_n_and_the_new_settings_when_recorded(tmp_path):
    new = census_run(tmp_path / "new", bench={"sample": 5, "seed": 3, "limit": None, "identifiers": "paired",
                                             "causal_reading": "conditional"})
    old = census_run(tmp_path / "old", model="ltg/norbert2")  # an older run: no such keys
    md = _md(new, old)
    assert ("| model | census | n | normative | 95% CI | descriptive | 95% CI | balanced | female | male "
            "| items scored | identifiers | causal-reading |") in md
    rows = [line for line in md.splitlines() if line.startswith(("| ltg/norbert |", "| ltg/norbert2 |"))]
    assert rows[0].startswith("| ltg/norbert | census-no | 10 |")
    assert rows[0].endswith("| sample 5 (seed 3) | paired | conditional |")
    assert rows[1].endswith("| all items | – | – |")
    assert "- items scored: sample 5 (seed 3)\n- identifiers: paired\n- causal-reading: conditional\n" in md
    older = _md(old)
    assert "identifiers" not in older and "causal-reading" not in older
