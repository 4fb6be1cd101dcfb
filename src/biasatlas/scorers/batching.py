"""Rows, de-duplication and length-sorted batching shared by the torch scorers.

A *row* is one model input (token ids, masks already placed) and the positions whose
log-softmax we read. Scorers turn probes into ``(row, targets)`` requests, grouped into
:class:`~biasatlas.scorers.job.Job` s (:func:`slot_jobs`, :func:`option_jobs`); this module
computes each distinct row once, in length-sorted batches, and hands back one summed
log-probability per request, in request order.

The engine (:func:`launch_target_sums`) asks a scorer only for the ``M`` target
log-probabilities of a batch (:class:`Picks`): the scorer reduces over the vocabulary on
its device (:func:`~.inprocess.head_reading.read_targets`), so nothing vocabulary-sized reaches the host, and the
``M`` numbers of every batch of an engine call stay on the device until the call's
results are read, in one copy. Batches are cut by a padded-token budget as well as by
rows (:func:`token_batches`).
"""

from __future__ import annotations

import math
from collections import defaultdict, deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, TypeVar

from ..probes import Answer, SlotAnswer
from ..values import BatchSize
from .batch_size import DEFAULT_BATCH_SIZE, largest_fitting
from .job import Job
from .resume import EVERY_ROW, Watch, launched

T = TypeVar("T")


@dataclass(frozen=True)
class Row:
    """One model input and the positions to read (logits index).

    Rows are dictionary keys several times over in an engine call (de-duplication, batch
    index, results): the hash is computed once (a CrowS-Pairs run hashed 41,172 rows
    330,000 times, half a second of Python).
    """

    ids: tuple[int, ...]
    positions: tuple[int, ...]
    _hash: int = field(init=False, repr=False, compare=False, default=0)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", hash((self.ids, self.positions)))

    def __hash__(self) -> int:
        return self._hash


Request = tuple[Row, tuple[int, ...]]  # a row and the target token id at each position


@dataclass(frozen=True)
class Picks:
    """The log-probabilities one batch must return: value ``k`` is
    ``log P(target[k] | rows[row[k]], read at position[k])``."""

    row: list[int]
    position: list[int]
    target: list[int]


TargetFn = Callable[[list[Row], Picks], Any]  # rows, picks -> [len(picks.row)] log-probabilities


#: ``batch_size="auto"`` on a CUDA device: rows of this many tokens are tried, 1, 2, 4 …
#: of them, up to :data:`AUTO_MAX_TOKENS` tokens in all (a forward pass of BERT-base or
#: Gemma-3-270m is no faster per token beyond that, and smaller batches keep the host's
#: next batch overlapping the device's work); a batch may then hold that many padded
#: tokens, in rows of at least :data:`AUTO_MIN_ROW` tokens.
AUTO_PROBE_WIDTH, AUTO_MAX_TOKENS, AUTO_MIN_ROW = 64, 1 << 16, 8
_FITTED: dict[tuple[Any, ...], int] = {}  # (scorer, model, dtype, device) -> rows that fit


@dataclass(frozen=True)
class BatchLimits:
    """How a scorer cuts batches: at most ``rows`` rows and ``tokens`` padded tokens, and
    what its provenance says about it (``described``: ``64``, or ``"auto → …"``)."""

    rows: int
    tokens: int
    described: int | str


def batch_limits(requested: BatchSize, device: str, tokens: int, probe: Callable[[int], None],
                 key: tuple[Any, ...], *, by_tokens: bool = True) -> BatchLimits:
    """Resolve ``batch_size`` (:func:`~biasatlas.values.check_batch_size`).

    ``tokens`` is the token budget without ``"auto"``; ``probe(n)`` runs ``n`` rows of
    :data:`AUTO_PROBE_WIDTH` tokens as the engine does and waits for them. On CUDA,
    ``"auto"`` is the largest ``n`` that fits (:func:`~biasatlas.scorers.batch_size.largest_fitting`,
    found once per ``key`` in a process); a token-budgeted engine (``by_tokens``) may then
    fill a batch with that many tokens in rows of any length. Elsewhere ``"auto"`` is
    :data:`~biasatlas.scorers.batch_size.DEFAULT_BATCH_SIZE` rows.
    """
    import torch

    if requested != "auto":
        return BatchLimits(int(requested), tokens, int(requested))
    if torch.device(device).type != "cuda":
        return BatchLimits(DEFAULT_BATCH_SIZE, tokens, f"auto → {DEFAULT_BATCH_SIZE}")
    if key not in _FITTED:
        _FITTED[key] = largest_fitting(probe, AUTO_MAX_TOKENS // AUTO_PROBE_WIDTH)
    fitted = max(_FITTED[key], 1)
    if not by_tokens:
        return BatchLimits(fitted, tokens, f"auto → {fitted}")
    budget = fitted * AUTO_PROBE_WIDTH
    rows = max(1, budget // AUTO_MIN_ROW)
    return BatchLimits(rows, budget, f"auto → {rows} rows, {budget} tokens")


def token_limits(requested: BatchSize, device: str, max_batch_tokens: int | None, default_tokens: int,
                 probe: Callable[[int], None], key: tuple[Any, ...]) -> BatchLimits:
    """:func:`batch_limits` of a token-budgeted scorer: the budget is ``max_batch_tokens``, else
    the scorer's ``default_tokens`` for the device, and an explicit ``max_batch_tokens`` also
    caps the budget ``"auto"`` finds."""
    limits = batch_limits(requested, device, int(max_batch_tokens or default_tokens), probe, key)
    return replace(limits, tokens=min(limits.tokens, max_batch_tokens)) if max_batch_tokens else limits


#: Probes of one kind a model scorer's job (one engine call) takes at most: its batches are planned
#: over all of them, so a pipeline chunk (:func:`biasatlas.pipeline.chunked`, at most this many
#: probes) is one job per kind, batched as a whole. A job's rows are small tuples of token ids
#: (the 1,508 English CrowS-Pairs, masked one token at a time, are ~45,000 rows). Planned over the
#: 1,508 pairs' 3,006 SmolLM2 rows: 90 forward passes in jobs of 256 pairs, 73 of 512, 66 of 754
#: (two jobs), 59 in one.
JOB_PROBES = 1024


def chunks(items: Sequence[T], size: int) -> list[list[T]]:
    return [list(items[i:i + size]) for i in range(0, len(items), size)]


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
    memory on a GPU).

    An exact dynamic programme over the sorted rows. The best cut of the first ``j`` rows
    ends with a batch ``[i, j)`` whose longest row is row ``j − 1`` (length ``L``), so
    ``cost[j] = overhead + j·L + min over the allowed i of (cost[i] − i·L)``: a minimum
    over a sliding window, kept in a monotone queue and rebuilt when ``L`` changes. That
    is O(rows + distinct lengths × window), where the plain double loop was O(rows ×
    window): 41,172 CrowS-Pairs rows under a GPU budget of thousands of rows took seconds
    of Python. Ties go to the smaller last batch, as the double loop chose.
    """
    import numpy as np

    ordered = sorted(rows, key=lambda r: len(r.ids))
    cost = [0] * (len(ordered) + 1)  # cost[j]: best cut of ordered[:j]
    begin = [0] * (len(ordered) + 1)  # ordered[begin[j]:j] is that cut's last batch
    window: deque[int] = deque()  # candidate i, their cost[i] − i·L increasing front to back
    current = -1  # the length L the queue's values are computed for
    for j in range(1, len(ordered) + 1):
        length = len(ordered[j - 1].ids)  # sorted: the last row is the batch's longest
        span = min(max_rows, j, max(1, max_tokens // max(length, 1)))
        left = j - span  # allowed i: left … j − 1 (never decreasing while L is fixed)
        if length != current:  # every value changes: the queue of left … j − 2, at once
            current = length
            window = _minima_queue(np.asarray(cost[left:j - 1], dtype=np.int64), left, length)
        value = cost[j - 1] - (j - 1) * length
        while window and cost[window[-1]] - window[-1] * length >= value:
            window.pop()  # ties: the later i (a smaller last batch) wins
        window.append(j - 1)
        while window[0] < left:
            window.popleft()
        i = window[0]
        cost[j], begin[j] = cost[i] + overhead + (j - i) * length, i
    batches, j = [], len(ordered)
    while j:
        batches.append(ordered[begin[j]:j])
        j = begin[j]
    return batches[::-1]


def _minima_queue(costs: Any, first: int, length: int) -> deque[int]:
    """The monotone queue of :func:`token_batches` over ``i = first …``: the indices whose
    ``cost[i] − i·length`` is below every later one (ties: the later index), in order.
    Built with numpy: a length change rebuilds a window of thousands of rows."""
    import numpy as np

    if not len(costs):
        return deque()
    values = costs - (first + np.arange(len(costs), dtype=np.int64)) * length
    later = np.minimum.accumulate(values[::-1])[::-1]  # later[k] = min(values[k:])
    keep = np.append(values[:-1] < later[1:], True)  # strictly below everything after it
    return deque((first + np.flatnonzero(keep)).tolist())


def target_logprob_sums(requests: list[Request], batches: Callable[[list[Row]], list[list[Row]]],
                        logprobs: TargetFn, counters: dict[str, int]) -> list[float]:
    """For each (row, targets): Σ_j log P(target_j at pos_j); each row computed once
    (:func:`launch_target_sums`, read at once)."""
    return launch_target_sums(requests, batches, logprobs, counters)()


def launch_target_sums(requests: list[Request], batches: Callable[[list[Row]], list[list[Row]]],
                       logprobs: TargetFn, counters: dict[str, int],
                       watch: Watch = EVERY_ROW) -> Callable[[], list[float]]:
    """Run every batch of ``requests``; return the function that reads their results.

    ``batches`` cuts the distinct rows (e.g. :func:`token_batches`); ``logprobs(rows,
    picks)`` returns one log-probability per pick (a device tensor, or numbers), so
    nothing vocabulary-sized leaves the scorer. A row asked with several target tuples is
    computed once, read once per tuple.

    Why launch, then read: reading a device tensor waits for the device. Read per batch,
    the device idles while the host prepares the next batch; here the host queues every
    batch, and the one copy that returns the results (the returned function) waits once.
    A caller may prepare its next engine call before reading this one
    (:meth:`~biasatlas.scorers.base.ModelScorer._run`).

    ``watch`` (:class:`.resume.Watch`): the batches are cut from every distinct row, and those
    holding no row it needs are skipped (their values read as NaN), so the batches that run are
    the ones a call with every row needed runs; it hears of each batch as it is launched.
    """
    wanted: dict[Row, list[tuple[int, ...]]] = defaultdict(list)
    for row, targets in requests:
        if targets not in wanted[row]:
            wanted[row].append(targets)
    counters["rows_requested"] = counters.get("rows_requested", 0) + len(requests)

    def compute(batch: list[Row]) -> tuple[list[tuple[Row, tuple[int, ...]]], Any]:
        keys = [(row, targets) for row in batch for targets in wanted[row]]
        index = {row: i for i, row in enumerate(batch)}
        picks = Picks([index[row] for row, targets in keys for _ in targets],
                      [p for row, _ in keys for p in row.positions],
                      [t for _, targets in keys for t in targets])
        part = logprobs(batch, picks)
        counters["rows_computed"] = counters.get("rows_computed", 0) + len(batch)
        counters["batches"] = counters.get("batches", 0) + 1
        return keys, part

    results: dict[tuple[Row, tuple[int, ...]], float] = {}
    read_parts = [0]  # the parts already summed into results: a call read after each batch reads each part once

    def reader(parts: list[tuple[list[Row], Any]]) -> Callable[[], list[float]]:
        def read() -> list[float]:
            new = parts[read_parts[0]:]
            values = iter(_host_floats([part for _, (_, part) in new]))
            for _, (keys, _) in new:
                for key in keys:
                    # Summed in double, in target order: order-independent to 1e-12.
                    results[key] = sum((next(values) for _ in key[1]), 0.0)
            read_parts[0] = len(parts)
            return [results.get((row, targets), math.nan) for row, targets in requests]

        return read

    return launched(batches(list(wanted)), compute, watch, reader)


def _host_floats(parts: list[Any]) -> list[float]:
    """Every part's numbers, in order, as Python floats: device tensors are joined on the
    device and copied to the host once."""
    import torch

    if parts and all(isinstance(p, torch.Tensor) for p in parts):
        device = parts[0].device
        return [float(v) for v in torch.cat([p.reshape(-1).to(device) for p in parts]).tolist()]
    return [v for p in parts for v in _as_floats(p)]


def _as_floats(values: Any) -> list[float]:
    """A tensor or sequence of log-probabilities as Python floats (doubles)."""
    tolist = getattr(values, "tolist", None)
    return [float(v) for v in (tolist() if tolist else values)]


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
                  partial(_option_answers, group, plans), len(group),
                  [(p.id, len(plan)) for p, plan in zip(group, plans)])


def _option_answers(group: list[Any], plans: list[list[tuple[Any, int]]],
                    values: list[float]) -> list[Answer]:
    got = iter(values)
    return [SlotAnswer(probe.id, tuple(next(got) for _ in plan), tuple(n for _, n in plan))
            for probe, plan in zip(group, plans)]


def to_device(tensor: Any, device: Any) -> Any:
    """``tensor`` (on the host) on ``device``, without waiting for the device.

    A plain copy from ordinary host memory to a GPU waits until the GPU has finished all
    the work queued before it; a copy from pinned memory is queued like a kernel.
    """
    import torch

    target = torch.device(device)
    if target.type == "cuda":
        return tensor.pin_memory().to(target, non_blocking=True)
    return tensor.to(target)


def long_tensor(values: Sequence[int], device: Any) -> Any:
    """A 1-D int64 tensor of ``values`` on ``device`` (:func:`to_device`)."""
    import torch

    return to_device(torch.tensor(list(values), dtype=torch.long), device)


def pad_ids(seqs: Sequence[Sequence[int]], pad_id: int) -> tuple[Any, Any]:
    """Right-padded ids [N, L] and attention mask [N, L]; positions stay absolute.

    Built from one padded list in one tensor call: per-row tensors cost 40k small
    allocations on a CrowS-Pairs run.
    """
    import torch

    width = max(len(s) for s in seqs)
    ids = torch.tensor([list(s) + [pad_id] * (width - len(s)) for s in seqs], dtype=torch.long)
    lengths = torch.tensor([len(s) for s in seqs], dtype=torch.long)
    mask = (torch.arange(width)[None, :] < lengths[:, None]).long()
    return ids, mask


def unpadded(attention: Any, rows: Sequence[Row] | Sequence[Sequence[int]]) -> Any:
    """``attention``, or None when every row has the batch's full width.

    Why: transformers checks a given mask for padding with ``mask.all()``, which waits for
    the device; without padding the mask changes nothing (the attention layers skip an
    all-ones mask), so leaving it out gives the same numbers without the wait.
    """
    lengths = {len(r.ids) if isinstance(r, Row) else len(r) for r in rows}
    return None if len(lengths) == 1 else attention


def pad_rows(rows: list[Row], pad_id: int) -> tuple[Any, Any, Any, Any]:
    """Right-padded ids [B, L], attention mask [B, L], and (batch, position) index vectors."""
    import torch

    ids, attention = pad_ids([r.ids for r in rows], pad_id)
    b_idx = torch.tensor([i for i, r in enumerate(rows) for _ in r.positions], dtype=torch.long)
    p_idx = torch.tensor([p for r in rows for p in r.positions], dtype=torch.long)
    return ids, attention, b_idx, p_idx
