"""Word segmentation with jieba and the whole-word keyword rules.

SlguSet keeps a keyword only when it is a whole word (他 inside 其他 is "other", not
"he"). After segmentation a sentence must hold exactly one whole-word keyword: with two
(他 … 她, or 他 … 他) the masked slot could be resolved from the other mention, which is
the paper's co-reference exclusion. Any other gendered word (她们, 老婆, 小伙子 …)
cues the referent's gender just the same and also rejects the sentence.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from biasatlas.mining.lexicon import Gender, Lexicon
from biasatlas.mining.records import Segmented, Sentence


def build_tokenizer(lexicon: Lexicon):
    """A private jieba tokenizer that knows every multi-character gendered word.

    A private instance keeps our added words out of the user's global jieba. Adding a
    word with no frequency lets jieba pick the lowest frequency that still keeps it whole,
    so 男童 is one token while longer dictionary words (男童装) still win.
    """
    import jieba

    jieba.setLogLevel(logging.WARNING)
    tokenizer = jieba.Tokenizer()
    for word in lexicon.gender_map():
        if len(word) > 1:
            tokenizer.add_word(word, tag="n")
    return tokenizer


def pos_tagger(tokenizer):
    """``jieba.posseg`` over the same dictionary, for the name filter's ``nr`` tags."""
    import jieba.posseg

    return jieba.posseg.POSTokenizer(tokenizer)


def words(tokenizer, text: str) -> tuple[str, ...]:
    """Plain segmentation (HMM on for unknown words). The POS tagger's Viterbi over
    character × tag states costs about five times more, so only the name filter pays it,
    on the sentences that survive this stage."""
    return tuple(tokenizer.cut(text, HMM=True))


def tokenize(pos_tokenizer, text: str) -> tuple[tuple[str, str], ...]:
    """``(word, flag)`` pairs whose words concatenate to ``text``."""
    return tuple((p.word, p.flag) for p in pos_tokenizer.cut(text))


@dataclass(frozen=True, slots=True)
class GenderedToken:
    word: str
    offset: int
    gender: Gender
    is_keyword: bool


def gendered_tokens(tokens, genders: dict[str, Gender], keywords: frozenset[str]):
    """Every whole-word gendered token with its character offset."""
    out, offset = [], 0
    for word in tokens:
        gender = genders.get(word)
        if gender is not None:
            out.append(GenderedToken(word, offset, gender, word in keywords))
        offset += len(word)
    return out


def keyword_verdict(found: list[GenderedToken]) -> GenderedToken | str:
    """The single keyword, or why the sentence fails: no whole-word keyword, the other
    gender also named (co-reference), a second keyword, or another gendered cue word."""
    keywords = [t for t in found if t.is_keyword]
    if not keywords:
        return "not_whole_word"
    kept = keywords[0]
    others = [t for t in found if t is not kept]
    if any(t.gender != kept.gender for t in others):
        return "both_genders"
    if any(t.is_keyword for t in others):
        return "several_keywords"
    if others:
        return "gender_cue"
    return kept


def segment_sentence(sentence: Sentence, tokenizer, genders: dict[str, Gender],
                     keywords: frozenset[str]) -> Segmented | str:
    """Segment one sentence and keep it when exactly one whole-word keyword remains."""
    tokens = words(tokenizer, sentence.text)
    verdict = keyword_verdict(gendered_tokens(tokens, genders, keywords))
    if isinstance(verdict, str):
        return verdict
    return Segmented(sentence.source, sentence.line, sentence.text, verdict.word,
                     verdict.offset, tokens)
