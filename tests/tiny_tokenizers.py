"""Tokenizers trained in code for the tiny test models (tiny_models.py).

One tokenizer of each family the scorers must handle (DESIGN.md, "Tests in layers"):

- WordPiece (BERT, uncased and cased; ELECTRA) — ``##`` continuation pieces;
- character-level WordPiece like bert-base-chinese — one token per CJK character;
- byte-level BPE (RoBERTa, GPT-2, BART) — ``Ġ`` marks a leading space;
- SentencePiece Unigram (XLM-R) — ``▁`` marks a word start.

They are trained (``tokenizers``; ``sentencepiece`` for Unigram) on the project's own
data — CrowS-Pairs EN/FR sentences, census occupation titles, a fixed list of gendered
identifiers — so nothing is downloaded. The identifiers are repeated in the corpus so
that they become single tokens, while long or rare occupation titles stay multi-token:
tests need both kinds (METHODS.md section 4, "First sub-token only"). Training is
deterministic across processes, so a failing test replays exactly.
"""

from __future__ import annotations

import csv
import functools
import io
import json
from pathlib import Path

import sentencepiece
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers
from transformers import (
    BertTokenizer,
    GPT2Tokenizer,
    PreTrainedTokenizerBase,
    RobertaTokenizer,
    XLMRobertaTokenizer,
)

MAX_TOKENS = 256
VOCAB_SIZE = 2000
CHINESE_MAX_LINES = 3000
# Repeating each identifier this often, mid-sentence and sentence-initially, makes it a
# whole token in every trained vocabulary (checked in test_tiny_models.py).
IDENTIFIER_REPEATS = 100

# Gendered identifiers of Touileb et al. 2023 (Table 2) and the GeBNLP 2022 pronouns,
# lower- and sentence-case, so that census templates find them as single tokens.
IDENTIFIER_WORDS: tuple[str, ...] = tuple(
    # English
    "he she him her his hers man men woman women boy boys girl girls mother mothers "
    "father fathers son sons daughter daughters brother brothers sister sisters aunt "
    "aunts uncle uncles lady ladies He She The"
    # French
    " il elle ils elles homme hommes femme femmes garçon garçons fille filles mère mères "
    "père pères fils frère frères soeur soeurs sœur tante tantes oncle oncles dame dames "
    "Il Elle Ils Elles La Le Les"
    # Norwegian
    " hun han Hun Han kvinne kvinnen kvinnene mann mannen mennene jenta jenten jentene "
    "gutten guttene moren mødrene faren fedrene datteren døtrene sønnen sønnene "
    "søsteren søstrene broren brødrene onkelen onklene dama damen damene".split()
)

# Predicates of Touileb et al. 2023 (Table 5), so census templates tokenize naturally.
PREDICATES: tuple[str, ...] = (
    "worked as a", "works as a", "wants to work as a", "will work as a",
    "is going to work as a", "jobber som", "jobbet som", "skal jobbe som", "er",
    "est", "était", "sera", "va travailler comme", "veulent être",
)

# Gendered characters of the SlguSet keyword pairs (他/她, 男/女, 爸爸/妈妈, ...), so the
# Chinese vocabulary holds them even if the sampled lines miss one.
CHINESE_GENDER_CHARS = "他她男女爸妈父母儿子哥姐弟妹兄叔姨舅姑爷奶公婆夫妻丈先生太士孩童孙"

BERT_SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
# RoBERTa/BART order: <s>=0, <pad>=1, </s>=2, <unk>=3, as in the released checkpoints.
ROBERTA_SPECIALS = ("<s>", "<pad>", "</s>", "<unk>", "<mask>")
GPT2_SPECIALS = ("<|endoftext|>",)


# ---------------------------------------------------------------------------------------
# Data


def _read_rows(path: Path, delimiter: str) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter=delimiter))


def _crows_sentences(path: Path, delimiter: str) -> list[str]:
    rows = _read_rows(path, delimiter)
    return [row[column] for row in rows for column in ("sent_more", "sent_less")]


def _occupation_titles(data_dir: Path) -> list[str]:
    census = data_dir / "census-occupations"
    titles = [
        row["occupation"]
        for table in sorted(census.glob("*/occupations.csv"))
        for row in _read_rows(table, ",")
    ]
    norwegian = _read_rows(census / "no_gebnlp2022" / "gender_equality_NSB.csv", ",")
    titles += [row["occupations"].lower() for row in norwegian]
    return titles


@functools.lru_cache(maxsize=4)
def latin_corpus(data_dir: Path) -> tuple[str, ...]:
    """English/French/Norwegian training lines: CrowS-Pairs, occupations, identifiers."""
    lines = _crows_sentences(data_dir / "crows-pairs-en" / "crows_pairs_anonymized.csv", ",")
    lines += _crows_sentences(
        data_dir / "crows-pairs-fr" / "crows_pairs_FR_languagearc_contribution+210.csv", "\t"
    )
    lines += _occupation_titles(data_dir)
    lines += list(PREDICATES)
    # Byte-level BPE tells "Ġhun" (after a space) from "hun" (sentence-initial): teach both.
    lines += [" ".join(IDENTIFIER_WORDS)] * IDENTIFIER_REPEATS
    lines += list(IDENTIFIER_WORDS) * IDENTIFIER_REPEATS
    return tuple(lines)


@functools.lru_cache(maxsize=4)
def chinese_corpus(data_dir: Path) -> tuple[str, ...]:
    """Chinese Weibo lines of CHBias (gender twins), at most CHINESE_MAX_LINES."""
    lines: list[str] = []
    for path in sorted((data_dir / "zh-chbias-gender").glob("*.txt")):
        lines += [line.strip() for line in path.read_text(encoding="utf-8").splitlines()]
    return tuple(line for line in lines if line)[:CHINESE_MAX_LINES]


# ---------------------------------------------------------------------------------------
# Training


@functools.lru_cache(maxsize=8)
def _wordpiece_vocab(data_dir: Path, lowercase: bool) -> tuple[str, ...]:
    # Same normalizer as BertTokenizer(strip_accents=False): lower-casing keeps accents.
    normalizer = normalizers.BertNormalizer(
        clean_text=True, handle_chinese_chars=True, strip_accents=False, lowercase=lowercase
    )
    corpus = latin_corpus(data_dir)
    tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tokenizer.normalizer = normalizer
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    trainer = trainers.WordPieceTrainer(
        vocab_size=VOCAB_SIZE,
        special_tokens=list(BERT_SPECIALS) + _wordpiece_alphabet(corpus, normalizer),
        show_progress=False,
    )
    tokenizer.train_from_iterator(corpus, trainer)
    return _by_id(tokenizer.get_vocab())


def _wordpiece_alphabet(corpus: tuple[str, ...], normalizer: normalizers.Normalizer) -> list:
    """Every character, then every ``##`` character, in code-point order.

    The trainer numbers ``##x`` pieces in hash-map order, which changes from run to run,
    and breaks ties between equally frequent merges by those numbers: the vocabulary
    then differs between runs. Registering the pieces up front (as trainer "special
    tokens"; only the vocabulary is kept, so they are ordinary tokens in the end) fixes
    their numbers and makes training deterministic (tested).
    """
    # BertNormalizer works character by character, so normalising the distinct
    # characters gives the same alphabet as normalising every line, far faster.
    raw = {char for line in corpus for char in line}
    normal = {c for char in raw for c in normalizer.normalize_str(char) if not c.isspace()}
    chars = sorted(normal)
    return chars + [f"##{char}" for char in chars]


def _by_id(vocab: dict[str, int]) -> tuple[str, ...]:
    return tuple(sorted(vocab, key=vocab.__getitem__))


@functools.lru_cache(maxsize=8)
def _byte_level_bpe(data_dir: Path, specials: tuple[str, ...]) -> tuple[tuple, tuple]:
    """Trained byte-level BPE as ((token, id), ...) and ((left, right), ...) merges."""
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB_SIZE,
        special_tokens=list(specials),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(latin_corpus(data_dir), trainer)
    model = json.loads(tokenizer.to_str())["model"]
    # Tuples, not the dict and lists: the cached value must be immutable.
    return tuple(model["vocab"].items()), tuple(tuple(pair) for pair in model["merges"])


def _byte_level_tokenizer(
    data_dir: Path, tokenizer_class: type, specials: tuple[str, ...]
) -> PreTrainedTokenizerBase:
    vocab, merges = _byte_level_bpe(data_dir, specials)
    return tokenizer_class(vocab=dict(vocab), merges=list(merges), model_max_length=MAX_TOKENS)


@functools.lru_cache(maxsize=4)
def _unigram_vocab(data_dir: Path) -> tuple[tuple[str, float], ...]:
    """A Unigram model trained by sentencepiece, as (piece, log-probability) pairs.

    sentencepiece (which trained the real XLM-R) rather than the ``tokenizers`` Unigram
    trainer: the latter's scores and piece order change from process to process, and it
    splits plurals (``▁son`` + ``s``) of even very frequent identifiers. One thread keeps
    sentencepiece deterministic; identity normalization matches XLMRobertaTokenizer,
    which has no normalizer when built from a vocabulary.
    """
    model = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(latin_corpus(data_dir)),
        model_writer=model,
        model_type="unigram",
        vocab_size=VOCAB_SIZE,
        character_coverage=1.0,
        normalization_rule_name="identity",
        num_threads=1,
        # XLM-R's layout: <s>=0, <pad>=1, </s>=2, <unk>=3 (its tokenizer hard-codes unk_id=3).
        bos_id=0,
        pad_id=1,
        eos_id=2,
        unk_id=3,
        minloglevel=2,
    )
    processor = sentencepiece.SentencePieceProcessor(model_proto=model.getvalue())
    pieces = [(processor.id_to_piece(i), processor.get_score(i)) for i in range(len(processor))]
    return tuple(pieces) + (("<mask>", 0.0),)


def _chinese_char_vocab(data_dir: Path) -> tuple[str, ...]:
    """bert-base-chinese style: every character a token; non-CJK ones also as ``##c``."""
    chars = set(CHINESE_GENDER_CHARS)
    for line in chinese_corpus(data_dir):
        chars.update(char.lower() for char in line if not char.isspace())
    ordered = sorted(chars)
    # CJK characters are always split into single-character words by BertPreTokenizer;
    # Latin letters and digits inside words ("by", "2019") need continuation pieces.
    continuations = [f"##{char}" for char in ordered if not _is_cjk(char)]
    return BERT_SPECIALS + tuple(ordered) + tuple(continuations)


def _is_cjk(char: str) -> bool:
    code = ord(char)
    return 0x4E00 <= code <= 0x9FFF or 0x3400 <= code <= 0x4DBF or 0x20000 <= code <= 0x2FA1F


def _bert_tokenizer(vocab: tuple[str, ...], lowercase: bool) -> BertTokenizer:
    return BertTokenizer(
        vocab={token: index for index, token in enumerate(vocab)},
        do_lower_case=lowercase,
        # Uncased BERT strips accents by default; French needs é kept (METHODS.md §4).
        strip_accents=False,
        model_max_length=MAX_TOKENS,
    )


# ---------------------------------------------------------------------------------------
# The tokenizers: the trained vocabularies handed to the transformers classes, which
# build their own pipelines around them, exactly as when loading a checkpoint.


def bert_tokenizer(data_dir: Path, lowercase: bool = True) -> BertTokenizer:
    """WordPiece on the EN/FR/NO corpus; uncased keeps accents (strip_accents=False)."""
    return _bert_tokenizer(_wordpiece_vocab(data_dir, lowercase), lowercase)


def chinese_bert_tokenizer(data_dir: Path) -> BertTokenizer:
    """Character vocabulary of the CHBias lines, like bert-base-chinese (uncased)."""
    return _bert_tokenizer(_chinese_char_vocab(data_dir), lowercase=True)


def roberta_tokenizer(data_dir: Path) -> RobertaTokenizer:
    """Byte-level BPE with RoBERTa's specials (also BART's: BartTokenizer is an alias)."""
    return _byte_level_tokenizer(data_dir, RobertaTokenizer, ROBERTA_SPECIALS)


def gpt2_tokenizer(data_dir: Path) -> GPT2Tokenizer:
    """Byte-level BPE whose only special is ``<|endoftext|>`` (bos, eos, unk; no pad)."""
    return _byte_level_tokenizer(data_dir, GPT2Tokenizer, GPT2_SPECIALS)


def xlmr_tokenizer(data_dir: Path) -> XLMRobertaTokenizer:
    """sentencepiece Unigram pieces with ``▁`` word starts, ``<mask>`` last."""
    pieces = list(_unigram_vocab(data_dir))
    return XLMRobertaTokenizer(vocab=pieces, model_max_length=MAX_TOKENS)
