"""``run_pipeline``: mine gender-neutral candidate sentences from a raw Chinese corpus,
as SlguSet did (Zhao et al. 2021 §3), resumably.

Layout of ``out_dir``::

    stages/<stage>/shard-NNNNN.jsonl (+ .manifest.json)   match, rules, segment, names
    stages/<stage>.json                                    per-stage counts
    stages/dedupe/candidates.jsonl (+ manifest)            global duplicate removal
    stages/name_eval/score.jsonl, stages/agreement/labels.jsonl (when asked for)
    annotation/annotator_N.csv                             with ``export_annotation``
    candidates.jsonl  dataset_card.json  dataset_card.md
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from biasatlas.hashing import sha256_file
from biasatlas.mining.agreement import agreement_report, unanimous_neutral
from biasatlas.mining.annotate import export_annotation, import_annotations
from biasatlas.mining.card import build_card, character_stats, read_vocab, render_markdown
from biasatlas.atomic import atomic_write
from biasatlas.outputs import check_output
from biasatlas.mining.checkpoint import Step, load_done, refuse_links, run_step
from biasatlas.mining.drops import emptying_rules
from biasatlas.mining.engines import EngineName, make_engine
from biasatlas.mining.filters import RuleParams, dedupe_key
from biasatlas.mining.lexicon import DEFAULT_PAIRS, KeywordPair, Lexicon
from biasatlas.mining.name_eval import evaluate_name_filter, read_bio_sentences
from biasatlas.mining.records import Candidate, iter_rows, read_candidates, write_row
from biasatlas.mining.sources import Format, plan_shards
from biasatlas.mining.stages import SHARD_STAGES, MiningParams, ShardTask, resources, run_shard
from biasatlas.textfiles import json_lines_text

Progress = Callable[[str, int, int], None]
#: The folders a run writes below its own (the layout above): none may be reached through a link.
OUTPUT_FOLDERS = ("stages", "annotation")
Warn = Callable[[str], None]
#: The files a run writes at the top of its folder (the layout above).
FINAL_FILES = ("candidates.jsonl", "dataset_card.json", "dataset_card.md")


@dataclass(frozen=True)
class MiningConfig:
    """Settings of a mining run; lengths are in characters."""

    pairs: tuple[KeywordPair, ...] = DEFAULT_PAIRS
    fmt: Format = "text"
    text_field: str = "text"
    simplify: bool = True
    min_len: int = 10
    max_len: int = 128
    workers: int = 1
    engine: EngineName = "local"
    shard_bytes: int = 64 << 20
    vocab: Path | None = None
    export_annotation: bool = False
    annotators: int = 3
    annotations: tuple[Path, ...] = ()
    name_gold: Path | None = None

    def __post_init__(self) -> None:
        if self.fmt not in ("text", "jsonl"):
            raise ValueError(f"fmt must be 'text' or 'jsonl', got {self.fmt!r}")
        if self.annotators < 2:
            raise ValueError(f"annotators must be at least 2, got {self.annotators}")
        Lexicon(self.pairs)

    def params(self) -> MiningParams:
        return MiningParams(self.pairs, self.fmt, self.text_field, self.simplify,
                            RuleParams(self.min_len, self.max_len))


@dataclass(frozen=True)
class MiningReport:
    out_dir: Path
    candidates_path: Path
    card_json: Path
    card_markdown: Path
    n_candidates: int
    stages_run: tuple[str, ...]
    stages_skipped: tuple[str, ...]
    card: dict = field(repr=False)
    #: One line per rule that dropped every sentence left to it (:mod:`.drops`).
    warnings: tuple[str, ...] = ()


def _sum_counts(manifests: Sequence[dict]) -> dict:
    total: Counter = Counter()
    dropped: Counter = Counter()
    by_pair: Counter = Counter()
    for manifest in manifests:
        counts = manifest["counts"]
        total.update({k: v for k, v in counts.items() if isinstance(v, int)})
        dropped.update(counts.get("dropped", {}))
        by_pair.update(counts.get("out_by_pair", {}))
    return {**total, "dropped": dict(dropped), "out_by_pair": dict(by_pair)}


class _Run:
    """State of one ``run_pipeline`` call: which steps ran and which were reused."""

    def __init__(self, out_dir: Path, config: MiningConfig, progress: Progress | None):
        self.out, self.config, self.params = out_dir, config, config.params()
        self.progress = progress or (lambda stage, done, total: None)
        self.ran: list[str] = []
        self.skipped: list[str] = []

    def sharded_stage(self, engine, stage: str, inputs: list,
                      previous: list[dict] | None) -> tuple[list[dict], dict]:
        folder = self.out / "stages" / stage
        tasks = []
        for i, item in enumerate(inputs):
            identity = item.identity() if previous is None else previous[i]["output"]["sha256"]
            source_input = {"source": item} if previous is None else {
                "input": str(self.out / "stages" / SHARD_STAGES[SHARD_STAGES.index(stage) - 1]
                             / f"shard-{i:05d}.jsonl")}
            tasks.append(ShardTask(stage, i, str(folder / f"shard-{i:05d}.jsonl"), identity,
                                   self.params, **source_input))
        manifests: list[dict | None] = [load_done(t.step()) for t in tasks]
        todo = [i for i, m in enumerate(manifests) if m is None]
        self.progress(stage, len(tasks) - len(todo), len(tasks))
        for done, (k, manifest) in enumerate(engine.map(run_shard, [tasks[i] for i in todo]), 1):
            manifests[todo[k]] = manifest
            self.progress(stage, len(tasks) - len(todo) + done, len(tasks))
        (self.ran if todo else self.skipped).append(stage)
        filled = cast(list[dict], manifests)  # the loop above filled every slot that was None
        summary = _sum_counts(filled)
        atomic_write(folder.with_suffix(".json"),
                          json.dumps({"stage": stage, "shards": len(tasks), "counts": summary,
                                      "done": True}, ensure_ascii=False, indent=1))
        return filled, summary

    def step(self, step: Step, produce) -> dict:
        manifest = load_done(step)
        if manifest is None:
            manifest = run_step(step, produce)
            self.ran.append(step.stage)
        else:
            self.skipped.append(step.stage)
        return manifest


def _dedupe(paths: list[Path], pair_of: dict[str, str]):
    def produce(writer) -> dict:
        seen: set[str] = set()
        counts: Counter = Counter()
        by_pair: Counter = Counter()
        for path in paths:
            for row in iter_rows(path):
                counts["in"] += 1
                key = dedupe_key(row["text"])
                if key in seen:
                    continue
                seen.add(key)
                pair = pair_of[row["keyword"]]
                cand = Candidate(key[:16], row["text"], row["keyword"], row["offset"], pair,
                                 f"{row['source']}:{row['line']}")
                write_row(writer, cand.to_row())
                by_pair[pair] += 1
        return {"in": counts["in"], "out": len(seen),
                "dropped": {"duplicate": counts["in"] - len(seen)}, "out_by_pair": dict(by_pair)}
    return produce


def run_pipeline(corpus_paths: Sequence[str | Path], out_dir: str | Path,
                 config: MiningConfig | None = None,
                 progress: Progress | None = None, warn: Warn | None = None) -> MiningReport:
    """Mine ``candidates.jsonl`` and a dataset card from the corpus files into ``out_dir``.

    Finished steps (same inputs and parameters) are reused; an interrupted one reruns. Each
    rule that dropped every sentence left to it is one line to ``warn`` (and in the card).
    """
    config = config or MiningConfig()
    out = Path(out_dir)
    inputs = [Path(p) for p in (*corpus_paths, *config.annotations, config.vocab, config.name_gold) if p is not None]
    check_output(out, "mining", inputs=inputs, writes=FINAL_FILES)  # no input, no other kind of output replaced
    refuse_links(out, OUTPUT_FOLDERS)  # before anything is written or removed below out
    run = _Run(out, config, progress)
    shards = list(plan_shards([str(p) for p in corpus_paths], config.shard_bytes))
    lexicon = Lexicon(config.pairs)
    pair_of = {k: lexicon.pair_of(k) for k in lexicon.keywords}
    engine = make_engine(config.engine, config.workers)
    stage_counts: dict[str, dict] = {}
    try:
        previous: list[dict] | None = None
        for stage in SHARD_STAGES:
            previous, stage_counts[stage] = run.sharded_stage(engine, stage, shards, previous)
    finally:
        engine.close()
    names_out = [out / "stages" / "names" / f"shard-{i:05d}.jsonl" for i in range(len(shards))]
    dedupe_step = Step("dedupe", 1, out / "stages" / "dedupe" / "candidates.jsonl",
                       [m["output"]["sha256"] for m in previous or ()])
    dedupe = run.step(dedupe_step, _dedupe(names_out, pair_of))
    stage_counts["dedupe"] = dedupe["counts"]
    candidates = read_candidates(dedupe_step.output)
    extra = {"corpus": [str(p) for p in corpus_paths], "config": _config_dict(config),
             "annotated": bool(config.annotations)}
    if config.name_gold is not None:
        extra["name_filter"] = _name_eval(run, Path(config.name_gold))
    if config.export_annotation:
        _export(run, candidates, dedupe["output"]["sha256"])
    if config.annotations:
        kept, extra["agreement"], stage_counts["annotation"] = _agreement(
            run, candidates, dedupe["output"]["sha256"])
        candidates = [c for c in candidates if c.id in kept]
    warnings = emptying_rules(stage_counts, config.params().rules)
    if warnings:
        extra["warnings"] = list(warnings)  # only then: a card without any stays as it was
    if warn is not None:
        for line in warnings:
            warn(line)
    return _finish(run, candidates, stage_counts, extra, lexicon)


def _config_dict(config: MiningConfig) -> dict:
    return {"pairs": [p.label for p in config.pairs], "fmt": config.fmt,
            "text_field": config.text_field, "simplify": config.simplify,
            "min_len": config.min_len, "max_len": config.max_len,
            "shard_bytes": config.shard_bytes}


def _name_eval(run: _Run, gold: Path) -> dict:
    step = Step("name_eval", 1, run.out / "stages" / "name_eval" / "score.jsonl",
                {"gold": str(gold), "sha256": sha256_file(gold)})

    def produce(writer) -> dict:
        score = evaluate_name_filter(read_bio_sentences(gold),
                                     resources(run.params).pos_tokenizer).to_dict()
        write_row(writer, score)
        return score
    return {**run.step(step, produce)["counts"], "gold": gold.name}


def _export(run: _Run, candidates: list[Candidate], dedupe_sha: str) -> None:
    folder = run.out / "annotation"
    step = Step("annotation_export", 1, folder / "export.jsonl",
                {"candidates": dedupe_sha, "annotators": run.config.annotators})

    def produce(writer) -> dict:
        paths = export_annotation(candidates, folder, run.config.annotators)
        for c in candidates:
            write_row(writer, {"id": c.id})
        return {"files": [p.name for p in paths], "items": len(candidates)}
    run.step(step, produce)


def _agreement(run: _Run, candidates: list[Candidate], dedupe_sha: str):
    paths = [Path(p) for p in run.config.annotations]
    step = Step("agreement", 1, run.out / "stages" / "agreement" / "labels.jsonl",
                {"candidates": dedupe_sha, "files": [[str(p), sha256_file(p)] for p in paths]})
    pair_of = {c.id: c.pair for c in candidates}

    def produce(writer) -> dict:
        labels = import_annotations(paths, list(pair_of))
        kept = unanimous_neutral(labels)
        for cid in pair_of:
            write_row(writer, {"id": cid, "labels": [int(r[cid]) for r in labels],
                               "kept": cid in kept})
        return {"in": len(pair_of), "out": len(kept),
                "dropped": {"not_unanimous": len(pair_of) - len(kept)},
                "report": agreement_report(labels, pair_of)}
    counts = run.step(step, produce)["counts"]
    kept_ids = {row["id"] for row in iter_rows(step.output) if row["kept"]}
    return kept_ids, counts["report"], {k: v for k, v in counts.items() if k != "report"}


def _finish(run: _Run, candidates: list[Candidate], stage_counts: dict, extra: dict,
            lexicon: Lexicon) -> MiningReport:
    out = run.out
    vocab = read_vocab(run.config.vocab) if run.config.vocab else None
    extra["characters"] = character_stats(candidates, vocab)
    card = build_card(stage_counts, candidates, [p.label for p in lexicon.pairs], extra)
    target = out / "candidates.jsonl"
    atomic_write(target, json_lines_text((c.to_row() for c in candidates), separators=(",", ":")))
    atomic_write(out / "dataset_card.json", json.dumps(card, ensure_ascii=False, indent=1))
    atomic_write(out / "dataset_card.md", render_markdown(card))
    return MiningReport(out, target, out / "dataset_card.json", out / "dataset_card.md",
                        len(candidates), tuple(run.ran), tuple(run.skipped), card,
                        tuple(extra.get("warnings", ())))


__all__ = ["MiningConfig", "MiningReport", "run_pipeline"]
