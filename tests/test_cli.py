"""The command line, end to end on a tiny model: run folder contents and reference outcomes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from transformers import AutoModelForMaskedLM, AutoTokenizer

from biasatlas.benchmarks.crows_pairs import read_pairs
from reference_impls import nangia_pll

FR210 = "crows-pairs-fr/crows_pairs_FR_languagearc_contribution+210.csv"


def _cli(*args: str, env_data) -> subprocess.CompletedProcess:
    import os

    env = {**os.environ, "BIASATLAS_DATA_DIR": str(env_data)}
    return subprocess.run([sys.executable, "-m", "biasatlas", *args], capture_output=True,
                          text=True, env=env, timeout=900)


@pytest.fixture(scope="module")
def fr_run(tiny_bert, shared_data, tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "fr"
    done = _cli("run", "crows-pairs", "--dataset", "fr+210", "--lowercase", "--model", str(tiny_bert),
                "--out", str(out), env_data=shared_data)
    assert done.returncode == 0, done.stderr
    return out, done


@pytest.mark.slow
def test_run_folder_has_the_documented_files_and_fields(fr_run):
    out, done = fr_run
    summary = json.loads((out / "summary.json").read_text())
    for key in ("benchmark", "dataset", "n", "metric_score", "stereo_score", "antistereo_score",
                "neutral", "by_category", "intervals", "variant", "model", "provenance"):
        assert key in summary, key
    assert summary["n"] == 1677 and summary["variant"] == "nangia"
    prov = summary["provenance"]
    assert prov["data_sha256"] == "1b5de822b34188375c04b949ec2e2678373b65f81d8f0bfbbef9b7df3958d2e9"
    assert prov["scorer"]["file_sha256"] and prov["scorer"]["dtype"] == "float32"
    assert prov["scorer"]["batch_size"] == 64 and prov["scorer"]["device"] == "cpu"
    items = [json.loads(x) for x in (out / "items.jsonl").read_text().splitlines()]
    assert len(items) == 1677
    assert set(items[0]) >= {"id", "bias_type", "direction", "sent_more_score", "sent_less_score", "outcome"}
    assert {i["outcome"] for i in items} <= {"more", "less", "tie"}
    config = json.loads((out / "config.json").read_text())
    assert config["benchmark"]["lowercase"] is True
    assert "metric" in done.stdout and "gender" in done.stdout  # the table was printed


@pytest.mark.slow
def test_cli_outcomes_equal_the_reference_algorithm(fr_run, tiny_bert, shared_data):
    out, _ = fr_run
    items = {i["id"]: i for i in map(json.loads, (out / "items.jsonl").read_text().splitlines())}
    pairs = read_pairs(shared_data / FR210)
    model = AutoModelForMaskedLM.from_pretrained(tiny_bert).eval()
    tok = AutoTokenizer.from_pretrained(tiny_bert)
    sample = pairs[::40]  # 42 pairs spread over the file, LanguageARC rows included
    assert any(p.id.startswith("LA") for p in sample)
    for pair in sample:
        stereo = pair.direction == "stereo"
        sent1, sent2 = (pair.sent_more, pair.sent_less) if stereo else (pair.sent_less, pair.sent_more)
        s1, s2 = (round(x, 3) for x in nangia_pll(model, tok, sent1.lower(), sent2.lower()))
        more, less = (s1, s2) if pair.direction == "stereo" else (s2, s1)
        want = "tie" if more == less else ("more" if more > less else "less")
        assert items[pair.id]["outcome"] == want, pair.id
        assert items[pair.id]["sent_more_score"] == pytest.approx(more, abs=2e-3)


def test_unknown_dataset_and_bad_file_are_clear_errors(tmp_path, shared_data):
    done = _cli("run", "crows-pairs", "--dataset", "fr210", "--model", "fake", env_data=shared_data)
    assert done.returncode == 2 and "Did you mean 'fr+210'" in done.stderr
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n")
    done = _cli("run", "crows-pairs", "--data", str(bad), "--model", "fake", env_data=shared_data)
    assert done.returncode == 2 and "bad.csv" in done.stderr and "line 1" in done.stderr


def test_list_shows_everything(shared_data):
    done = _cli("list", env_data=shared_data)
    assert done.returncode == 0
    for word in ("crows-pairs", "fr+210", "nangia", "sentence-ll", "gemma-3-270m"):
        assert word in done.stdout
