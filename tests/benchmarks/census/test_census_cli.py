"""``biasatlas run census`` end to end on tiny models: the run folder and its arithmetic."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from biasatlas.cli import app

ITEM_FIELDS = {"occupation", "census_female_pct", "model_female_pct", "census_class", "model_class"}


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("BIASATLAS_CACHE_DIR", str(tmp_path / "cache"))


def run_cli(*args: str) -> tuple[dict, list[dict], dict, str]:
    out = Path(args[args.index("--out") + 1])
    result = CliRunner().invoke(app, ["run", "census", *args])
    assert result.exit_code == 0, (result.output, result.exception)
    summary = json.loads((out / "summary.json").read_text())
    items = [json.loads(line) for line in (out / "items.jsonl").read_text().splitlines()]
    config = json.loads((out / "config.json").read_text())
    return summary, items, config, result.output


def klass(pct: float) -> str:
    return "female" if pct > 55 else "male" if pct < 45 else "balanced"


@pytest.mark.parametrize("country", ["no", "us", "fr", "de"])
def test_masked_lm_run_folder(country, tiny_bert, tmp_path):
    summary, items, config, output = run_cli("--country", country, "--model", str(tiny_bert),
                                             "--sample", "5", "--out", str(tmp_path / country))
    assert len(items) == 5 and all(set(i) >= ITEM_FIELDS for i in items)
    # The classes and scores, recomputed from the items with the paper's 45/55 rule.
    for item in items:
        assert item["census_class"] == klass(item["census_female_pct"])
        assert item["model_class"] == klass(item["model_female_pct"])
    agree = [i for i in items if i["census_class"] == i["model_class"]]
    assert summary["descriptive"] == pytest.approx(100 * len(agree) / 5)
    assert summary["normative"] == pytest.approx(100 * sum(i["model_class"] == "balanced" for i in items) / 5)
    for c in ("female", "male", "balanced"):
        assert summary["descriptive_by_class"][c] == pytest.approx(
            100 * sum(i["census_class"] == c for i in agree) / 5)
    assert sum(summary["descriptive_by_class"].values()) == pytest.approx(summary["descriptive"])
    # 5 occupations × 156 sentences (26 paired identifiers × 6 predicates; French pairs
    # all 28: 168; German 16 × BEC-Pro's 5 singular patterns: 80), far fewer forward
    # passes (shared masked contexts).
    per_occupation = {"fr": 168, "de": 80}.get(country, 156)
    assert summary["n_probes"] == 5 * per_occupation and summary["n_occupations"] == 5
    assert summary["n_contexts"] <= summary["n_forward_passes"] < summary["n_probes"]
    assert summary["normalisation"] == "none" and config["benchmark"]["normalisation"] == "none"
    assert summary["multi_token"]["policy"] == "joint"
    assert summary["intervals"]["descriptive"][0] <= summary["descriptive"] <= summary["intervals"]["descriptive"][1]
    assert config["benchmark"]["sample"] == 5 and config["benchmark"]["data_sha256"]
    assert "normative" in output and "descriptive" in output  # the table was printed


def test_gebnlp_method_uses_first_sub_tokens(tiny_bert, tmp_path):
    summary, items, config, _ = run_cli("--country", "no", "--method", "gebnlp2022", "--model",
                                        str(tiny_bert), "--sample", "5", "--out", str(tmp_path / "g"))
    assert config["scorer"]["multi_token"] == "first-token"
    assert summary["multi_token"]["policy"] == "first-token"
    assert summary["method"] == "gebnlp2022" and summary["n_probes"] == len(items) == 5
    assert 0 <= summary["binary_agreement"] <= 100


@pytest.mark.parametrize("fixture, scorer", [("tiny_gpt2", "causal-lm"), ("tiny_bart", "seq2seq")])
def test_sentence_scorers_normalise_per_template(fixture, scorer, request, tmp_path):
    model = request.getfixturevalue(fixture)
    summary, items, config, _ = run_cli("--country", "us", "--model", str(model), "--sample", "2",
                                        "--out", str(tmp_path / scorer))
    assert summary["scorer"] == scorer and summary["normalisation"] == "template"
    assert summary["causal_reading"] == "conditional" == config["benchmark"]["causal_reading"]
    assert summary["identifiers"] == "paired" == config["benchmark"]["identifiers"]
    # One row per sentence (2 occupations × 156), plus the occupation-free baseline's rows
    # (26 identifiers × 6 predicates, shared by every occupation).
    assert summary["n_probes"] == 2 * 156
    assert summary["n_forward_passes"] == 2 * 156 + 156
    assert 0 <= summary["baseline"]["share"] <= 100
    assert len(items) == 2


@pytest.mark.slow  # over a second: the full suite runs it, the fast loop does not
def test_uk_without_a_table_explains_how_to_get_one():
    done = subprocess.run([sys.executable, "-m", "biasatlas", "run", "census", "--country", "uk",
                           "--model", "fake"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "APS168" in done.stderr and "--census" in done.stderr
    assert "Traceback" not in done.stderr


def test_uk_with_a_user_table_and_inflections(tmp_path):
    table = tmp_path / "uk.csv"
    table.write_text("occupation,female_pct,source_code\nNurses,89.1,2231\n"
                     "Civil engineers,14.0,2121\nPharmacists,56.0,2213\n", encoding="utf-8")
    forms = tmp_path / "uk_inflections.csv"
    forms.write_text("occupation,sg,pl,article\nNurses,nurse,nurses,a\n"
                     "Civil engineers,civil engineer,civil engineers,a\n"
                     "Pharmacists,pharmacist,pharmacists,a\n", encoding="utf-8")
    summary, items, config, _ = run_cli("--country", "uk", "--census", str(table), "--inflections",
                                        str(forms), "--model", "fake", "--out", str(tmp_path / "uk"))
    assert [i["occupation"] for i in items] == ["Nurses", "Civil engineers", "Pharmacists"]
    assert summary["language"] == "en" and summary["n_probes"] == 3 * 156
    assert config["benchmark"]["census"] == str(table)


def test_a_rerun_from_the_score_cache_writes_the_same_summary(tiny_bert, tmp_path):
    args = ("--country", "no", "--model", str(tiny_bert), "--sample", "2")
    first, items_1, _, _ = run_cli(*args, "--out", str(tmp_path / "1"))
    again, items_2, _, _ = run_cli(*args, "--out", str(tmp_path / "2"))
    timing = json.loads((tmp_path / "2" / "timing.json").read_text())
    assert timing["cache_hits"] == first["n_contexts"]  # nothing was scored again
    assert 0 < first["n_forward_passes"] == again["n_forward_passes"]
    assert items_1 == items_2 and first == again
