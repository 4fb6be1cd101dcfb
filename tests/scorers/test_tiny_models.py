"""The tiny models of tiny_models.py load like hub checkpoints and tokenize like their families."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
from safetensors.torch import load_file  # noqa: E402
from transformers import (  # noqa: E402
    AutoModelForCausalLM,
    AutoModelForMaskedLM,
    AutoModelForSeq2SeqLM,
    AutoTokenizer,
)

import tiny_models  # noqa: E402
import tiny_tokenizers  # noqa: E402

# fixture name -> (Auto class, class it must resolve to)
LOADABLE = {
    "tiny_bert": (AutoModelForMaskedLM, "BertForMaskedLM"),
    "tiny_bert_cased": (AutoModelForMaskedLM, "BertForMaskedLM"),
    "tiny_roberta": (AutoModelForMaskedLM, "RobertaForMaskedLM"),
    "tiny_xlmr": (AutoModelForMaskedLM, "XLMRobertaForMaskedLM"),
    "tiny_chinese_bert": (AutoModelForMaskedLM, "BertForMaskedLM"),
    "tiny_gpt2": (AutoModelForCausalLM, "GPT2LMHeadModel"),
    "tiny_bart": (AutoModelForSeq2SeqLM, "BartForConditionalGeneration"),
}
MASKED = ["tiny_bert", "tiny_bert_cased", "tiny_roberta", "tiny_xlmr", "tiny_chinese_bert"]
BYTE_LEVEL = ["tiny_roberta", "tiny_gpt2", "tiny_bart"]
LATIN = ["tiny_bert", "tiny_bert_cased", "tiny_roberta", "tiny_xlmr", "tiny_gpt2", "tiny_bart"]


def _load(folder: Path, auto_class: type) -> tuple[torch.nn.Module, dict]:
    model, info = auto_class.from_pretrained(folder, output_loading_info=True)
    return model.eval(), info


def _word_pieces(tokenizer, word: str) -> list[str]:
    """The pieces of ``word`` as it appears after a space inside a sentence."""
    context = tokenizer.tokenize("The")
    return tokenizer.tokenize(f"The {word}")[len(context):]


@pytest.mark.parametrize("fixture", sorted(LOADABLE))
def test_reloads_with_auto_classes_and_no_missing_weights(fixture, request):
    folder = request.getfixturevalue(fixture)
    auto_class, expected_class = LOADABLE[fixture]
    model, info = _load(folder, auto_class)
    tokenizer = AutoTokenizer.from_pretrained(folder)

    assert type(model).__name__ == expected_class
    assert not info["missing_keys"] and not info["unexpected_keys"]
    assert (folder / "model.safetensors").is_file()
    assert tokenizer.model_max_length == tiny_tokenizers.MAX_TOKENS
    # The output layer must cover every id the tokenizer can emit.
    assert model.get_output_embeddings().weight.shape == (len(tokenizer), tiny_models.HIDDEN)
    # Tied as the architectures normally are: the LM head is the input embedding matrix.
    assert model.get_output_embeddings().weight is model.get_input_embeddings().weight


@pytest.mark.parametrize("fixture", MASKED)
def test_masked_lm_scores_a_full_length_sentence(fixture, request):
    # 256 tokens must fit: RoBERTa-style position ids start at pad_token_id + 1 = 2, which
    # is why those configs carry 258 position embeddings.
    folder = request.getfixturevalue(fixture)
    model, _ = _load(folder, AutoModelForMaskedLM)
    tokenizer = AutoTokenizer.from_pretrained(folder)
    encoded = tokenizer(
        "woman " * 400, truncation=True, max_length=tiny_tokenizers.MAX_TOKENS, return_tensors="pt"
    )
    assert encoded["input_ids"].shape == (1, 256)
    with torch.inference_mode():
        logits = model(**encoded).logits
    assert logits.shape == (1, 256, len(tokenizer))
    assert torch.isfinite(logits).all()


def test_models_are_tiny(tiny_bert, tiny_gpt2, tiny_bart):
    bert = json.loads((tiny_bert / "config.json").read_text())
    sizes = ("hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size")
    assert [bert[key] for key in sizes] == [32, 2, 2, 64]
    assert bert["max_position_embeddings"] == 256
    gpt2 = json.loads((tiny_gpt2 / "config.json").read_text())
    assert (gpt2["n_embd"], gpt2["n_layer"], gpt2["n_positions"]) == (32, 2, 256)
    bart = json.loads((tiny_bart / "config.json").read_text())
    assert (bart["d_model"], bart["encoder_layers"], bart["decoder_layers"]) == (32, 1, 1)


@pytest.mark.parametrize("fixture", BYTE_LEVEL)
def test_byte_level_bpe_marks_a_leading_space_with_g(fixture, request):
    tokenizer = AutoTokenizer.from_pretrained(request.getfixturevalue(fixture))
    assert tokenizer.tokenize("The woman") == ["The", "Ġwoman"]
    # Sentence-initial words carry no space mark, so "Hun" and " hun" differ.
    assert tokenizer.tokenize("Hun")[0] == "Hun"
    assert tokenizer.tokenize("Han og hun")[-1] == "Ġhun"


def test_gpt2_and_bart_special_tokens(tiny_gpt2, tiny_bart):
    gpt2 = AutoTokenizer.from_pretrained(tiny_gpt2)
    assert gpt2.bos_token == gpt2.eos_token == "<|endoftext|>"
    assert gpt2.pad_token is None  # as released: scorers must pad on their own
    bart = AutoTokenizer.from_pretrained(tiny_bart)
    ids = bart("Elle <mask> infirmière.")["input_ids"]
    assert ids.count(bart.mask_token_id) == 1
    assert (ids[0], ids[-1]) == (bart.bos_token_id, bart.eos_token_id)


def test_xlmr_marks_word_starts_with_metaspace(tiny_xlmr):
    tokenizer = AutoTokenizer.from_pretrained(tiny_xlmr)
    assert tokenizer.tokenize("The woman") == ["▁The", "▁woman"]
    # Special-token layout of the released XLM-R vocabulary: <unk> at 3, <mask> last.
    assert tokenizer.convert_tokens_to_ids(["<s>", "<pad>", "</s>", "<unk>"]) == [0, 1, 2, 3]
    assert tokenizer.mask_token_id == len(tokenizer) - 1


def test_uncased_bert_lowercases_but_keeps_french_accents(tiny_bert):
    tokenizer = AutoTokenizer.from_pretrained(tiny_bert)
    text = "Élodie est infirmière et sa sœur pâtissière à Tromsø"
    pieces = tokenizer.tokenize(text)
    # Independent expectation: WordPiece pieces, with "##" removed, re-spell the
    # lower-cased words exactly (no character lost to accent stripping or [UNK]).
    assert "".join(piece.removeprefix("##") for piece in pieces) == text.lower().replace(" ", "")
    assert tokenizer.tokenize("Hun") == ["hun"]
    assert tokenizer.tokenize("garçon") == ["garçon"]


def test_cased_bert_keeps_case(tiny_bert_cased):
    tokenizer = AutoTokenizer.from_pretrained(tiny_bert_cased)
    assert tokenizer.tokenize("Hun") == ["Hun"]
    assert tokenizer.tokenize("hun") == ["hun"]
    assert tokenizer.tokenize("Élève") != tokenizer.tokenize("élève")


@pytest.mark.parametrize("fixture", LATIN)
def test_identifiers_are_single_tokens_and_long_occupations_are_not(fixture, request):
    tokenizer = AutoTokenizer.from_pretrained(request.getfixturevalue(fixture))
    words = tiny_tokenizers.IDENTIFIER_WORDS
    # Mid-sentence and sentence-initial forms (they differ in byte-level BPE: Ġhun / hun).
    split = {w: (_word_pieces(tokenizer, w), tokenizer.tokenize(w)) for w in words}
    assert {w: p for w, p in split.items() if (len(p[0]), len(p[1])) != (1, 1)} == {}
    for occupation in ("chiropractor", "advokatsekretær", "pâtissière"):
        assert len(_word_pieces(tokenizer, occupation)) > 1


def test_chinese_bert_gives_every_character_its_own_token(tiny_chinese_bert, shared_data):
    tokenizer = AutoTokenizer.from_pretrained(tiny_chinese_bert)
    line = (shared_data / "zh-chbias-gender" / "gender_female_test.txt").read_text(
        encoding="utf-8"
    ).splitlines()[0]
    han = [char for char in line if unicodedata.name(char, "").startswith("CJK UNIFIED")]
    pieces = tokenizer.tokenize(line)
    assert han and [piece for piece in pieces if piece in han] == han
    assert tokenizer.unk_token not in pieces
    assert tokenizer.tokenize("爸爸和妈妈") == ["爸", "爸", "和", "妈", "妈"]
    for char in "他她男女":
        assert tokenizer.tokenize(char) == [char]


def test_headless_bert_loads_as_masked_lm_with_the_head_missing(tiny_headless_bert):
    _, info = _load(tiny_headless_bert, AutoModelForMaskedLM)
    missing = set(info["missing_keys"])  # a set in transformers 5, a list in 4
    assert "cls.predictions.transform.dense.weight" in missing
    assert missing and all(key.startswith("cls.predictions.") for key in missing)


def test_electra_discriminator_loads_as_masked_lm_with_the_generator_head_missing(
    tiny_electra_discriminator,
):
    model, info = _load(tiny_electra_discriminator, AutoModelForMaskedLM)
    assert type(model).__name__ == "ElectraForMaskedLM"
    missing = set(info["missing_keys"])
    assert "generator_predictions.dense.weight" in missing
    assert missing and all(key.startswith("generator_") for key in missing)


@pytest.mark.parametrize("name", ["bert", "roberta", "xlmr"])
def test_builds_are_deterministic(name, tmp_path, shared_data, request):
    first = request.getfixturevalue(f"tiny_{name}")
    # Forget the trained vocabularies so the second build trains its tokenizer afresh.
    # (Within one process only: the WordPiece trainer's run-to-run variation came from
    # hash-map order, which also changes within a process, so this catches it.)
    trained = ("_wordpiece_vocab", "_byte_level_bpe", "_unigram_vocab")
    for cached in trained:
        getattr(tiny_tokenizers, cached).cache_clear()
    second = getattr(tiny_models, f"build_{name}")(tmp_path / name, data_dir=shared_data)
    assert (first / "tokenizer.json").read_text() == (second / "tokenizer.json").read_text()
    weights, again = load_file(first / "model.safetensors"), load_file(second / "model.safetensors")
    assert weights.keys() == again.keys()
    assert all(torch.equal(weights[key], again[key]) for key in weights)
