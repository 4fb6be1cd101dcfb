"""Tiny, deterministic Hugging Face models built in code for the test suite.

Every scorer test needs a real model folder that the Hugging Face loaders accept
(``from_pretrained`` on a local directory, safetensors weights, a saved tokenizer of the
model's own family: see tiny_tokenizers.py). Sizes are tiny (hidden 32, 2 layers,
2 heads) so the whole set builds in seconds.

Weights are random but deterministic (``torch.manual_seed(0)`` before each model),
with input and output embeddings tied as each architecture normally is. Two models
deliberately lack a masked-LM head (a bare ``BertModel`` and an ELECTRA discriminator):
loading them as masked LMs must report the head weights as missing, which the scorers
must refuse (METHODS.md section 4, "Random heads").
"""

from __future__ import annotations

from pathlib import Path

import torch
from transformers import (
    BartConfig,
    BartForConditionalGeneration,
    BertConfig,
    BertForMaskedLM,
    BertModel,
    ElectraConfig,
    ElectraForPreTraining,
    GPT2Config,
    GPT2LMHeadModel,
    PreTrainedModel,
    PreTrainedTokenizerBase,
    RobertaConfig,
    RobertaForMaskedLM,
    XLMRobertaConfig,
    XLMRobertaForMaskedLM,
)

from shared_data import shared_data_dir
from tiny_tokenizers import (
    MAX_TOKENS,
    bert_tokenizer,
    chinese_bert_tokenizer,
    gpt2_tokenizer,
    roberta_tokenizer,
    xlmr_tokenizer,
)

SEED = 0
HIDDEN = 32
LAYERS = 2
HEADS = 2
INTERMEDIATE = 64


def _seeded(model_class: type, config, tokenizer: PreTrainedTokenizerBase, out_dir: Path) -> Path:
    """Build ``model_class(config)`` from the fixed seed (deterministic weights) and save it."""
    torch.manual_seed(SEED)
    return _save(model_class(config), tokenizer, out_dir)


def _save(model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, out_dir: Path) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out_dir, safe_serialization=True)
    tokenizer.save_pretrained(out_dir)
    return out_dir


def _bert_config(vocab_size: int) -> BertConfig:
    return BertConfig(
        vocab_size=vocab_size,
        hidden_size=HIDDEN,
        num_hidden_layers=LAYERS,
        num_attention_heads=HEADS,
        intermediate_size=INTERMEDIATE,
        max_position_embeddings=MAX_TOKENS,
        pad_token_id=0,
    )


def _roberta_like_config(config_class: type, tokenizer: PreTrainedTokenizerBase):
    return config_class(
        vocab_size=len(tokenizer),
        hidden_size=HIDDEN,
        num_hidden_layers=LAYERS,
        num_attention_heads=HEADS,
        intermediate_size=INTERMEDIATE,
        # RoBERTa numbers positions from pad_token_id + 1 = 2, so 256 tokens need 258.
        max_position_embeddings=MAX_TOKENS + 2,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )


def build_bert(out_dir: Path, lowercase: bool = True, data_dir: Path | None = None) -> Path:
    """BertForMaskedLM with a trained WordPiece vocabulary (uncased unless lowercase=False)."""
    data_dir = data_dir or shared_data_dir()
    tokenizer = bert_tokenizer(data_dir, lowercase)
    return _seeded(BertForMaskedLM, _bert_config(len(tokenizer)), tokenizer, out_dir)


def build_chinese_bert(out_dir: Path, data_dir: Path | None = None) -> Path:
    """BertForMaskedLM with a character vocabulary like bert-base-chinese."""
    data_dir = data_dir or shared_data_dir()
    tokenizer = chinese_bert_tokenizer(data_dir)
    return _seeded(BertForMaskedLM, _bert_config(len(tokenizer)), tokenizer, out_dir)


def build_headless_bert(out_dir: Path, data_dir: Path | None = None) -> Path:
    """A bare BertModel (no masked-LM head) with the uncased tokenizer."""
    data_dir = data_dir or shared_data_dir()
    tokenizer = bert_tokenizer(data_dir)
    return _seeded(BertModel, _bert_config(len(tokenizer)), tokenizer, out_dir)


def build_electra_discriminator(out_dir: Path, data_dir: Path | None = None) -> Path:
    """ElectraForPreTraining: a replaced-token detector, no word distribution."""
    data_dir = data_dir or shared_data_dir()
    tokenizer = bert_tokenizer(data_dir)
    config = ElectraConfig(
        vocab_size=len(tokenizer),
        embedding_size=HIDDEN,
        hidden_size=HIDDEN,
        num_hidden_layers=LAYERS,
        num_attention_heads=HEADS,
        intermediate_size=INTERMEDIATE,
        max_position_embeddings=MAX_TOKENS,
        pad_token_id=0,
    )
    return _seeded(ElectraForPreTraining, config, tokenizer, out_dir)


def build_roberta(out_dir: Path, data_dir: Path | None = None) -> Path:
    """RobertaForMaskedLM with a trained byte-level BPE (``Ġ`` leading spaces)."""
    data_dir = data_dir or shared_data_dir()
    tokenizer = roberta_tokenizer(data_dir)
    config = _roberta_like_config(RobertaConfig, tokenizer)
    return _seeded(RobertaForMaskedLM, config, tokenizer, out_dir)


def build_xlmr(out_dir: Path, data_dir: Path | None = None) -> Path:
    """XLMRobertaForMaskedLM with a trained Unigram (SentencePiece-style, ``▁``) tokenizer."""
    data_dir = data_dir or shared_data_dir()
    tokenizer = xlmr_tokenizer(data_dir)
    config = _roberta_like_config(XLMRobertaConfig, tokenizer)
    return _seeded(XLMRobertaForMaskedLM, config, tokenizer, out_dir)


def build_gpt2(out_dir: Path, data_dir: Path | None = None) -> Path:
    """GPT2LMHeadModel with a trained byte-level BPE; ``<|endoftext|>`` is bos and eos."""
    data_dir = data_dir or shared_data_dir()
    tokenizer = gpt2_tokenizer(data_dir)
    config = GPT2Config(
        vocab_size=len(tokenizer),
        n_positions=MAX_TOKENS,
        n_embd=HIDDEN,
        n_layer=LAYERS,
        n_head=HEADS,
        n_inner=INTERMEDIATE,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    return _seeded(GPT2LMHeadModel, config, tokenizer, out_dir)


def build_bart(out_dir: Path, data_dir: Path | None = None) -> Path:
    """BartForConditionalGeneration (1+1 layers) with a byte-level BPE holding ``<mask>``."""
    data_dir = data_dir or shared_data_dir()
    tokenizer = roberta_tokenizer(data_dir)
    config = BartConfig(
        vocab_size=len(tokenizer),
        d_model=HIDDEN,
        encoder_layers=1,
        decoder_layers=1,
        encoder_attention_heads=HEADS,
        decoder_attention_heads=HEADS,
        encoder_ffn_dim=INTERMEDIATE,
        decoder_ffn_dim=INTERMEDIATE,
        # BART offsets positions by 2 inside its embedding, so 256 here means 256 tokens.
        max_position_embeddings=MAX_TOKENS,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        decoder_start_token_id=tokenizer.eos_token_id,
        forced_eos_token_id=tokenizer.eos_token_id,
    )
    return _seeded(BartForConditionalGeneration, config, tokenizer, out_dir)
