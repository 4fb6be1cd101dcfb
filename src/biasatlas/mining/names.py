"""Person-name filter: SlguSet drops every sentence that names a person (Zhao et al. 2021
§3 used NER; offline, jieba's ``nr*`` tags are the one NER-like signal we have).

Tuned for recall: a missed name leaks a sentence whose gender the name may reveal,
while a false alarm only costs one of many candidate sentences. Rules, in order:

* ``name_tag``: jieba tags a token ``nr`` (person), ``nrt`` (transliterated), ``nrfg``;
* ``name_title``: common surname + 1–2 characters right before a title (先生, 书记 …), a
  speech/report verb (说, 表示 …) or, when the candidate is whole jieba tokens, a function
  word (和, 在 …), unless surname+next character is a dictionary word that is not a name
  (高兴地说 is not Mr Gao);
* ``name_placeholder``: anonymised names 某某, 张某;
* ``name_honorific``: 老王, 小李, 王总, 郭老 before a verb, title or punctuation;
* ``name_foreign``: transliterations joined by a middle dot (约翰·史密斯).
"""

from __future__ import annotations

import re
from collections.abc import Callable

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

# A dictionary word tagged with one of these is a name, not a reason to doubt one.
_NAME_FLAGS = ("nr", "nrt", "nrfg")


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


def detect_person_name(text: str, tokens, is_plain_word: Callable[[str], bool],
                       keyword: str | None = None) -> str | None:
    """The first rule that finds a person name in ``text`` (see the module doc), or None.

    ``tokens`` are jieba ``(word, flag)`` pairs; ``is_plain_word(w)`` says whether ``w`` is
    a dictionary word not tagged as a name; ``keyword`` is never itself taken for a name.
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
    if _titled_rule(text, tokens, is_plain_word):
        return "name_title"
    return None


def plain_word_test(pos_tokenizer) -> Callable[[str], bool]:
    """``is_plain_word`` for :func:`detect_person_name` from a jieba POS tokenizer."""
    pos_tokenizer.makesure_userdict_loaded()
    tags = pos_tokenizer.word_tag_tab

    def is_plain_word(word: str) -> bool:
        flag = tags.get(word)
        return flag is not None and not flag.startswith(_NAME_FLAGS)

    return is_plain_word
