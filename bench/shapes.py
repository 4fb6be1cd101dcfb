"""Random models of real shapes, and the data the benchmarks read.

Timing does not depend on the weights, so the benchmarks score real sentences with
random models of the real shapes, built here (no download):

* :func:`build_bert_base`: BERT-base (12 layers, hidden 768, FFN 3,072, 30,522-token
  vocabulary) with a WordPiece tokenizer trained on the benchmark's own sentences, so
  words are single tokens as in the real bert-base;
* :func:`build_gemma_shaped`: Gemma 3 270M's shape (:data:`GEMMA_3_270M`: 18 layers, hidden
  640, 262,144-token vocabulary, sliding-window layers) with a byte-level BPE tokenizer
  trained on the sentences;
* :func:`build_llama_shaped`: a 7B Llama (:data:`LLAMA_7B`), drawn in bfloat16 on the GPU
  and handed to the scorer in memory (:func:`preloaded`), with the same kind of tokenizer.

``smoke=True`` builds the same architectures tiny (2 layers, hidden 64; Gemma and Llama
keep their vocabulary sizes, which is what makes their heads costly), for a CPU check that the scripts
run. Needs torch, transformers and tokenizers only.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import torch
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
from transformers import BertConfig, BertForMaskedLM, BertTokenizerFast, PreTrainedTokenizerFast

ROOT = Path(__file__).resolve().parents[1]
CROWS_EN = Path("crows-pairs-en") / "crows_pairs_anonymized.csv"

#: Gemma 3 270M as packaged (``gemma-3-270m``, src/biasatlas/scorers/inprocess/packaged.py): the shape
#: fields of the converted folder's config.json. tests/cli/test_bench_scripts.py checks them
#: against the cached folder when it is there.
GEMMA_3_270M = {
    "vocab_size": 262144, "hidden_size": 640, "intermediate_size": 2048, "num_hidden_layers": 18,
    "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 256, "sliding_window": 512,
    "max_position_embeddings": 32768, "query_pre_attn_scalar": 256, "tie_word_embeddings": True,
    "final_logit_softcapping": None, "hidden_activation": "gelu_pytorch_tanh",
}
#: Gemma 3's pattern: five sliding-window layers, then one full-attention layer.
SLIDING_PATTERN = 6
#: A 7B Llama (Llama 2 7B's shape: 6.74B parameters, 6.48B of them in the 32 layers' matrices).
LLAMA_7B = {
    "vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32,
    "num_attention_heads": 32, "num_key_value_heads": 32, "max_position_embeddings": 4096,
}


def data_file(relative: Path) -> Path:
    """A shared data file: under ``$BIASATLAS_SHARED_DATA``, the repository's ``shared/data``, or
    the ``shared/data`` beside the repository (the development layout)."""
    # the tests' name for the shared copies; BIASATLAS_DATA, this script's name before issue 49, still read
    named = os.environ.get("BIASATLAS_SHARED_DATA") or os.environ.get("BIASATLAS_DATA")
    roots = [Path(named)] if named else []
    roots += [ROOT / "shared" / "data", ROOT.parent / "shared" / "data"]
    for root in roots:
        if (root / relative).is_file():
            return root / relative
    raise SystemExit(f"cannot find {relative} under {', '.join(map(str, roots))}: set BIASATLAS_DATA "
                     "to the folder holding the shared data")


def build_bert_base(folder: Path, sentences: list[str], *, smoke: bool = False) -> None:
    """A BERT-base-sized MLM with a WordPiece tokenizer trained here on the sentences."""
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.train_from_iterator(sentences, trainers.WordPieceTrainer(
        vocab_size=30522, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]))
    # The post-processor adds [CLS] … [SEP] like the real bert-base tokenizer.
    tok.post_processor = processors.TemplateProcessing(single="[CLS] $A [SEP]", special_tokens=[
        ("[CLS]", tok.token_to_id("[CLS]")), ("[SEP]", tok.token_to_id("[SEP]"))])
    fast = BertTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]",
                             cls_token="[CLS]", sep_token="[SEP]", mask_token="[MASK]")
    shape = {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2,
             "intermediate_size": 256} if smoke else {}
    torch.manual_seed(0)
    model = BertForMaskedLM(BertConfig(vocab_size=30522, **shape))  # bert-base: 12 × 768, 3072 FFN
    model.save_pretrained(folder)
    fast.save_pretrained(folder)


def gemma_config(*, smoke: bool = False):
    """A Gemma 3 text config of :data:`GEMMA_3_270M`'s shape (tiny layers with ``smoke``)."""
    from transformers import Gemma3TextConfig

    shape = dict(GEMMA_3_270M)
    if smoke:
        shape.update(hidden_size=64, intermediate_size=128, num_hidden_layers=2, head_dim=32,
                     query_pre_attn_scalar=32)
    layers = shape["num_hidden_layers"]
    shape["layer_types"] = ["full_attention" if (i + 1) % SLIDING_PATTERN == 0 else "sliding_attention"
                            for i in range(layers)]
    return Gemma3TextConfig(pad_token_id=0, eos_token_id=1, bos_token_id=2, **shape)


def bpe_tokenizer(sentences: list[str], vocab_size: int, *, bos: str, eos: str, pad: str | None,
                  specials: list[str]) -> PreTrainedTokenizerFast:
    """A byte-level BPE tokenizer trained on the sentences (any script: bytes are its
    alphabet), ``specials`` first, at ids 0, 1, …"""
    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(sentences, trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=specials, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    return PreTrainedTokenizerFast(tokenizer_object=tok, bos_token=bos, eos_token=eos, pad_token=pad,
                                   unk_token="<unk>")


def build_gemma_shaped(folder: Path, sentences: list[str], *, smoke: bool = False, device: str = "cpu") -> None:
    """A random Gemma-3-270M-shaped causal LM and a byte-level BPE tokenizer trained on the
    sentences (``<pad>``, ``<eos>``, ``<bos>`` at Gemma's ids 0, 1, 2). The weights are
    drawn on ``device`` (drawing 268M numbers on 2 CPU cores takes a while) and saved in
    float32."""
    from transformers import Gemma3ForCausalLM

    fast = bpe_tokenizer(sentences, 16000, bos="<bos>", eos="<eos>", pad="<pad>",
                         specials=["<pad>", "<eos>", "<bos>", "<unk>"])
    torch.manual_seed(0)
    with torch.device(device):
        model = Gemma3ForCausalLM(gemma_config(smoke=smoke))
    model.to("cpu").save_pretrained(folder)
    fast.save_pretrained(folder)


def llama_config(*, smoke: bool = False):
    """:data:`LLAMA_7B`'s Llama config (tiny layers with ``smoke``, the vocabulary kept)."""
    from transformers import LlamaConfig

    shape = dict(LLAMA_7B)
    if smoke:
        shape.update(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                     num_key_value_heads=4)
    return LlamaConfig(bos_token_id=1, eos_token_id=2, tie_word_embeddings=False, **shape)


def build_llama_shaped(folder: Path, sentences: list[str], *, smoke: bool = False, device: str = "cpu") -> Any:
    """A random :data:`LLAMA_7B`-shaped causal LM, drawn in bfloat16 on ``device`` itself
    (13.5 GB of weights are never written or copied), and a byte-level BPE tokenizer trained
    on the sentences (``<unk>``, ``<s>``, ``</s>`` at Llama's ids 0, 1, 2; no pad token, as
    Llama). ``folder`` gets the config and the tokenizer only: load the scorer from it
    under :func:`preloaded`."""
    from transformers import LlamaForCausalLM

    config = llama_config(smoke=smoke)
    bpe_tokenizer(sentences, config.vocab_size, bos="<s>", eos="</s>", pad=None,
                  specials=["<unk>", "<s>", "</s>"]).save_pretrained(folder)
    config.save_pretrained(folder)
    torch.manual_seed(0)
    with torch.device(device):
        model = LlamaForCausalLM._from_config(config, dtype=torch.bfloat16, attn_implementation="sdpa")
    return model.eval()


@contextmanager
def preloaded(model: Any) -> Iterator[None]:
    """``CausalLMScorer(folder)`` built in this block gets ``model`` (already on its device)
    and the folder's tokenizer, instead of loading weights from the folder: the scorer's
    own code runs from there on (head check, batch sizing, engine)."""
    from unittest import mock

    from transformers import AutoTokenizer

    from biasatlas.scorers.inprocess import causal_lm

    def load(auto_class: str, resolved: Any, **options: Any) -> tuple[Any, Any]:
        return model, AutoTokenizer.from_pretrained(resolved.location)

    with mock.patch.object(causal_lm, "load_checked", load):
        yield
