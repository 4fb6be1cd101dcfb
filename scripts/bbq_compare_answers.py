"""Per item, the answer a BBQ run chose by likelihood beside the one the model wrote (issue 38).

    python scripts/bbq_compare_answers.py LIKELIHOOD_RUN GENERATED_RUN [--items N]

Both are run folders of ``biasatlas run bbq`` on the same items (the second with ``--answers
generated``). Prints, as Markdown: the cross-table of answer kinds (biased, counter, unknown; the
generated side adds *unparsed*), how often the two chose the same option among the items both
answered, and the first ``--items`` rows item by item (gold, each answer, the generated text).
Reads items.jsonl only, as the report does. A KoBBQ run with ``--parser kobbq`` asks each sample 15 times
(5 prompts × 3 orders of its options): each of those rows is set beside its sample's likelihood answer
(its ``sample`` field), and "same option" compares the answers' kinds (the options are shown reordered,
and the unknown one reworded, so their indices and texts differ). An MBBQ run of ``--parser mbbq`` answers
each item once per prompt: ``--prompt K`` picks which (default: its first), matched to the other run by item id.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

KINDS = ("biased", "counter", "unknown", "unparsed", "tie")


def items(run: Path, prompt: int | None = None) -> dict[str, dict]:
    """The run's rows by item id; of a ``--parser mbbq`` run, those of one prompt (``prompt``, else its first)."""
    rows = [json.loads(line) for line in (run / "items.jsonl").read_text(encoding="utf-8").splitlines() if line]
    prompts = sorted({r["prompt"] for r in rows if "item" in r})  # MBBQ's rows (KoBBQ's name their "sample")
    if not prompts:
        return {r["id"]: r for r in rows}
    chosen = prompts[0] if prompt is None else prompt
    print(f"{run}: MBBQ prompt {chosen} (of {', '.join(map(str, prompts))}).\n")
    return {r["item"]: r for r in rows if r["prompt"] == chosen}


def kind(row: dict) -> str:
    if row.get("answer") is not None:
        return str(row["answer"])
    return "unparsed" if row.get("parsed") is False else "tie"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("likelihood", type=Path)
    parser.add_argument("generated", type=Path)
    parser.add_argument("--items", type=int, default=20, help="item rows to print (default 20)")
    parser.add_argument("--prompt", type=int, help="of a --parser mbbq run: which of its prompts (default the first)")
    args = parser.parse_args()
    a, b = items(args.likelihood), items(args.generated, args.prompt)
    of = {i: str(r.get("sample", i)) for i, r in b.items()}  # a generated row's likelihood item
    shared = [i for i in b if of[i] in a]
    print(f"{len(shared)} generated answers with a likelihood answer ({len(set(a) - set(of.values()))} items only in "
          f"the likelihood run, {len(b) - len(shared)} answers only in the generated one).\n")
    table = Counter((kind(a[of[i]]), kind(b[i])) for i in shared)
    print("| likelihood \\ generated | " + " | ".join(KINDS) + " |")
    print("|---" * (len(KINDS) + 1) + "|")
    for k in KINDS[:3] + ("tie",):
        print(f"| {k} | " + " | ".join(str(table[(k, g)]) for g in KINDS) + " |")
    both = [i for i in shared if a[of[i]].get("choice") is not None and b[i].get("choice") is not None]
    same = sum(kind(a[of[i]]) == kind(b[i]) for i in both)
    if both:
        print(f"\nSame option chosen: {same} of {len(both)} items both answered ({100 * same / len(both):.1f} %).\n")
    print("| id | context | gold | likelihood | generated | generated text |")
    print("|---|---|---|---|---|---|")
    for i in shared[: args.items]:
        row = a[of[i]]
        gold = row["options"][row["label"]]
        text = str(b[i].get("generated", "")).replace("\n", "⏎").replace("|", "\\|")[:60]
        print(f"| {i} | {row['context_condition']} | {gold} | {kind(row)} | {kind(b[i])} | {text} |")


if __name__ == "__main__":
    main()
