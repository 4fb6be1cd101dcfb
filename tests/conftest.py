"""Shared pytest fixtures: the shared data folder and tiny models built in code.

The environment is set before any test module imports transformers, because
huggingface_hub reads its offline switch once, at import (DESIGN.md, "Offline stance":
nothing is downloaded in tests).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

import biasatlas  # noqa: F401  (first: it sets OMP_WAIT_POLICY=PASSIVE before any test module loads torch)
from biasatlas.scorers.threads import choose_threads
from shared_data import shared_data_dir

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
# Quiet logs; and no tokenizer thread pool that a forked worker (mining) would inherit.
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# torch's threads for every test, the in-process scorers' and the subprocesses' alike: the count a
# run would choose (the CPUs idle now; OMP_NUM_THREADS if set), read by torch at import.
os.environ.setdefault("OMP_NUM_THREADS", str(choose_threads(None).threads))


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The read-only shared data folder (``$BIASATLAS_SHARED_DATA`` or ``../shared/data``)."""
    try:
        return shared_data_dir()
    except FileNotFoundError as error:
        pytest.fail(str(error), pytrace=False)


@pytest.fixture
def isolated_run(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, shared_data: Path) -> Path:
    """A run's own score cache and working folder (returned; the test runs in it), and the
    benchmarks' data from the shared folder: what a test of the Python API starts from."""
    monkeypatch.setenv("BIASATLAS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("BIASATLAS_DATA_DIR", str(shared_data))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


# ---------------------------------------------------------------------------------------
# Tiny models (tests/tiny_models.py): each built once per session, in its own folder.


def _tiny_models() -> ModuleType:
    # Imported lazily: the torch-free core's tests must run without the torch extra.
    pytest.importorskip("torch", reason="tiny models need the torch extra")
    pytest.importorskip("transformers", reason="tiny models need the torch extra")
    import tiny_models

    return tiny_models


def _build(
    factory: pytest.TempPathFactory, data: Path, name: str, **options: object
) -> Path:
    builder: Callable[..., Path] = getattr(_tiny_models(), f"build_{name}")
    return builder(factory.mktemp(f"tiny-{name}"), data_dir=data, **options)


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Path:
    """Uncased BERT masked LM, WordPiece vocabulary keeping accents."""
    return _build(tmp_path_factory, shared_data, "bert")


@pytest.fixture(scope="session")
def tiny_bert_cased(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Path:
    """Cased BERT masked LM."""
    return _build(tmp_path_factory, shared_data, "bert", lowercase=False)


@pytest.fixture(scope="session")
def tiny_roberta(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Path:
    """RoBERTa masked LM, byte-level BPE (``Ġ``)."""
    return _build(tmp_path_factory, shared_data, "roberta")


@pytest.fixture(scope="session")
def tiny_xlmr(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Path:
    """XLM-R masked LM, Unigram SentencePiece-style tokenizer (``▁``)."""
    return _build(tmp_path_factory, shared_data, "xlmr")


@pytest.fixture(scope="session")
def tiny_chinese_bert(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Path:
    """BERT masked LM with a character vocabulary like bert-base-chinese."""
    return _build(tmp_path_factory, shared_data, "chinese_bert")


@pytest.fixture(scope="session")
def tiny_gpt2(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Path:
    """GPT-2 causal LM, byte-level BPE, ``<|endoftext|>`` as bos/eos, no pad token."""
    return _build(tmp_path_factory, shared_data, "gpt2")


@pytest.fixture(scope="session")
def tiny_gpt2_chat(tmp_path_factory: pytest.TempPathFactory, tiny_gpt2: Path) -> Path:
    """The tiny GPT-2 with a chat template (ChatML, as SmolLM2's) and 1,024 positions, fresh seeded weights:
    the stand-in for a chat model."""
    import shutil

    import transformers

    import torch

    folder = tmp_path_factory.mktemp("tiny-gpt2-chat") / "model"
    shutil.copytree(tiny_gpt2, folder)
    config = transformers.AutoConfig.from_pretrained(folder)
    config.n_positions = 1024  # room for DiscrimEval's templated prompts (~340 tokens in this vocabulary)
    torch.manual_seed(0)
    transformers.AutoModelForCausalLM.from_config(config).save_pretrained(folder)
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    tokenizer.model_max_length = 1024
    tokenizer.chat_template = ("{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n"
                               "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def tiny_bart(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Path:
    """BART seq2seq LM (1+1 layers), byte-level BPE with ``<mask>``."""
    return _build(tmp_path_factory, shared_data, "bart")


@pytest.fixture(scope="session")
def tiny_headless_bert(tmp_path_factory: pytest.TempPathFactory, shared_data: Path) -> Path:
    """A bare BertModel: its masked-LM head is missing when loaded as one."""
    return _build(tmp_path_factory, shared_data, "headless_bert")


@pytest.fixture(scope="session")
def tiny_electra_discriminator(
    tmp_path_factory: pytest.TempPathFactory, shared_data: Path
) -> Path:
    """An ELECTRA discriminator: no generator (masked-LM) head."""
    return _build(tmp_path_factory, shared_data, "electra_discriminator")
