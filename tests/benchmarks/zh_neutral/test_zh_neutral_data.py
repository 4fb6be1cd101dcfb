"""zh-neutral data: the loader (candidates JSONL and CSV, every error located), the
shipped demonstration set (checked with the mining pipeline's own filters), and the
sign of b on the gender-swapped twins of CHBias under fake scorers."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import pytest

from biasatlas.benchmarks.zh_neutral import ZhNeutral
from biasatlas.benchmarks.zh_neutral.data import ZhItem, demo_path, read_items
from biasatlas.errors import DataError
from biasatlas.scorers.fake import FakeScorer

GOOD = {"id": "c1", "sentence": "昨天她去图书馆借了三本书。", "keyword": "她", "offset": 2,
        "pair": "他/她", "source": "corpus.txt:4"}


def _jsonl(tmp_path: Path, *rows: object, name: str = "set.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n"
                            for r in rows), encoding="utf-8")
    return path


# -- loader ------------------------------------------------------------------------------


def test_reads_the_miners_candidates_file(tmp_path):
    from biasatlas.mining.records import Candidate, write_row

    path = tmp_path / "candidates.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        write_row(handle, Candidate(**GOOD).to_row())
        write_row(handle, Candidate("c2", "爸爸每天骑车上班。", "爸爸", 0, "爸爸/妈妈", "b.txt:1").to_row())
    items = read_items(path)
    assert items[0] == ZhItem("c1", GOOD["sentence"], "她", 2, "他/她", "corpus.txt:4", 1)
    assert (items[0].left, items[0].right, items[0].gender) == ("昨天", "去图书馆借了三本书。", "female")
    assert (items[1].male, items[1].female, items[1].gender) == ("爸爸", "妈妈", "male")


def test_csv_with_the_same_fields(tmp_path):
    path = tmp_path / "set.csv"
    path.write_text("sentence,keyword,offset,pair\n"
                    "昨天她去图书馆借了三本书。,她,2,他/她\n"
                    "\n"
                    "男孩在看书。,男孩,0,男孩/女孩\n", encoding="utf-8")
    items = read_items(path)
    # Ids default to the line: header is line 1, the blank line 3 is skipped.
    assert [(i.id, i.keyword, i.offset, i.line) for i in items] == [("line-2", "她", 2, 2),
                                                                     ("line-4", "男孩", 0, 4)]


@pytest.mark.parametrize(("change", "field"), [
    ({"offset": 3}, "offset"),            # 图, not 她, sits at 3
    ({"offset": -1}, "offset"),
    ({"offset": "2"}, None),              # a JSON string of digits is accepted (CSV-like)
    ({"offset": True}, "offset"),          # a boolean is not an offset
    ({"offset": 2.0}, "offset"),
    ({"keyword": "他"}, "offset"),          # a side of the pair, but 她 sits at the offset
    ({"pair": "男/女"}, "keyword"),         # 她 is neither side
    ({"pair": "他她"}, "pair"),
    ({"pair": "他/她/它"}, "pair"),
    ({"pair": "她/她"}, "pair"),
    ({"pair": "/她"}, "pair"),
    ({"pair": "他 /她"}, "pair"),
    ({"sentence": ""}, "sentence"),
    ({"keyword": None}, "keyword"),
])
def test_bad_rows_name_file_line_and_field(tmp_path, change, field):
    path = _jsonl(tmp_path, {**GOOD, "id": "ok"}, {**GOOD, **change})
    if field is None:
        assert read_items(path)[1].offset == 2
        return
    with pytest.raises(DataError) as info:
        read_items(path)
    err = info.value
    assert (err.path, err.line, err.field) == (path, 2, field)
    assert str(path) in str(err) and "line 2" in str(err)


def test_keyword_of_the_pair_but_elsewhere_points_at_the_offset(tmp_path):
    path = _jsonl(tmp_path, {**GOOD, "sentence": "昨天他去图书馆，她也去了。", "keyword": "她", "offset": 2})
    with pytest.raises(DataError, match=r"found '他' \(it occurs at 8\)") as info:
        read_items(path)
    assert info.value.field == "offset"


def test_structural_errors(tmp_path):
    with pytest.raises(DataError, match="not JSON") as info:
        read_items(_jsonl(tmp_path, GOOD, "{oops"))
    assert info.value.line == 2
    with pytest.raises(DataError, match="expected a JSON object"):
        read_items(_jsonl(tmp_path, "[1, 2]"))
    with pytest.raises(DataError, match="duplicate id 'c1'") as info:
        read_items(_jsonl(tmp_path, GOOD, GOOD))
    assert (info.value.line, info.value.field) == (2, "id")
    with pytest.raises(DataError, match="no sentences"):
        read_items(_jsonl(tmp_path, ""))
    with pytest.raises(DataError, match="no such file"):
        read_items(tmp_path / "absent.jsonl")
    bad_csv = tmp_path / "bad.csv"
    bad_csv.write_text("sentence,keyword,pair\n他来了。,他,他/她\n", encoding="utf-8")
    with pytest.raises(DataError, match="missing column") as info:
        read_items(bad_csv)
    assert (info.value.line, info.value.field) == (1, "offset")
    gbk = tmp_path / "gbk.csv"
    gbk.write_bytes("sentence,keyword,offset,pair\n他来了。,他,0,他/她\n".encode("gbk"))
    with pytest.raises(DataError, match="UTF-8") as info:
        read_items(gbk)
    assert info.value.line == 2


def test_pair_filter_and_unknown_pairs(tmp_path):
    path = _jsonl(tmp_path, GOOD, {**GOOD, "id": "c2", "sentence": "男孩在看书。", "keyword": "男孩",
                                   "offset": 0, "pair": "男孩/女孩"})
    assert [i.id for i in ZhNeutral(data=path, pairs=("男孩/女孩",)).load()] == ["c2"]
    with pytest.raises(DataError, match="no sentence with pair.*男童/女童.*pairs in the file: 他/她, 男孩/女孩"):
        ZhNeutral(data=path, pairs=("男童/女童",)).load()


# -- the demonstration set ---------------------------------------------------------------


def test_demo_set_is_the_default_and_covers_the_16_pairs():
    from biasatlas.mining.lexicon import DEFAULT_PAIRS

    items = ZhNeutral().load()
    assert ZhNeutral().path() == demo_path()
    assert 60 <= len(items) <= 100
    per_pair = {p.label: sum(i.pair == p.label for i in items) for p in DEFAULT_PAIRS}
    assert {i.pair for i in items} == set(per_pair)
    assert min(per_pair.values()) >= 3
    assert len({i.sentence for i in items}) == len(items)
    readme = (demo_path().parent / "README.md").read_text(encoding="utf-8")
    assert "not SlguSet" in readme


def test_demo_sentences_pass_the_miners_own_filters():
    """Each sentence survives the mining pipeline's rules (length, noise, biological-sex
    cues), its segmentation (exactly one whole-word keyword, no other gendered word: no
    co-reference) and its person-name filter, and the keyword it finds is ours."""
    from biasatlas.mining.records import Document
    from biasatlas.mining.stages import (MiningParams, match_document, names_record, resources,
                                         rules_sentence, segment_record)

    res = resources(MiningParams())
    for item in ZhNeutral().load():
        (sentence,), _ = match_document(Document("demo", item.line, item.sentence), res)
        kept = rules_sentence(sentence, res)
        assert not isinstance(kept, str), (item.id, kept)
        segmented = segment_record(kept, res)
        assert not isinstance(segmented, str), (item.id, segmented)
        assert (segmented.keyword, segmented.offset) == (item.keyword, item.offset), item.id
        named = names_record(segmented, res)
        assert not isinstance(named, str), (item.id, named)


# -- sign of b on the CHBias twins ---------------------------------------------------------

# CHBias swaps these characters (female -> male) between line-aligned twin files.
SWAPS = {"女": "男", "她": "他", "妈": "爸", "姐": "哥", "妹": "弟", "母": "父"}
MALE, FEMALE = frozenset(SWAPS.values()), frozenset(SWAPS)


def twin_items(folder: Path) -> list[tuple[ZhItem, ZhItem, int]]:
    """(female-twin item, male-twin item, number of swaps) for twins that differ only by
    single-character swaps from SWAPS; the keyword is the first swapped character."""
    out = []
    for split in ("test", "valid"):
        fem = (folder / f"gender_female_{split}.txt").read_text(encoding="utf-8").splitlines()
        mal = (folder / f"gender_male_{split}.txt").read_text(encoding="utf-8").splitlines()
        for n, (f, m) in enumerate(zip(fem, mal), start=1):
            ops = [op for op in difflib.SequenceMatcher(None, f, m, autojunk=False).get_opcodes()
                   if op[0] != "equal"]
            if not ops or len(f) != len(m) or any(
                    op[0] != "replace" or op[2] - op[1] != 1 or SWAPS.get(f[op[1]]) != m[op[3]]
                    for op in ops):
                continue
            at = ops[0][1]
            pair = f"{m[at]}/{f[at]}"
            out.append((ZhItem(f"{split}-{n}-f", f, f[at], at, pair),
                        ZhItem(f"{split}-{n}-m", m, m[at], at, pair), len(ops)))
    return out


@pytest.fixture(scope="module")
def twins(shared_data) -> list[tuple[ZhItem, ZhItem, int]]:
    found = twin_items(shared_data / "zh-chbias-gender")
    assert len(found) > 250  # 272 of the 400 test+valid twins qualify: 250 single, 22 multi-swap
    return found


def _b(bench: ZhNeutral, scorer, items) -> dict[str, float]:
    answers = scorer.score(bench.probes(items))
    return {r["id"]: r["b"] for r in bench.score(items, answers).records}


def test_single_swap_twins_get_the_same_b_and_its_sign_follows_the_scorer(twins):
    """With one swap, masking the keyword leaves the same context in both twins, so b is
    identical; a scorer that favours male words makes it positive, female words negative."""
    bench = ZhNeutral(topics_k=0)
    single = [(f, m) for f, m, n in twins
              if n == 1 and not set(f.left + f.right) & (MALE | FEMALE)]
    assert len(single) > 100
    items = [x for pair in single for x in pair]
    for words, sign in ((tuple(MALE), 1.0), (tuple(FEMALE), -1.0)):
        # bias 1000 dwarfs the hash part in (-20, 0]: b = ±1000 + (h(m) - h(f)), |b| > 980.
        b = _b(bench, FakeScorer(boost=words, bias=1000.0), items)
        for f, m in single:
            assert b[f.id] == b[m.id]
            assert sign * b[f.id] > 980


class AgreementScorer(FakeScorer):
    """A fake 'co-reference-following' model: a filled-in sentence that mixes male and
    female swap characters loses ``bias``; hash noise as in FakeScorer."""

    def _text_score(self, text: str) -> float:
        mixed = bool(set(text) & MALE) and bool(set(text) & FEMALE)
        return super()._text_score(text) - (self.bias if mixed else 0.0)


def multi_swap(twins) -> list[tuple[ZhItem, ZhItem]]:
    """Twins with 2+ swaps whose other gendered characters all agree with the twin."""
    return [(f, m) for f, m, n in twins
            if n >= 2 and not set(f.sentence) & MALE and not set(m.sentence) & FEMALE]


def test_multi_swap_twins_flip_sign_under_an_agreement_scorer(twins):
    """The unmasked swaps stay in the context: the male twin's context is male, the
    female twin's female. A scorer that follows agreement gives b(male twin) > 0 and
    b(female twin) < 0: b = ±bias + hash difference, |hash difference| < 20."""
    pairs = multi_swap(twins)
    assert len(pairs) >= 20
    b = _b(ZhNeutral(topics_k=0), AgreementScorer(bias=100.0), [x for p in pairs for x in p])
    for f, m in pairs:
        assert b[m.id] > 80 and b[f.id] < -80
        assert b[m.id] == pytest.approx(-b[f.id], abs=40)  # ≈ -b(female twin), up to the noise


def test_a_line_separator_inside_a_sentence_is_kept_as_text(tmp_path):
    """JSON allows U+2028 and U+0085 raw in a string; lines end only at \\n, \\r\\n or \\r, and the
    sentence is kept as stored (no normalisation: the SlguSet code is not public to say otherwise)."""
    sentence = "昨天她去\u2028图书馆\u0085借书。"
    path = _jsonl(tmp_path, {**GOOD, "sentence": sentence}, {**GOOD, "id": "c2"})
    items = read_items(path)
    assert [i.sentence for i in items] == [sentence, GOOD["sentence"]] and [i.line for i in items] == [1, 2]


def test_a_json_id_or_source_of_zero_is_kept(tmp_path):
    # issue 46 (the `x or default` idiom): str(row.get("id") or "") made a JSON id 0 the line's id, "line-1"
    items = read_items(_jsonl(tmp_path, {**GOOD, "id": 0, "source": 0}, {**GOOD, "id": None}))
    assert [(i.id, i.source) for i in items] == [("0", "0"), ("line-2", "corpus.txt:4")]
