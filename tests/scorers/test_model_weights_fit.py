"""A model folder whose config.json does not fit its weights is refused before any scoring,
naming the weights (issue 21, items 4 and 11).

Each case is a tiny model saved by tests/tiny_models.py with one config field edited:
fewer layers (the checkpoint's last layer was dropped as "unexpected" and the run scored a
truncated model under the full checkpoint's hashes), more layers (fresh random layers), a
vocabulary or position table of another size (an internal RuntimeError before).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import transformers

from biasatlas.errors import ModelError
from biasatlas.scorers.inprocess.loading import load_checked, resolve

AUTO = {"bert": "AutoModelForMaskedLM", "gpt2": "AutoModelForCausalLM"}


def edited(source: Path, tmp_path: Path, **fields: object) -> Path:
    folder = tmp_path / "model"
    shutil.copytree(source, folder)
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    (folder / "config.json").write_text(json.dumps({**config, **fields}), encoding="utf-8")
    return folder


def load(kind: str, folder: Path):
    return load_checked(AUTO[kind], resolve(str(folder)), revision=None, trust_remote_code=False,
                        dtype="float32", device="cpu", what="a language model")


@pytest.fixture()
def models(tiny_bert, tiny_gpt2):
    return {"bert": tiny_bert, "gpt2": tiny_gpt2}


# (kind, edited field and value, words the one-line error holds). The tiny models have
# 2 layers, 2,000 tokens and 256 positions (tests/tiny_models.py).
CASES = [
    ("bert", {"num_hidden_layers": 1}, ["16 weight(s)", "bert.encoder.layer.1.", "fewer layers"]),
    ("gpt2", {"n_layer": 1}, ["11 weight(s)", "transformer.h.1.", "fewer layers"]),
    # no layer at all: the stack is built empty, so no built weight shares a dropped one's name (issue 34 item 13)
    ("bert", {"num_hidden_layers": -1}, ["32 weight(s)", "bert.encoder.layer.0.", "fewer layers"]),
    ("bert", {"num_hidden_layers": 0}, ["32 weight(s)", "bert.encoder.layer.0.", "fewer layers"]),
    ("gpt2", {"n_layer": -1}, ["weight(s)", "transformer.h.0.", "fewer layers"]),
    ("bert", {"num_hidden_layers": 3}, ["16 weight(s)", "bert.encoder.layer.2.", "freshly initialised"]),
    ("gpt2", {"n_layer": 3}, ["12 weight(s)", "transformer.h.2.", "freshly initialised"]),
    ("bert", {"vocab_size": 2005}, ["word_embeddings.weight is 2000×32 in the checkpoint, 2005×32",
                                    "vocab_size is 2005"]),
    ("gpt2", {"vocab_size": 2005}, ["transformer.wte.weight is 2000×32", "vocab_size is 2005"]),
    ("bert", {"max_position_embeddings": 512}, ["position_embeddings.weight is 256×32 in the checkpoint, 512×32",
                                                "max_position_embeddings is 512"]),
    ("gpt2", {"n_positions": 512}, ["transformer.wpe.weight is 256×32", "n_positions is 512"]),
    ("bert", {"hidden_size": 64}, ["hidden_size is 64"]),
]


@pytest.mark.parametrize("kind,fields,words", CASES, ids=[f"{k}-{next(iter(f))}" for k, f, _ in CASES])
def test_a_config_that_does_not_fit_the_weights_is_refused(models, tmp_path, kind, fields, words):
    folder = edited(models[kind], tmp_path, **fields)
    with pytest.raises(ModelError) as info:
        load(kind, folder)
    message = str(info.value)
    assert "\n" not in message
    for word in words:
        assert word in message


@pytest.mark.parametrize("kind", ["bert", "gpt2"])
def test_the_unedited_models_still_load(models, kind):
    model, _ = load(kind, models[kind])
    assert model.config.vocab_size == 2000


def test_unused_weights_of_another_head_still_load(tiny_bert, tmp_path):
    # A BERT checkpoint saved with its pre-training heads (next-sentence head, pooler) loads
    # as a masked LM with those weights unused, as bert-base-uncased does: not a layer left out.
    torch.manual_seed(0)
    pretraining = transformers.BertForPreTraining(transformers.BertConfig.from_pretrained(tiny_bert))
    folder = tmp_path / "pretraining"
    shutil.copytree(tiny_bert, folder)
    pretraining.save_pretrained(folder)
    _, info = transformers.AutoModelForMaskedLM.from_pretrained(folder, output_loading_info=True)
    assert any(k.startswith("cls.seq_relationship") for k in info["unexpected_keys"])  # the case is real
    model, _ = load("bert", folder)
    assert type(model).__name__ == "BertForMaskedLM"


def test_a_tokenizer_larger_than_the_embedding_is_refused(tiny_bert, tmp_path):
    # Config and weights agree (1,500 rows) but the saved tokenizer has 2,000 tokens: ids
    # from 1,500 up would index past the embedding.
    model = transformers.BertForMaskedLM.from_pretrained(tiny_bert)
    model.resize_token_embeddings(1500)
    folder = tmp_path / "small-embedding"
    shutil.copytree(tiny_bert, folder)
    model.save_pretrained(folder)
    with pytest.raises(ModelError, match="2000 tokens but its embedding only 1500 rows"):
        load("bert", folder)


@pytest.mark.slow  # a subprocess or the full data: the full suite runs it, the fast loop does not
def test_the_run_command_refuses_a_truncating_config_and_writes_nothing(tiny_bert, tmp_path):
    folder = edited(tiny_bert, tmp_path, num_hidden_layers=1)
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("\tsent_more\tsent_less\tstereo_antistereo\tbias_type\n"
                     "0\tShe is here.\tHe is here.\tstereo\tgender\n", encoding="utf-8")
    out = tmp_path / "run"
    done = subprocess.run([sys.executable, "-m", "biasatlas", "run", "crows-pairs", "--data", str(pairs),
                           "--model", str(folder), "--out", str(out)], capture_output=True, text=True,
                          timeout=240, env={**os.environ, "BIASATLAS_CACHE_DIR": str(tmp_path / "cache")})
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and "fewer layers" in done.stderr, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and "fewer layers" in errors[0], done.stderr
    assert "LOAD REPORT" not in done.stderr and "UNEXPECTED" not in done.stderr, done.stderr  # no load table
    assert not (out / "summary.json").exists()
