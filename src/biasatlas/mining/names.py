"""Person-name filter: SlguSet drops every sentence that names a person (Zhao et al. 2021
§3 used NER; offline, jieba's ``nr*`` tags are the one NER-like signal we have).

Tuned for recall: a missed name leaks a sentence whose gender the name may reveal,
while a false alarm only costs one of many candidate sentences. Rules, in order:

* ``name_tag``: jieba tags a token ``nr`` (person), ``nrt`` (transliterated), ``nrfg``;
* ``name_placeholder``: anonymised names 某某, 张某;
* ``name_honorific``: 老王, 小李, 王总, 郭老 before a verb, title or punctuation;
* ``name_foreign``: transliterations joined by a middle dot (约翰·史密斯);
* ``name_title``: common surname + 1–2 characters right before a title (先生, 书记 …), a
  speech/report verb (说, 表示 …) or, when the candidate is whole jieba tokens, a function
  word (和, 在 …), unless surname+next character is a dictionary word that is not a name
  (高兴地说 is not Mr Gao); and any word jieba's dictionary lacks right before a title
  or speech verb (拉埃女士: a name without a common surname);
* ``name_transliteration``: a word spelled only in the characters of foreign-name
  transliteration that jieba does not know, or tags ``ns`` (place) but rarely saw, unless
  it is plainly a place (在…, …人, or jieba knows 吉林省, 兰西县). jieba's dictionary files
  many foreign people under ``ns`` (拉宾, 巴拉克, 加西亚), and an unknown transliteration
  is as likely a person as a place;
* ``name_subject``: a surname that jieba split off as a common noun (田 "field") opens a
  clause, then come 1–2 characters and a verb (田晚霞下岗后): the ``name_title`` rule for
  a name as the subject of any verb, where jieba missed the name.

The measured recall and precision are in ``docs/mining.md``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

SURNAMES = (
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶"
    "程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付傅方白邹孟熊秦邱江尹薛闫阎段雷侯龙史陶黎"
    "贺顾毛郝龚邵万钱严覃武戴莫孔向汤常温康施文牛樊葛邢安齐易乔伍庞颜倪庄聂章鲁岳翟殷詹申欧"
    "耿关兰焦俞左柳甘祝包宁尚符舒阮柯纪梅童凌毕单季裴霍涂成苗谷盛曲翁冉骆蓝路游辛靳管柴蒙鲍"
    "华喻祁蒲房滕屈饶解牟艾尤阳时穆农司卓古吉缪简车项连芦麦褚娄窦戚岑景党宫费卜冷晏席卫米柏"
    "宗瞿桂全佟应臧闵苟邬边卞姬师仇栾隋商刁沙荣巫寇桑郎甄丛仲虞敖巩明佘池查麻苑迟邝")
COMPOUND_SURNAMES = ("欧阳", "司马", "诸葛", "上官", "司徒", "夏侯", "皇甫", "尉迟", "公孙",
                     "慕容", "长孙", "宇文", "令狐", "端木")
TITLES = (
    "先生 女士 小姐 同志 老师 教授 博士 医生 大夫 书记 副书记 主任 副主任 主席 副主席 总理 "
    "副总理 部长 副部长 局长 厅长 处长 科长 市长 副市长 县长 省长 镇长 乡长 村长 院长 校长 所长 "
    "站长 队长 组长 经理 总经理 董事长 总裁 总统 委员 代表 记者 编辑 师傅 大爷 大妈 大姐 大哥 "
    "阿姨 叔叔 老人 教练 律师 法官 检察官 警官 民警 将军 司令 司令员 政委 军长 师长 团长 连长 "
    "排长 班长 工程师 研究员 院士 大使 总书记 议员 首相 社长 会长 理事长 秘书长 馆长 行长 "
    "厂长 矿长 店长 主编 导演 烈士 老汉 一家").split()
VERBS = (
    "说 说道 表示 认为 指出 介绍 告诉 强调 称 透露 回忆 感慨 坦言 解释 笑着 笑道 问 答 写道 "
    "提出 宣布 会见 会晤 看望 慰问 出席 主持 讲话 致辞 发言 等人 等同志 一行 夫妇").split()
# Function words follow a name as often as anything else; they only count when the name
# candidate is whole tokens (see _titled_rule), or 和平 would be Mr He.
FUNCTION_WORDS = "和 与 在 是 的 也 则 又 曾 已 就 对 向 为 被 把 从 还 都 却 等 同志".split()

_SURNAME = "(?:" + "|".join(COMPOUND_SURNAMES) + f"|[{SURNAMES}])"
_NEXT = "(?:" + "|".join(sorted(TITLES + VERBS, key=len, reverse=True)) + ")"
_FOLLOW = "|".join(sorted(TITLES + VERBS + FUNCTION_WORDS, key=len, reverse=True))
# Lookahead so that overlapping candidates (王 in 王小明 and 小 …) are all tried.
_TITLED = re.compile(f"(?=({_SURNAME})([\u4e00-\u9fff]{{1,2}}?)({_FOLLOW}))")
_PLACEHOLDER = re.compile(f"某某|{_SURNAME}某(?![些种个天地处方年月日人类样])")
_HONORIFIC = re.compile(
    f"(?:[老小阿]{_SURNAME}|{_SURNAME}[总老工局董导])(?=[，。！？；、：“”\\s]|{_NEXT}|$)")
_FOREIGN = re.compile("[\u4e00-\u9fff]{1,8}[·•・．][\u4e00-\u9fff]{1,8}")

# Characters common in the standard (Xinhua) transliterations of foreign names, less
# those frequent in Chinese place names (东, 海, 宁, 华, 金 …): a word made only of them
# reads as a transliteration.
TRANSLITERATION = frozenset(
    "阿埃艾爱安昂奥巴拜班邦贝比彼毕宾波伯博布查达戴丹德登迪蒂丁杜顿多厄恩尔法范菲费芬冯佛夫"
    "弗福盖戈格古瓜圭哈豪赫亨胡惠霍基吉加贾杰卡凯坎康考柯科克肯库夸奎拉莱赖兰朗劳勒雷蕾黎里"
    "利莉丽列林琳卢鲁路伦罗洛马玛迈麦曼梅蒙米密摩莫默姆穆纳娜奈南内尼涅纽努诺欧帕潘佩彭皮普"
    "奇齐乔切琴丘萨塞桑瑟森沙莎舍什施史舒斯苏索塔泰坦汤特提图托瓦旺威韦维温沃乌伍西希锡席夏"
    "谢辛休雅亚扬耶伊因尤约扎泽詹兹佐")
# The jieba count below which a transliteration tagged ``ns`` may as well be a person.
# In jieba's dictionary the ``ns`` transliterations counted 500 or more are countries and
# big cities (巴西 1,628, 纽约 1,758); under 100, people are common (巴拉克 82, 加西亚 47,
# 阿加西 21, 拉宾 20) beside small places.
RARE_PLACE_COUNT = 100
# A transliteration right after a PLACE_BEFORE word or right before a PLACE_AFTER word is
# a place, not a person; so is one that jieba also knows with an administrative suffix
# (吉林省, 兰西县, 密苏里州).
PLACE_BEFORE = frozenset(
    "在 到 去 从 赴 抵 抵达 到过 去过 来到 访问 前往 来自 位于 途经 飞往 回到 驻 于 至".split())
PLACE_AFTER = frozenset(
    "人 族 语 省 州 市 县 邦 城 港 岛 河 湖 山 地区 首都 境内 当局 政府 队 大学".split())
ADMIN_SUFFIXES = ("省", "市", "县", "州", "区")

# A dictionary word tagged with one of these is a name, not a reason to doubt one.
_NAME_FLAGS = ("nr", "nrt", "nrfg")
_NAME_FOLLOWERS = frozenset(TITLES + VERBS)
_SURNAME_TOKENS = frozenset(SURNAMES) | frozenset(COMPOUND_SURNAMES)
# POS flag initials of verbs, adverbs, prepositions, conjunctions, particles, pronouns.
_NOT_IN_NAMES = frozenset("vdpcur")


@dataclass(frozen=True, eq=False)
class WordTable:
    """What the rules ask of jieba's dictionary: a word's POS tag and its count.

    ``counts`` is jieba's ``FREQ``, where a prefix that is no word counts 0.
    """

    tags: Mapping[str, str]
    counts: Mapping[str, int]

    def is_plain_word(self, word: str) -> bool:
        """A dictionary word not tagged as a name (高兴 yes; 江泽民 and unknown 拉埃 no)."""
        flag = self.tags.get(word)
        return flag is not None and not flag.startswith(_NAME_FLAGS)

    def count(self, word: str) -> int:
        """jieba's count of ``word``; 0 when the dictionary lacks it."""
        return self.counts.get(word) or 0


def word_table(pos_tokenizer) -> WordTable:
    """The :class:`WordTable` of a jieba POS tokenizer (user words included)."""
    pos_tokenizer.makesure_userdict_loaded()
    return WordTable(pos_tokenizer.word_tag_tab, pos_tokenizer.tokenizer.FREQ)


def _is_cjk(word: str) -> bool:
    return all("\u4e00" <= char <= "\u9fff" for char in word)


def _boundaries(tokens) -> set[int]:
    edges, offset = {0}, 0
    for word, _flag in tokens:
        offset += len(word)
        edges.add(offset)
    return edges


def _titled_rule(text: str, tokens, is_plain_word: Callable[[str], bool]) -> bool:
    edges = None
    for match in _TITLED.finditer(text):
        surname, given, follow = match.groups()
        if is_plain_word(surname + given[0]) or is_plain_word(surname + given):
            continue
        if follow in FUNCTION_WORDS:
            edges = _boundaries(tokens) if edges is None else edges
            if match.start() not in edges or match.end(2) not in edges:
                continue
        return True
    return False


def _unknown_titled_rule(tokens, words: WordTable, keyword: str | None) -> bool:
    """A word jieba's dictionary lacks, right before a title or speech verb (拉埃女士,
    哲夫说): the title rule for names without a common surname."""
    for (word, _flag), (follow, _) in zip(tokens, tokens[1:]):
        if (2 <= len(word) <= 4 and word != keyword and _is_cjk(word)
                and follow in _NAME_FOLLOWERS and not words.count(word)):
            return True
    return False


def _is_place(tokens, index: int, words: WordTable) -> bool:
    word = tokens[index][0]
    # The POS tagger may cut 到过 into 到 + 过, so the last two words are tried as well.
    previous = [w for w, _ in tokens[max(index - 2, 0):index]]
    before = {"".join(previous[-1:]), "".join(previous)}
    after = tokens[index + 1][0] if index + 1 < len(tokens) else ""
    return (not before.isdisjoint(PLACE_BEFORE) or after in PLACE_AFTER
            or any(words.count(word + suffix) for suffix in ADMIN_SUFFIXES))


def _transliteration_rule(tokens, words: WordTable, keyword: str | None) -> bool:
    """A rare or unknown transliteration that is not plainly a place."""
    for index, (word, flag) in enumerate(tokens):
        if len(word) < 2 or word == keyword or not set(word) <= TRANSLITERATION:
            continue
        count = words.count(word)
        if count and not (flag == "ns" and count < RARE_PLACE_COUNT):
            continue
        if not _is_place(tokens, index, words):
            return True
    return False


def _clause_start(tokens, index: int) -> bool:
    return index == 0 or not tokens[index - 1][0][-1].isalnum()


def _given_name_ends(tokens, start: int):
    """Token indices just past 1–2 CJK characters of whole tokens from ``start``; a verb,
    adverb or function word is no part of a given name (钱随粮走 is no Mr Qian)."""
    length = 0
    for end in range(start, min(start + 2, len(tokens))):
        word, flag = tokens[end]
        length += len(word)
        if length > 2 or not _is_cjk(word) or flag[:1] in _NOT_IN_NAMES:
            return
        yield end + 1


def _subject_rule(tokens, is_plain_word: Callable[[str], bool]) -> bool:
    """A surname jieba took for a common noun opens a clause, then 1–2 characters, then a
    verb (田晚霞下岗后: 田 "field" + 晚霞 "sunset glow")."""
    for index, (word, flag) in enumerate(tokens):
        if (word not in _SURNAME_TOKENS or flag not in ("n", "ng")
                or not _clause_start(tokens, index)):
            continue
        for end in _given_name_ends(tokens, index + 1):
            given = "".join(w for w, _ in tokens[index + 1:end])
            if (end < len(tokens) and tokens[end][1].startswith("v")
                    and not is_plain_word(word + given[0]) and not is_plain_word(word + given)):
                return True
    return False


def detect_person_name(text: str, tokens, words: WordTable,
                       keyword: str | None = None) -> str | None:
    """The first rule that finds a person name in ``text`` (see the module doc), or None.

    ``tokens`` are jieba ``(word, flag)`` pairs; ``words`` is jieba's dictionary
    (:func:`word_table`); ``keyword`` is never itself taken for a name.
    """
    if any(flag.startswith(_NAME_FLAGS) and word != keyword
           for word, flag in tokens):
        return "name_tag"
    if _PLACEHOLDER.search(text):
        return "name_placeholder"
    if _HONORIFIC.search(text):
        return "name_honorific"
    if _FOREIGN.search(text):
        return "name_foreign"
    if (_titled_rule(text, tokens, words.is_plain_word)
            or _unknown_titled_rule(tokens, words, keyword)):
        return "name_title"
    if _transliteration_rule(tokens, words, keyword):
        return "name_transliteration"
    if _subject_rule(tokens, words.is_plain_word):
        return "name_subject"
    return None
