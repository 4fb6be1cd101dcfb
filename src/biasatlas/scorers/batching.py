"""Rows, de-duplication and length-sorted batching shared by the torch scorers.

A *row* is one model input (token ids, masks already placed) and the positions whose
log-softmax we read. Scorers turn probes into ``(row, targets)`` requests, grouped into
:class:`~biasatlas.scorers.base.Job` s (:func:`slot_jobs`, :func:`option_jobs`); this module
computes each distinct row once, in length-sorted batches, and hands back one summed
log-probability per request, in request order.

Two engines share that contract. :func:`logprob_sums` asks the scorer for the whole
vocabulary's log-probabilities at every read position (``[M, V]``) and picks the targets
here. :func:`target_logprob_sums` asks only for the ``M`` target log-probabilities
(:class:`Picks`), so a scorer can reduce over the vocabulary on its device, and cuts
batches by a padded-token budget (:func:`token_batches`) as well as by rows.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

from ..probes import Answer, SlotAnswer
from .base import Job

T = TypeVar("T")


@dataclass(frozen=True)
class Row:
    """One model input and the positions to read (logits index)."""

    ids: tuple[int, ...]
    positions: tuple[int, ...]


Request = tuple[Row, tuple[int, ...]]  # a row and the target token id at each position
LogprobFn = Callable[[list[Row]], Any]  # rows -> tensor [Σ positions, V] of log-probabilities


@dataclass(frozen=True)
class Picks:
    """The log-probabilities one batch must return: value ``k`` is
    ``log P(target[k] | rows[row[k]], read at position[k])``."""

    row: list[int]
    position: list[int]
    target: list[int]


TargetFn = Callable[[list[Row], Picks], Any]  # rows, picks -> [len(picks.row)] log-probabilities


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


def token_batches(rows: Sequence[Row], max_rows: int, max_tokens: int,
                  overhead: int) -> list[list[Row]]:
    """Length-sorted ``rows`` cut into contiguous batches of ≤ ``max_rows`` rows and
    ≤ ``max_tokens`` padded tokens (rows × longest row; a longer row goes alone), chosen
    to minimise Σ over batches of ``overhead`` + padded tokens.

    Why: a right-padded batch costs rows × its longest row, so padding is paid like real
    tokens; a forward pass also has a fixed cost (``overhead``, in tokens): it streams
    every weight from memory and runs Python per layer — 30 ms for SmolLM2-135M on 2 CPU
    cores, the arithmetic of ~30 tokens. Cutting at a fixed row count paid 20 % (all 200
    CrowS-Pairs sentences at once) to 73 % (the pipeline's 20-sentence chunks) padding;
    this pays 4–15 %. The token cap keeps a batch's activations in cache on a CPU (and in
    memory on a GPU). An exact dynamic programme over the sorted rows: O(rows × max_rows).
    """
    ordered = sorted(rows, key=lambda r: len(r.ids))
    cost = [0.0] + [float("inf")] * len(ordered)  # cost[j]: best cut of ordered[:j]
    begin = [0] * (len(ordered) + 1)  # ordered[begin[j]:j] is that cut's last batch
    for j in range(1, len(ordered) + 1):
        longest = len(ordered[j - 1].ids)  # sorted: the last row is the batch's longest
        for size in range(1, min(max_rows, j) + 1):
            if size > 1 and size * longest > max_tokens:
                break
            total = cost[j - size] + overhead + size * longest
            if total < cost[j]:
                cost[j], begin[j] = total, j - size
    batches, j = [], len(ordered)
    while j:
        batches.append(ordered[begin[j]:j])
        j = begin[j]
    return batches[::-1]


def target_logprob_sums(requests: list[Request], batches: Callable[[list[Row]], list[list[Row]]],
                        logprobs: TargetFn, counters: dict[str, int]) -> list[float]:
    """For each (row, targets): Σ_j log P(target_j at pos_j); each row computed once.

    ``batches`` cuts the distinct rows (e.g. :func:`token_batches`); ``logprobs(rows,
    picks)`` returns one log-probability per pick, so nothing vocabulary-sized leaves the
    scorer. A row asked with several target tuples is computed once, read once per tuple.
    """
    wanted: dict[Row, list[tuple[int, ...]]] = defaultdict(list)
    for row, targets in requests:
        if targets not in wanted[row]:
            wanted[row].append(targets)
    counters["rows_requested"] = counters.get("rows_requested", 0) + len(requests)
    results: dict[tuple[Row, tuple[int, ...]], float] = {}
    for batch in batches(list(wanted)):
        keys = [(row, targets) for row in batch for targets in wanted[row]]
        index = {row: i for i, row in enumerate(batch)}
        picks = Picks([index[row] for row, targets in keys for _ in targets],
                      [p for row, _ in keys for p in row.positions],
                      [t for _, targets in keys for t in targets])
        values = iter(_as_floats(logprobs(batch, picks)))
        for key in keys:
            # Summed in double, as the [M, V] engine does: order-independent to 1e-12.
            results[key] = sum((next(values) for _ in key[1]), 0.0)
        counters["rows_computed"] = counters.get("rows_computed", 0) + len(batch)
        counters["batches"] = counters.get("batches", 0) + 1
    return [results[(row, targets)] for row, targets in requests]


def _as_floats(values: Any) -> list[float]:
    """A tensor or sequence of log-probabilities as Python floats (doubles)."""
    tolist = getattr(values, "tolist", None)
    return [float(v) for v in (tolist() if tolist else values)]


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


def slot_jobs(probes: Sequence[Any],
              slot_request: Callable[[str, str, str], tuple[Any, int]], chunk: int) -> Iterator[Job]:
    """Slot answers: one request per filler, summed log-probabilities, token counts.

    ``slot_request(left, filler, right)`` is the scorer's own reading of a filler (masked
    row, or filled-in sentence) and returns the request and the filler's token count.
    """
    return option_jobs(probes, lambda p: [slot_request(p.left, f, p.right) for f in p.fillers],
                       chunk)


def option_jobs(probes: Sequence[Any], requests_of: Callable[[Any], list[tuple[Any, int]]],
                chunk: int) -> Iterator[Job]:
    """One job per ``chunk`` probes, answering each with a :class:`SlotAnswer` from its
    options' requests (fillers or contexts).

    ``requests_of(probe)`` gives one ``(request, n_tokens)`` per option; the requests of a
    whole chunk run in one engine call, so rows are batched across probes.
    """
    for group in chunks(probes, chunk):
        plans = [requests_of(p) for p in group]
        yield Job([req for plan in plans for req, _ in plan],
                  partial(_option_answers, group, plans), len(group))


def _option_answers(group: list[Any], plans: list[list[tuple[Any, int]]],
                    values: list[float]) -> list[Answer]:
    got = iter(values)
    return [SlotAnswer(probe.id, tuple(next(got) for _ in plan), tuple(n for _, n in plan))
            for probe, plan in zip(group, plans)]


def pad_ids(seqs: Sequence[Sequence[int]], pad_id: int) -> tuple[Any, Any]:
    """Right-padded ids [N, L] and attention mask [N, L]; positions stay absolute."""
    import torch

    width = max(len(s) for s in seqs)
    ids = torch.full((len(seqs), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(seqs), width), dtype=torch.long)
    for i, seq in enumerate(seqs):
        ids[i, : len(seq)] = torch.tensor(list(seq), dtype=torch.long)
        mask[i, : len(seq)] = 1
    return ids, mask


def pad_rows(rows: list[Row], pad_id: int) -> tuple[Any, Any, Any, Any]:
    """Right-padded ids [B, L], attention mask [B, L], and (batch, position) index vectors."""
    import torch

    ids, attention = pad_ids([r.ids for r in rows], pad_id)
    b_idx = torch.tensor([i for i, r in enumerate(rows) for _ in r.positions], dtype=torch.long)
    p_idx = torch.tensor([p for r in rows for p in r.positions], dtype=torch.long)
    return ids, attention, b_idx, p_idx
