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


@pytest.mark.slow  # over a second: the full suite runs it, the fast loop does not
def test_unknown_dataset_and_bad_file_are_clear_errors(tmp_path, shared_data):
    done = _cli("run", "crows-pairs", "--dataset", "fr210", "--model", "fake", env_data=shared_data)
    assert done.returncode == 2 and "Did you mean 'fr+210'" in done.stderr
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n")
    done = _cli("run", "crows-pairs", "--data", str(bad), "--model", "fake", env_data=shared_data)
    assert done.returncode == 1 and "bad.csv" in done.stderr and "line 1" in done.stderr  # contents: run time


@pytest.mark.slow  # over a second: the full suite runs it, the fast loop does not
def test_list_shows_everything(shared_data):
    done = _cli("list", env_data=shared_data)
    assert done.returncode == 0
    for word in ("crows-pairs", "fr+210", "nangia", "sentence-ll", "gemma-3-270m"):
        assert word in done.stdout


# -- --limit, --sample and --seed: one meaning on every run command ---------------------------
def _drawn(ids: list[str], n: int, seed: int) -> list[str]:
    """The census benchmark's occupation draw, applied to ids: what --sample means everywhere."""
    from biasatlas.benchmarks.census.templates import _sample

    return list(_sample(tuple(ids), n, seed))


def test_crows_pairs_sample_is_the_census_draw_kept_in_file_order(shared_data):
    from biasatlas.benchmarks.crows_pairs import CrowsPairs

    path = shared_data / FR210
    every = [p.id for p in read_pairs(path)]
    for seed in (0, 7):
        got = [p.id for p in CrowsPairs(dataset=None, data=path, sample=25, seed=seed).load()]
        assert got == _drawn(every, 25, seed)
        assert got == sorted(got, key=every.index) and len(set(got)) == 25
    assert _drawn(every, 25, 0) != _drawn(every, 25, 7)
    assert [p.id for p in CrowsPairs(dataset=None, data=path, sample=5000).load()] == every


def test_zh_neutral_sample_is_the_same_draw(tmp_path):
    from biasatlas.benchmarks.zh_neutral import ZhNeutral

    every = [i.id for i in ZhNeutral().load()]
    got = [i.id for i in ZhNeutral(sample=4, seed=2).load()]
    assert got == _drawn(every, 4, 2)


def test_the_sample_is_recorded_only_when_drawn(shared_data):
    from biasatlas.benchmarks.crows_pairs import CrowsPairs
    from biasatlas.benchmarks.zh_neutral import ZhNeutral

    path = shared_data / FR210
    plain = CrowsPairs(dataset=None, data=path).config()
    assert "sample" not in plain and "seed" not in plain  # a rerun into an older run folder still matches
    drawn = CrowsPairs(dataset=None, data=path, sample=3, seed=9).config()
    assert drawn["sample"] == 3 and drawn["seed"] == 9
    assert "sample" not in ZhNeutral().config() and ZhNeutral(sample=2).config()["sample"] == 2


@pytest.mark.slow  # over a second: the full suite runs it, the fast loop does not
@pytest.mark.parametrize("command", ["crows-pairs", "zh-neutral"])
def test_run_commands_write_the_sample_into_the_run_folder(command, shared_data, tmp_path, monkeypatch):
    from biasatlas.cli import main

    monkeypatch.setenv("BIASATLAS_CACHE_DIR", str(tmp_path / "cache"))
    data = ["--data", str(shared_data / FR210)] if command == "crows-pairs" else []
    out = tmp_path / "run"
    with pytest.raises(SystemExit) as exited:
        main(["run", command, *data, "--model", "fake", "--sample", "3", "--seed", "5", "--out", str(out)])
    assert exited.value.code == 0
    config = json.loads((out / "config.json").read_text())["benchmark"]
    assert config["sample"] == 3 and config["seed"] == 5
    assert len((out / "items.jsonl").read_text().splitlines()) == 3
