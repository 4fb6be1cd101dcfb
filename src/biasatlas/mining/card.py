"""The dataset card of a mining run, as JSON and as Markdown.

It reports what SlguSet reports (Zhao et al. 2021 §3): sentences per stage and per
keyword pair, distinct characters, and their coverage of a tokenizer's vocabulary (the
paper: 4,220 characters = 19.97 % of bert-base-chinese's 21,128 entries).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from biasatlas.errors import DataError
from biasatlas.mining.records import Candidate


def read_vocab(path: Path) -> set[str]:
    """A WordPiece ``vocab.txt``: one entry per line."""
    try:
        with open(path, encoding="utf-8") as handle:
            return {line.rstrip("\r\n") for line in handle if line.rstrip("\r\n")}
    except UnicodeDecodeError as exc:
        raise DataError("vocabulary is not UTF-8", path=path) from exc


def character_stats(candidates: Sequence[Candidate], vocab: set[str] | None) -> dict:
    """Distinct non-space characters; with a vocabulary, how many of them it holds and
    what share of the vocabulary they cover (the paper's ratio is distinct / vocab size)."""
    chars = {c for cand in candidates for c in cand.sentence if not c.isspace()}
    stats: dict = {"distinct_characters": len(chars)}
    if vocab is not None:
        in_vocab = len(chars & vocab)
        stats.update(vocab_size=len(vocab), characters_in_vocab=in_vocab,
                     vocab_coverage=in_vocab / len(vocab) if vocab else None,
                     distinct_over_vocab=len(chars) / len(vocab) if vocab else None)
    return stats


def build_card(stage_counts: dict[str, dict], candidates: Sequence[Candidate],
               pairs: Sequence[str], extra: dict) -> dict:
    by_pair = Counter(c.pair for c in candidates)
    by_keyword = Counter(c.keyword for c in candidates)
    stages = {stage: _in_order(counts, pairs) for stage, counts in stage_counts.items()}
    return {"stages": stages, "final_sentences": len(candidates),
            "final_by_pair": {p: by_pair.get(p, 0) for p in pairs},
            "final_by_keyword": dict(sorted(by_keyword.items())), **extra}


def _in_order(counts: dict, pairs: Sequence[str]) -> dict:
    """A stage's counts with its per-pair counts in the lexicon's order and its drop reasons
    sorted. Workers count in the order they meet pairs, and a sentence's pairs are a set
    whose order follows each process's string hashing: the same corpus gave cards whose
    keys came in another order with another number of workers."""
    out = dict(counts)
    if isinstance(counts.get("out_by_pair"), dict):
        rank = {pair: i for i, pair in enumerate(pairs)}
        out["out_by_pair"] = dict(sorted(counts["out_by_pair"].items(),
                                         key=lambda kv: (rank.get(kv[0], len(rank)), kv[0])))
    if isinstance(counts.get("dropped"), dict):
        out["dropped"] = dict(sorted(counts["dropped"].items()))
    return out


def _fmt(value) -> str:
    if value is None:
        return "–"
    return f"{value:.4f}" if isinstance(value, float) else str(value)


def render_markdown(card: dict) -> str:
    lines = ["# Mined gender-neutral candidate sentences — dataset card", "",
             "Mined as in SlguSet (Zhao et al. 2021); see docs/mining.md for each rule.", "",
             *(f"**Warning:** {w}\n" for w in card.get("warnings", ())),
             "## Stages", "", "| stage | in | out | dropped (reason: count) |", "|---|---|---|---|"]
    for stage, counts in card["stages"].items():
        dropped = ", ".join(f"{k}: {v}" for k, v in sorted(counts.get("dropped", {}).items()))
        lines.append(f"| {stage} | {counts.get('in', '')} | {counts.get('out', '')} | {dropped} |")
    pairs = card["final_by_pair"]
    stages = [s for s in card["stages"] if "out_by_pair" in card["stages"][s]]
    lines += ["", "## Sentences per keyword pair after each stage", "",
              "| pair | " + " | ".join(stages) + " | final |",
              "|---|" + "---|" * (len(stages) + 1)]
    for pair in pairs:
        row = [str(card["stages"][s]["out_by_pair"].get(pair, 0)) for s in stages]
        lines.append(f"| {pair} | " + " | ".join(row) + f" | {pairs[pair]} |")
    lines += ["", "## Characters", ""]
    lines += [f"- {k.replace('_', ' ')}: {_fmt(v)}" for k, v in card["characters"].items()]
    if card.get("name_filter"):
        nf = card["name_filter"]
        lines += ["", "## Person-name filter against gold tags", "",
                  f"Sentence level, {nf['sentences']} sentences of {nf['gold']}: recall "
                  f"{_fmt(nf['recall'])}, precision {_fmt(nf['precision'])} (TP {nf['true_positive']}, "
                  f"FP {nf['false_positive']}, FN {nf['false_negative']}, TN {nf['true_negative']})."]
    if card.get("agreement"):
        lines += _agreement_lines(card["agreement"])
    return "\n".join(lines) + "\n"


def _agreement_lines(report: dict) -> list[str]:
    lines = ["", "## Annotator agreement", "",
             "| subset | items | all agree | Fleiss' kappa | Krippendorff's alpha |",
             "|---|---|---|---|---|"]
    rows = [("overall", report["overall"])]
    rows += [(f"pair {k}", v) for k, v in report["by_keyword_pair"].items()]
    rows += [(f"annotators {k}", v) for k, v in report["by_annotator_pair"].items()]
    for name, a in rows:
        lines.append(f"| {name} | {a['items']} | {_fmt(a['observed'])} | "
                     f"{_fmt(a['fleiss_kappa'])} | {_fmt(a['krippendorff_alpha'])} |")
    return lines
