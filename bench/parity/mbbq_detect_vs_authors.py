"""Parity of ``--parser mbbq`` with the MBBQ authors' own answer detection (issue 38).

    git clone https://github.com/Veranep/MBBQ MBBQ     # @ adaa401, or any copy of mbbq.py and answer_detection.py
    python bench/parity/mbbq_detect_vs_authors.py MBBQ [--per-language 2000] [--seed 38] [RUN ...]

Our rule reads the forms, phrases and prompts from that folder's ``answer_detection.py`` as a run does
(:mod:`biasatlas.benchmarks.bbq.generated.mbbq_upstream`); this script (never the package) also runs
the file to get theirs.
Runs their ``detect_answer`` and ``score_answer`` (``mbbq.py``: only those functions and the two helpers they
call, taken from the file by ``ast``, so the script needs none of its model imports) beside ours
(:func:`biasatlas.benchmarks.bbq.generated.mbbq.detect`, :func:`~.mbbq.author_score`) on

- every generated answer of the given ``--parser mbbq`` run folders (their items.jsonl), and
- a seeded synthetic corpus per language: answers of MBBQ items put together from the pieces the rule
  looks for (the phrase tables of every language, letter forms, option texts, their last words, stray
  words and punctuation), so each step and its order is exercised.

Their NaN, ``None`` and ``"all"`` are one outcome (undetected), as ``pd.to_numeric(errors="coerce")``
makes them. Prints, per source and language, the answers compared and those that agree, then the first
disagreements.
"""

from __future__ import annotations

import argparse
import ast
import json
import random
import string
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))

from biasatlas.benchmarks.bbq import BBQ  # noqa: E402
from biasatlas.benchmarks.bbq.generated import mbbq_upstream  # noqa: E402
from biasatlas.benchmarks.bbq.data import LANGUAGE  # noqa: E402
from biasatlas.benchmarks.bbq.generated.mbbq import author_score, detect, stereotyped  # noqa: E402
from biasatlas.benchmarks.bbq.generated.mbbq_upstream import Tables  # noqa: E402

THEIRS = ("auto_detect", "check_all", "detect_answer", "score_answer")


def their_functions(folder: Path) -> dict[str, Any]:
    """Their tables (``answer_detection.py``, data only) and the four functions of ``mbbq.py``."""
    space: dict[str, Any] = {"string": string, "np": np}
    exec(compile((folder / "answer_detection.py").read_text(encoding="utf-8"), "answer_detection.py", "exec"), space)
    tree = ast.parse((folder / "mbbq.py").read_text(encoding="utf-8"))
    kept = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name in THEIRS]
    exec(compile(ast.Module(body=kept, type_ignores=[]), "mbbq.py", "exec"), space)
    return space


def their_detected(space: dict[str, Any], options: list[str], text: str, unknown: int, language: str) -> int | None:
    found = space["detect_answer"](list(options), text, unknown, language)
    return int(found) if found in (0, 1, 2, "0", "1", "2") else None


def synthetic(items: list, language: str, n: int, rng: random.Random, tables: Tables) -> list[tuple[Any, str]]:
    """``n`` answers to random items, each a random sequence of the pieces the rule reads (the language's
    phrases as our reader of their file gives them: English, English extras, translations, own extras)."""
    phrases = [*tables.before[language], *tables.after[language], *tables.unknown[language]]
    letters = [form for forms in tables.forms for form in forms]
    junk = ["I", "think", "a", "the", "person", "is", ".", ",", "\n", ":", "(", ")", "Sure!", "B", "c", "zzz"]
    out = []
    for _ in range(n):
        e = rng.choice(items)
        pieces: list[str] = []
        for _ in range(rng.randint(1, 4)):
            kind = rng.random()
            if kind < 0.3:
                pieces.append(rng.choice(phrases))
            elif kind < 0.55:
                pieces.append(rng.choice(letters))
            elif kind < 0.8:
                option = rng.choice(e.options)
                pieces.append(rng.choice([option, option.lower(), option.split()[-1].capitalize(), option + "."]))
            else:
                pieces.append(rng.choice(junk))
        out.append((e, rng.choice([" ", "", "\n"]).join(pieces) + rng.choice(["", ".", " ", "\n", ")"])))
    return out


def compare(space: dict[str, Any], cases: list[tuple[Any, str]], language: str, tables: Tables
            ) -> tuple[int, list[str], str]:
    """(answers agreeing on the detected option and the per-answer score, the disagreements, how often
    their rule found unknown, a person, nothing)."""
    same, bad, found = 0, [], {"unknown": 0, "person": 0, "undetected": 0}
    for e, text in cases:
        ours = detect(e.options, text, e.unknown, language, tables)
        ours = ours if isinstance(ours, int) else None
        theirs = their_detected(space, list(e.options), text, e.unknown, language)
        found["undetected" if theirs is None else "unknown" if theirs == e.unknown else "person"] += 1
        target = stereotyped(e)
        their_score = space["score_answer"](np.nan if theirs is None else theirs, e.unknown, target)
        their_score = None if isinstance(their_score, float) and np.isnan(their_score) else int(their_score)
        if ours == theirs and author_score(e, ours) == their_score:
            same += 1
        else:
            bad.append(f"{language} {e.id}: {text!r}: ours {ours}, theirs {theirs}")
    return same, bad, " / ".join(str(v) for v in found.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mbbq", type=Path, help="a folder with the authors' mbbq.py and answer_detection.py")
    parser.add_argument("runs", type=Path, nargs="*", help="--parser mbbq run folders")
    parser.add_argument("--per-language", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=38)
    args = parser.parse_args()
    space = their_functions(args.mbbq)
    # ours reads the same file the way a run does (ast, literals only); theirs ran it above
    tables = mbbq_upstream.read(args.mbbq / "answer_detection.py")
    pinned = "the pinned bytes" if tables.sha256 == mbbq_upstream.DETECTION.sha256 else "NOT the pinned bytes"
    print(f"answer_detection.py sha256 {tables.sha256} ({pinned})\n")
    rows, bad = [], []
    for run in args.runs:
        config = json.loads((run / "config.json").read_text(encoding="utf-8"))
        dataset = config["benchmark"]["dataset"]
        language = LANGUAGE[dataset]
        items = {e.id: e for e in BBQ(dataset=dataset).load()}
        cases = [(items[r["item"]], r["generated"]) for r in map(json.loads, (run / "items.jsonl").open())]
        same, wrong, found = compare(space, cases, language, tables)
        rows.append((f"run {run.name}", language, len(cases), same, found))
        bad += wrong
    rng = random.Random(args.seed)
    for language in ("en", "nl", "es", "tr"):
        items = [e for e in BBQ(dataset=f"mbbq-{language}", control=False).load() if e.target is not None]
        cases = synthetic(items, language, args.per_language, rng, tables)
        same, wrong, found = compare(space, cases, language, tables)
        rows.append(("synthetic", language, len(cases), same, found))
        bad += wrong
    print("| source | language | answers | same detected option and score | theirs: unknown / person / undetected |\n"
          "|---|---|---:|---:|---:|")
    for source, language, n, same, found in rows:
        print(f"| {source} | {language} | {n} | {same} | {found} |")
    print(f"\n{len(bad)} disagreements" + (":" if bad else "."))
    for line in bad[:20]:
        print(" ", line)


if __name__ == "__main__":
    main()
