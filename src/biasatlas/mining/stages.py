"""The per-shard stages of the mining pipeline (Zhao et al. 2021 §3, SlguSet):

``match``   sources → t2s → sentence split → Aho–Corasick keyword strings
``rules``   length bounds, URLs and noise, biological-sex cues
``segment`` jieba: keyword must be a whole word, exactly one, no other gendered word
``names``   person-name filter

Each stage is a pure function of one record (and read-only resources); ``run_shard``
streams a shard through it and writes the kept records and a manifest via
:mod:`checkpoint`. Only sentences holding some keyword string leave ``match``: writing
every sentence of a 10-billion-character corpus would copy it for nothing, and the
manifest still counts them all.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from biasatlas.mining.checkpoint import Step, run_step
from biasatlas.mining.filters import CueFinder, RuleParams, apply_rules
from biasatlas.mining.lexicon import BIO_CUES, DEFAULT_PAIRS, KeywordPair, Lexicon
from biasatlas.mining.match import KeywordMatcher
from biasatlas.mining.names import WordTable, detect_person_name, word_table
from biasatlas.mining.records import Document, Segmented, Sentence, iter_rows, write_row
from biasatlas.mining.segment import build_tokenizer, pos_tagger, segment_sentence, tokenize
from biasatlas.mining.sources import Format, Shard, Simplifier, read_documents
from biasatlas.mining.split import split_sentences

SHARD_STAGES = ("match", "rules", "segment", "names")
STAGE_VERSION = {"match": 1, "rules": 1, "segment": 2, "names": 3}


@dataclass(frozen=True)
class MiningParams:
    """Everything the shard stages depend on (hashable: workers cache resources by it)."""

    pairs: tuple[KeywordPair, ...] = DEFAULT_PAIRS
    fmt: Format = "text"
    text_field: str = "text"
    simplify: bool = True
    rules: RuleParams = field(default_factory=RuleParams)
    bio_cues: tuple[str, ...] = BIO_CUES

    def for_stage(self, stage: str) -> dict:
        """The parameters a stage's output depends on: a change reruns that stage only."""
        if stage == "match":
            return {"pairs": [p.label for p in self.pairs], "fmt": self.fmt,
                    "text_field": self.text_field, "simplify": self.simplify}
        if stage == "rules":
            return {**asdict(self.rules), "bio_cues": list(self.bio_cues)}
        return {"pairs": [p.label for p in self.pairs]}


@dataclass(frozen=True)
class ShardTask:
    """One stage over one shard: read ``source`` (match) or ``input``, write ``output``."""

    stage: str
    index: int
    output: str
    identity: object
    params: MiningParams
    source: Shard | None = None
    input: str | None = None

    def step(self) -> Step:
        return Step(self.stage, STAGE_VERSION[self.stage], Path(self.output), self.identity,
                    self.params.for_stage(self.stage))


class Resources:
    """Per-process resources, built on first use (jieba takes about a second to load)."""

    def __init__(self, params: MiningParams) -> None:
        self.params = params
        self.lexicon = Lexicon(params.pairs)
        self.matcher = KeywordMatcher(self.lexicon.keywords)
        self.simplify = Simplifier() if params.simplify else (lambda text: text)
        self.bio = CueFinder(params.bio_cues)
        self.genders = self.lexicon.gender_map()
        self.keywords = frozenset(self.lexicon.keywords)
        self.pair_of = {k: self.lexicon.pair_of(k) for k in self.lexicon.keywords}
        self._tokenizer: Any = None
        self._pos: Any = None
        self._words: WordTable | None = None

    @property
    def tokenizer(self):
        if self._tokenizer is None:
            self._tokenizer = build_tokenizer(self.lexicon)
        return self._tokenizer

    @property
    def pos_tokenizer(self):
        if self._pos is None:
            self._pos = pos_tagger(self.tokenizer)
        return self._pos

    @property
    def words(self) -> WordTable:
        """jieba's dictionary as the name rules read it (loads the POS tagger)."""
        if self._words is None:
            self._words = word_table(self.pos_tokenizer)
        return self._words


@cache
def resources(params: MiningParams) -> Resources:
    return Resources(params)


def match_document(doc: Document, res: Resources) -> tuple[list[Sentence], int]:
    """Sentences of ``doc`` holding a keyword string, and how many sentences it has."""
    text = res.simplify(doc.text)
    if not res.matcher.any(text):  # most documents: skip the per-sentence work
        return [], len(split_sentences(text))
    sentences = split_sentences(text)
    kept = [Sentence(doc.source, doc.line, s, hits)
            for s in sentences if (hits := res.matcher.find(s))]
    return kept, len(sentences)


def rules_sentence(sentence: Sentence, res: Resources) -> Sentence | str:
    reason = apply_rules(sentence.text, res.params.rules, res.bio)
    return sentence if reason is None else reason


def segment_record(sentence: Sentence, res: Resources) -> Segmented | str:
    return segment_sentence(sentence, res.tokenizer, res.genders, res.keywords)


def names_record(record: Segmented, res: Resources) -> Segmented | str:
    tokens = tokenize(res.pos_tokenizer, record.text)
    reason = detect_person_name(record.text, tokens, res.words, record.keyword)
    return record if reason is None else reason


def _pairs_of(record, res: Resources) -> set[str]:
    if isinstance(record, Segmented):
        return {res.pair_of[record.keyword]}
    return {res.pair_of[h.keyword] for h in record.hits}


def _run_match(task: ShardTask, res: Resources, writer) -> dict:
    counts: Counter = Counter()
    by_pair: Counter = Counter()
    if task.source is None:
        raise ValueError(f"the match stage reads a corpus shard; task {task.index} has none")
    for doc in read_documents(task.source, task.params.fmt, task.params.text_field):
        kept, n_sentences = match_document(doc, res)
        counts.update(documents=1, characters=len(doc.text), sentences=n_sentences,
                      out=len(kept))
        for sentence in kept:
            by_pair.update(_pairs_of(sentence, res))
            write_row(writer, sentence.to_row())
    counts["in"] = counts["sentences"]
    dropped = {"no_keyword": counts["sentences"] - counts["out"]}
    return {**counts, "dropped": dropped, "out_by_pair": dict(by_pair)}


_FILTERS: dict[str, tuple[type[Sentence] | type[Segmented], Callable[..., Any]]] = {
    "rules": (Sentence, rules_sentence), "segment": (Sentence, segment_record),
    "names": (Segmented, names_record)}


def _run_filter(task: ShardTask, res: Resources, writer) -> dict:
    record_type, function = _FILTERS[task.stage]
    counts: Counter = Counter()
    dropped: Counter = Counter()
    by_pair: Counter = Counter()
    if task.input is None:
        raise ValueError(f"the {task.stage} stage reads the previous stage; task {task.index} has no input")
    for row in iter_rows(Path(task.input)):
        counts["in"] += 1
        result = function(record_type.from_row(row), res)
        if isinstance(result, str):
            dropped[result] += 1
            continue
        counts["out"] += 1
        by_pair.update(_pairs_of(result, res))
        write_row(writer, result.to_row())
    return {"in": counts["in"], "out": counts["out"], "dropped": dict(dropped),
            "out_by_pair": dict(by_pair)}


def run_shard(task: ShardTask) -> dict:
    """Run one stage over one shard and return its manifest (the worker entry point)."""
    res = resources(task.params)
    runner = _run_match if task.stage == "match" else _run_filter
    return run_step(task.step(), lambda writer: runner(task, res, writer))
