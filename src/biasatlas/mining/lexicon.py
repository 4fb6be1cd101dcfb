"""Word lists of the mining pipeline: keyword pairs, other gender cues, biological-sex cues.

SlguSet (Zhao et al. 2021) starts from 16 gendered address/kinship term pairs, naming
他/她, 男/女 and 爸爸/妈妈; the other thirteen are our choice (``docs/mining.md`` says why).
A sentence survives only when its single keyword is the one gendered word in it, so the
cue lists below name the *other* words that would tell a reader the referent's gender.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from biasatlas.errors import DataError
from biasatlas.textfiles import read_text

Gender = Literal["male", "female"]


@dataclass(frozen=True, slots=True)
class KeywordPair:
    """A gendered term pair; ``label`` is the ``male/female`` spelling used in outputs."""

    male: str
    female: str

    def __post_init__(self) -> None:
        if not self.male or not self.female or self.male == self.female:
            raise ValueError(f"a keyword pair needs two different terms, got {self!r}")
        if "/" in self.male + self.female or any(c.isspace() for c in self.male + self.female):
            raise ValueError(f"keyword terms may not hold '/' or spaces: {self!r}")

    @property
    def label(self) -> str:
        return f"{self.male}/{self.female}"


DEFAULT_PAIRS: tuple[KeywordPair, ...] = tuple(KeywordPair(m, f) for m, f in (
    ("他", "她"), ("男", "女"), ("爸爸", "妈妈"),           # named in the paper
    ("男人", "女人"), ("男孩", "女孩"), ("男童", "女童"), ("男生", "女生"),
    ("男子", "女子"), ("男性", "女性"), ("先生", "女士"),
    ("儿子", "女儿"), ("父亲", "母亲"), ("丈夫", "妻子"),
    ("哥哥", "姐姐"), ("弟弟", "妹妹"), ("爷爷", "奶奶"),
))

# Gendered words that are not keywords. Any of them next to the keyword cues the
# referent's gender (or co-refers with it), so the sentence is no longer neutral.
MALE_CUES = frozenset(
    "他们 男友 男朋友 老公 夫君 岳父 公公 女婿 外公 姥爷 叔叔 伯伯 舅舅 兄弟 "
    "哥 弟 爸 父 兄 老爷 少爷 王子 国王 皇帝 和尚 帅哥 小伙 小伙子 大爷 大叔 大哥 "
    "男孩子 男子汉 男士 男方 父子 孙子 侄子 外甥 爹 公子".split())
FEMALE_CUES = frozenset(
    "她们 女友 女朋友 老婆 媳妇 儿媳 岳母 婆婆 太太 夫人 妻 姑姑 阿姨 姨 舅妈 婶婶 外婆 姥姥 "
    "姐 妹 妈 母 姐妹 闺蜜 小姐 姑娘 少女 美女 大妈 大姐 公主 女王 皇后 尼姑 孕妇 "
    "寡妇 妇女 女孩子 女士们 女方 母女 孙女 侄女 娘".split())
# Only MALE/FEMALE membership matters; a word may not sit in both lists.
if MALE_CUES & FEMALE_CUES:  # pragma: no cover - guards an edit of the lists above
    raise RuntimeError(f"cue words in both genders: {MALE_CUES & FEMALE_CUES}")

# Biological-sex cues (the paper drops "pregnancy and the like"). Matched as substrings:
# each entry is specific enough that a substring hit is a real cue (孕 appears only in
# pregnancy words; 胎 alone is not listed because of 轮胎, "tyre").
BIO_CUES: tuple[str, ...] = tuple(
    "孕 分娩 生孩子 生小孩 生下 生育 产妇 产后 产假 坐月子 月子 哺乳 母乳 喂奶 月经 例假 "
    "痛经 经期 生理期 妊娠 流产 堕胎 剖腹产 剖宫产 顺产 难产 胎儿 接生 子宫 宫颈 卵巢 乳腺 "
    "乳房 乳腺癌 前列腺 睾丸 阴茎 阴道 精子 卵子 胡子 胡须 变声 更年期 绝经 阳痿 试管婴儿 "
    "结扎 哺育".split())


@dataclass(frozen=True, slots=True)
class Lexicon:
    """The pairs plus lookups built from them: keyword → pair label, word → gender."""

    pairs: tuple[KeywordPair, ...]

    def __post_init__(self) -> None:
        terms = [t for p in self.pairs for t in (p.male, p.female)]
        if not terms:
            raise ValueError("at least one keyword pair is needed")
        if len(set(terms)) != len(terms):
            raise ValueError("a keyword appears in more than one pair or on both sides")

    @property
    def keywords(self) -> tuple[str, ...]:
        return tuple(t for p in self.pairs for t in (p.male, p.female))

    def pair_of(self, keyword: str) -> str:
        for pair in self.pairs:
            if keyword in (pair.male, pair.female):
                return pair.label
        raise KeyError(keyword)

    def gender_map(self) -> dict[str, Gender]:
        """Every gendered word (keywords first, so they win over a cue of the same spelling)."""
        genders: dict[str, Gender] = dict.fromkeys(MALE_CUES, "male")
        genders.update(dict.fromkeys(FEMALE_CUES, "female"))
        # The default terms stay cues when a custom pair list leaves them out (她 still
        # tells the gender in 她的母亲 when only 父亲/母亲 is mined).
        for pair in DEFAULT_PAIRS + self.pairs:
            genders[pair.male], genders[pair.female] = "male", "female"
        return genders


def load_pairs(path: Path) -> tuple[KeywordPair, ...]:
    """Read a pairs file: one ``male/female`` (or ``male<TAB>female``) per line, ``#`` comments."""
    pairs: list[KeywordPair] = []
    for number, raw in enumerate(io.StringIO(read_text(path), newline=None), start=1):
        text = raw.split("#", 1)[0].strip()
        if not text:
            continue
        parts = text.split("/") if "/" in text else text.split()
        if len(parts) != 2:
            raise DataError("expected 'male/female'", path=path, line=number, field="pair")
        try:
            pairs.append(KeywordPair(parts[0].strip(), parts[1].strip()))
        except ValueError as exc:
            raise DataError(str(exc), path=path, line=number, field="pair") from exc
    try:
        Lexicon(tuple(pairs))
    except ValueError as exc:
        raise DataError(str(exc), path=path, field="pair") from exc
    return tuple(pairs)
