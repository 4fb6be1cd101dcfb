"""Rows, de-duplication and length-sorted batching shared by the torch scorers.

A *row* is one model input (token ids, masks already placed) and the positions whose
log-softmax we read. Scorers turn probes into ``(row, targets)`` requests; this module
computes each distinct row once, in length-sorted batches, and hands back one summed
log-probability per request, in request order.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Row:
    """One model input and the positions to read (logits index)."""

    ids: tuple[int, ...]
    positions: tuple[int, ...]


Request = tuple[Row, tuple[int, ...]]  # a row and the target token id at each position
LogprobFn = Callable[[list[Row]], Any]  # rows -> tensor [Σ positions, V] of log-probabilities


def chunks(items: Sequence[T], size: int) -> list[list[T]]:
    return [list(items[i:i + size]) for i in range(0, len(items), size)]


def logprob_sums(requests: list[Request], batch_size: int, logprobs: LogprobFn,
                 counters: dict[str, int]) -> list[float]:
    """For each (row, targets): Σ_j logprobs(row)[pos_j, target_j]; each row computed once."""
    wanted: dict[Row, set[tuple[int, ...]]] = defaultdict(set)
    for row, targets in requests:
        wanted[row].add(targets)
    counters["rows_requested"] = counters.get("rows_requested", 0) + len(requests)
    results: dict[tuple[Row, tuple[int, ...]], float] = {}
    rows = sorted(wanted, key=lambda r: len(r.ids))  # length-sorted: little padding
    for batch in chunks(rows, batch_size):
        results.update(_gather(batch, wanted, logprobs(batch)))
        counters["rows_computed"] = counters.get("rows_computed", 0) + len(batch)
        counters["batches"] = counters.get("batches", 0) + 1
    return [results[(row, targets)] for row, targets in requests]


def _gather(rows: list[Row], wanted: dict[Row, set[tuple[int, ...]]], logp: Any) -> dict:
    import torch

    out, start = {}, 0
    for row in rows:
        k = len(row.positions)
        block = logp[start:start + k]  # [k, V]
        for targets in wanted[row]:
            picked = block[torch.arange(k), torch.tensor(targets, dtype=torch.long)]
            out[(row, targets)] = float(picked.double().sum())
        start += k
    return out


def answer_slots(probes: Sequence[Any], tick: Callable[[int], None],
                 slot_request: Callable[[str, str, str], tuple[Request, int]],
                 sums: Callable[[list[Request]], list[float]], chunk: int) -> list[Any]:
    """Slot answers: one request per filler, summed log-probabilities, token counts.

    ``slot_request(left, filler, right)`` is the scorer's own reading of a filler (masked
    row, or filled-in sentence) and returns the request and the filler's token count.
    """
    return answer_options(probes, tick, lambda p: [slot_request(p.left, f, p.right)
                                                   for f in p.fillers], sums, chunk)


def answer_options(probes: Sequence[Any], tick: Callable[[int], None],
                   requests_of: Callable[[Any], list[tuple[Any, int]]],
                   sums: Callable[[list[Any]], list[float]], chunk: int) -> list[Any]:
    """One :class:`SlotAnswer` per probe from its options' requests (fillers or contexts).

    ``requests_of(probe)`` gives one ``(request, n_tokens)`` per option; the requests of a
    whole chunk go to ``sums`` together, so rows are batched across probes.
    """
    from ..probes import SlotAnswer

    answers = []
    for group in chunks(probes, chunk):
        plans = [requests_of(p) for p in group]
        values = iter(sums([req for plan in plans for req, _ in plan]))
        for probe, plan in zip(group, plans):
            answers.append(SlotAnswer(probe.id, tuple(next(values) for _ in plan),
                                      tuple(n for _, n in plan)))
        tick(len(group))
    return answers


def pad_rows(rows: list[Row], pad_id: int) -> tuple[Any, Any, Any, Any]:
    """Right-padded ids [B, L], attention mask [B, L], and (batch, position) index vectors."""
    import torch

    width = max(len(r.ids) for r in rows)
    ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
    attention = torch.zeros((len(rows), width), dtype=torch.long)
    for i, row in enumerate(rows):
        ids[i, : len(row.ids)] = torch.tensor(row.ids)
        attention[i, : len(row.ids)] = 1
    b_idx = torch.tensor([i for i, r in enumerate(rows) for _ in r.positions], dtype=torch.long)
    p_idx = torch.tensor([p for r in rows for p in r.positions], dtype=torch.long)
    return ids, attention, b_idx, p_idx
