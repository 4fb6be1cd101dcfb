"""zh-neutral on tiny models built in code: b against direct computations from the
model's logits, the multi-character policy, the CHBias twins, the causal path and the
command line end to end."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from transformers import AutoModelForCausalLM, AutoModelForMaskedLM, AutoTokenizer

from biasatlas.hashing import sha256_file
from biasatlas.benchmarks.zh_neutral import ZhNeutral
from biasatlas.benchmarks.zh_neutral.data import demo_path
from biasatlas.pipeline import run_benchmark
from biasatlas.scorers.inprocess.causal_lm import CausalLMScorer
from biasatlas.scorers.inprocess.masked_lm import MaskedLMScorer
from reference_impls import causal_sentence_ll
from test_zh_neutral_data import multi_swap, twin_items

UNEQUAL = {"id": "u1", "sentence": "丈夫每天早上负责送孩子上学。", "keyword": "丈夫", "offset": 0,
           "pair": "丈夫/妻", "source": "test"}


@pytest.fixture(scope="module")
def bert(tiny_chinese_bert):
    model = AutoModelForMaskedLM.from_pretrained(tiny_chinese_bert).eval()
    return model, AutoTokenizer.from_pretrained(tiny_chinese_bert)


@pytest.fixture(scope="module")
def masked_scorer(tiny_chinese_bert):
    return MaskedLMScorer(str(tiny_chinese_bert), batch_size=16)


def _masked_logits(model, tok, left: str, n_masks: int, right: str) -> torch.Tensor:
    """Logits [n_masks, V] at the masks of ``left + [MASK]*n + right``: one plain forward."""
    enc = tok(left + tok.mask_token * n_masks + right, return_tensors="pt")
    positions = (enc["input_ids"][0] == tok.mask_token_id).nonzero().flatten()
    assert len(positions) == n_masks
    with torch.no_grad():
        return model(**enc).logits[0, positions]


def _joint_logprob(model, tok, left: str, word: str, right: str) -> float:
    """log P(word) with one mask per character, Σ_j log softmax(logits_j)[word_j]."""
    logits = _masked_logits(model, tok, left, len(word), right)
    ids = tok.convert_tokens_to_ids(list(word))
    return float(sum(torch.log_softmax(logits[j], -1)[t] for j, t in enumerate(ids)))


def test_single_token_b_equals_the_logit_difference(bert, masked_scorer):
    """Under one softmax, log P(m) - log P(f) = logit(m) - logit(f): the normaliser cancels."""
    model, tok = bert
    bench = ZhNeutral(pairs=("他/她", "男/女"), topics_k=0)
    run = run_benchmark(bench, masked_scorer)
    assert run.summary["n"] == 10 and run.summary["n_skipped"] == 0
    answers = masked_scorer.score(bench.probes(bench.load()))
    in_base10 = {r["id"]: r["b"] for r in ZhNeutral(pairs=bench.pairs, log_base="10", topics_k=0)
                 .score(bench.load(), answers).records}
    for record in run.records:
        left, right = record["sentence"][: record["offset"]], record["sentence"][record["offset"] + 1:]
        male, female = record["pair"].split("/")
        logits = _masked_logits(model, tok, left, 1, right)[0]
        expected = float(logits[tok.convert_tokens_to_ids(male)] - logits[tok.convert_tokens_to_ids(female)])
        assert record["b"] == pytest.approx(expected, abs=1e-4), record["id"]
        assert in_base10[record["id"]] == pytest.approx(expected / math.log(10), abs=1e-4)
    assert max(abs(r["b"]) for r in run.records) > 1e-3  # a random model, but not a flat one


def test_two_character_keywords_are_masked_jointly(bert, masked_scorer):
    """爸爸/妈妈: two masks each; b = Σ log P over both masks (one pass) for 爸爸 − for 妈妈."""
    model, tok = bert
    run = run_benchmark(ZhNeutral(pairs=("爸爸/妈妈",), topics_k=0), masked_scorer)
    assert run.summary["n"] == 5
    for r in run.records:
        left, right = r["sentence"][: r["offset"]], r["sentence"][r["offset"] + 2:]
        expected = _joint_logprob(model, tok, left, "爸爸", right) - _joint_logprob(model, tok, left, "妈妈", right)
        assert (r["n_tokens_male"], r["n_tokens_female"]) == (2, 2)
        assert r["b"] == pytest.approx(expected, abs=1e-4)


def test_unequal_token_counts_skip_or_compare(bert, masked_scorer, tmp_path):
    model, tok = bert
    path = tmp_path / "unequal.jsonl"
    path.write_text(json.dumps(UNEQUAL, ensure_ascii=False) + "\n", encoding="utf-8")
    run = run_benchmark(ZhNeutral(data=path, topics_k=0), masked_scorer)
    assert run.records == [] and run.summary["skip_reasons"] == {"unequal_masks": 1}
    assert "丈夫 is 2 token(s), 妻 is 1" in run.skipped[0]["reason"]
    # The documented alternative: 2 joint masks for 丈夫 against 1 mask for 妻.
    run = run_benchmark(ZhNeutral(data=path, unequal_masks="compare", topics_k=0), masked_scorer)
    right = UNEQUAL["sentence"][2:]
    expected = _joint_logprob(model, tok, "", "丈夫", right) - _joint_logprob(model, tok, "", "妻", right)
    assert run.records[0]["b"] == pytest.approx(expected, abs=1e-4)


def test_chbias_twins_on_the_tiny_model(masked_scorer, shared_data, record_property):
    """Single-swap twins share one masked context, so b is exactly equal. For multi-swap
    twins a random tiny model owes us no sign: the values are recorded, not asserted."""
    twins = twin_items(shared_data / "zh-chbias-gender")
    bench = ZhNeutral(topics_k=0)
    items = [x for f, m, _ in twins for x in (f, m)]
    b = {r["id"]: r["b"] for r in bench.score(items, masked_scorer.score(bench.probes(items))).records}
    for f, m, n in twins:
        if n == 1:
            assert b[f.id] == b[m.id]
    multi = multi_swap(twins)
    flips = sum(b[m.id] > 0 > b[f.id] for f, m in multi)
    record_property("tiny_bert_multi_swap_twins", len(multi))
    record_property("tiny_bert_multi_swap_sign_flips", flips)
    record_property("tiny_bert_multi_swap_b", {m.id: [b[m.id], b[f.id]] for f, m in multi})
    assert all(math.isfinite(v) for v in b.values())


@pytest.mark.slow
def test_causal_b_is_the_sentence_log_likelihood_difference(tiny_gpt2, tmp_path):
    path = tmp_path / "set.jsonl"
    demo = demo_path().read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join(demo[::10]) + "\n" + json.dumps(UNEQUAL, ensure_ascii=False) + "\n",
                    encoding="utf-8")
    scorer = CausalLMScorer(str(tiny_gpt2), batch_size=8)
    run = run_benchmark(ZhNeutral(data=path, log_base="2", topics_k=0), scorer)
    # No masks: the unequal pair is scored, not skipped.
    assert run.summary["n"] == 9 and run.summary["n_skipped"] == 0
    assert run.summary["masks_checked"] is False
    model = AutoModelForCausalLM.from_pretrained(tiny_gpt2).eval()
    tok = AutoTokenizer.from_pretrained(tiny_gpt2)
    for r in run.records:
        left, right = r["sentence"][: r["offset"]], r["sentence"][r["offset"] + len(r["keyword"]):]
        male, female = r["pair"].split("/")
        nats = (causal_sentence_ll(model, tok, left + male + right)
                - causal_sentence_ll(model, tok, left + female + right))
        assert r["b"] == pytest.approx(nats / math.log(2), abs=1e-4), r["id"]


# -- command line ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cli_run(tiny_chinese_bert, tmp_path_factory):
    out = tmp_path_factory.mktemp("zh") / "run"
    env = {**os.environ, "BIASATLAS_CACHE_DIR": str(out.parent / "cache")}
    done = subprocess.run([sys.executable, "-m", "biasatlas", "run", "zh-neutral", "--model",
                           str(tiny_chinese_bert), "--out", str(out)],
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    return out, done


@pytest.mark.slow
def test_cli_writes_the_documented_run_folder(cli_run):
    out, done = cli_run
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    for key in ("bias_score", "leaning", "n", "by_pair", "intervals", "log_base", "topics",
                "threshold", "provenance"):
        assert key in summary, key
    assert summary["n"] == 80 and summary["log_base"] == "e" and summary["threshold"] == 0.3
    assert summary["dataset"] == "demo" and len(summary["by_pair"]) == 16
    assert summary["provenance"]["data_sha256"] == sha256_file(demo_path())
    assert set(summary["topics"]) == {"male", "female"}
    items = [json.loads(x) for x in (out / "items.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(items) == 80
    assert set(items[0]) >= {"id", "sentence", "keyword", "offset", "pair", "b", "leaning"}
    # The summary recomputed from the items, independently of the package.
    bs = [i["b"] for i in items]
    assert summary["bias_score"] == pytest.approx(sum(abs(b) for b in bs) / 80, abs=1e-12)
    assert summary["leaning"] == {"male": sum(b > 0.3 for b in bs), "female": sum(b < -0.3 for b in bs),
                                  "neutral": sum(abs(b) <= 0.3 for b in bs)}
    low, high = summary["intervals"]["bias_score"]
    assert low <= summary["bias_score"] <= high
    assert "zh-neutral" in done.stdout and "男童/女童" in done.stdout  # the table was printed


@pytest.mark.slow
def test_cli_log_base_threshold_and_pair_options(cli_run, tiny_chinese_bert, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from biasatlas.cli import app

    out, _ = cli_run
    monkeypatch.setenv("BIASATLAS_CACHE_DIR", str(tmp_path / "cache"))
    result = CliRunner().invoke(app, ["run", "zh-neutral", "--model", str(tiny_chinese_bert),
                                      "--log-base", "10", "--threshold", "0.05", "--pair", "他/她",
                                      "--pair", "男童/女童", "--topics", "0", "--no-cache",
                                      "--out", str(tmp_path / "r10")])
    assert result.exit_code == 0, result.output
    natural = {i["id"]: i["b"] for i in map(json.loads, (out / "items.jsonl").read_text().splitlines())}
    items = [json.loads(x) for x in (tmp_path / "r10" / "items.jsonl").read_text().splitlines()]
    assert {i["pair"] for i in items} == {"他/她", "男童/女童"} and len(items) == 10
    for i in items:
        assert i["b"] == pytest.approx(natural[i["id"]] / math.log(10), abs=1e-9)
        assert i["leaning"] == ("male" if i["b"] > 0.05 else "female" if i["b"] < -0.05 else "neutral")
    summary = json.loads((tmp_path / "r10" / "summary.json").read_text())
    assert summary["log_base"] == "10" and summary["topics"] == {}
    assert not (tmp_path / "cache").exists()  # --no-cache: the score cache was not touched


@pytest.mark.slow  # about a second: the full suite runs it, the fast loop does not
def test_cli_reports_a_bad_file_before_loading_a_model(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({**UNEQUAL, "offset": 3}, ensure_ascii=False) + "\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "biasatlas", "run", "zh-neutral", "--data", str(bad),
                           "--model", str(Path("/nonexistent-model"))], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 1  # malformed contents: a failure at run time
    assert f"file {bad}, line 1, field 'offset'" in done.stderr
