"""What the benchmarks measure with: the machine's matmul peak, the useful work of a scoring
run, and timing that waits for the device.

Needs torch only (the GPU machine's python has torch and transformers, nothing else).

* :func:`matmul_peak`: FLOP/s of one square matrix product in the dtype and on the device
  the scorer uses, measured in the same run (a fraction of a datasheet number would hide
  what the machine actually gives: clocks, the CPU's vector units, TF32 being off).
* :func:`needed_flops`: 2·params·tokens of a causal reading, each distinct prefix counted
  once (:func:`distinct_tokens`), the head at the read positions only.
* :func:`masked_flops` and :func:`causal_flops`: the FLOPs a reading needs, counted from its
  rows (2 per multiply-add): an encoder over every masked copy plus the vocabulary
  projection at the masked positions only; a decoder over every token plus the projection
  at the positions whose log-probability is read. Padding, repeated work and the
  log-softmax are not useful work, so they count against the fraction of peak.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from typing import Any

import torch

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


def synchronize(device: str) -> None:
    """Wait for the device's queued work (timings end here)."""
    if torch.device(device).type == "cuda":
        torch.cuda.synchronize()


#: Peaks measured in this process, by (device, dtype): the sections of one gpu.sh run
#: (bench/speed/gpu_check.py) share them, so each dtype's peak is measured once per run.
_PEAKS: dict[tuple[str, str], float] = {}


def matmul_peak(device: str, dtype: str = "float32", seconds: float = 2.0, *, size: int | None = None) -> float:
    """FLOP/s of a square matmul in ``dtype`` on ``device`` at the current thread count, the
    best of three timed stretches (a shared machine only ever slows one down); measured on
    the first call for a (device, dtype) in a process, whose ``seconds`` and ``size`` hold.

    Size 4096 on a CPU (a 2-core laptop-class CPU reaches its rate there), 8192 on a GPU
    (smaller products leave an H200's tensor cores partly idle).
    """
    if (device, dtype) not in _PEAKS:
        size = size or (8192 if torch.device(device).type == "cuda" else 4096)
        _PEAKS[(device, dtype)] = _measured_peak(device, dtype, seconds, size)
    return _PEAKS[(device, dtype)]


def _measured_peak(device: str, dtype: str, seconds: float, size: int) -> float:
    a = torch.randn(size, size, device=device).to(DTYPES[dtype])
    b = torch.randn(size, size, device=device).to(DTYPES[dtype])
    a @ b
    synchronize(device)
    best = 0.0
    for _ in range(3):
        start, count = time.perf_counter(), 0
        while time.perf_counter() - start < seconds / 3:
            a @ b
            count += 1
            synchronize(device) if count % 8 == 0 else None
        synchronize(device)
        best = max(best, 2 * size**3 * count / (time.perf_counter() - start))
    return best


def best_time(fn: Callable[[], Any], repeats: int, device: str) -> tuple[float, list[float], Any]:
    """The best wall time of ``repeats`` calls (each waited for), all the times, and the
    last call's value."""
    times, value = [], None
    for _ in range(max(repeats, 1)):
        synchronize(device)
        start = time.perf_counter()
        value = fn()
        synchronize(device)
        times.append(time.perf_counter() - start)
    return min(times), times, value


def masked_flops(rows: Iterable[Any], config: Any) -> float:
    """Encoder FLOPs over every masked copy + MLM head at its masked positions only.

    Per layer and token: QKV+output projections 8·H², FFN 4·H·I, attention scores and
    mixing 4·L·H (a bidirectional encoder: every token sees the row's L tokens). Head per
    masked position: transform 2·H² + decoder 2·H·V.
    """
    h, i, v, n = config.hidden_size, config.intermediate_size, config.vocab_size, config.num_hidden_layers
    total = 0.0
    for row in rows:
        length = len(row.ids)
        per_token = 8 * h * h + 4 * h * i + 4 * length * h
        total += n * length * per_token + len(row.positions) * (2 * h * h + 2 * h * v)
    return total


def causal_flops(rows: Iterable[Any], config: Any) -> float:
    """Decoder FLOPs over every real token + vocabulary projection at read positions.

    Per layer and token: q/k/v/o projections, gated MLP (3 matrices), attention scores and
    mixing over the positions the token sees (causal: Σ over tokens of seen positions),
    2 FLOPs per multiply-add. GPT-2's 2-matrix MLP would be over-counted as 3 (never used
    on GPT-2 here).
    """
    h, inter, layers, vocab = (config.hidden_size, config.intermediate_size,
                               config.num_hidden_layers, config.vocab_size)
    heads = config.num_attention_heads
    head_dim = getattr(config, "head_dim", None) or h // heads
    kv = getattr(config, "num_key_value_heads", heads)
    proj = 2 * (h * heads * head_dim * 2 + 2 * h * kv * head_dim + 3 * h * inter)
    total = 0.0
    for row in rows:
        n = len(row.ids)
        attention = 4 * heads * head_dim * n * (n + 1) / 2
        total += layers * (n * proj + attention) + len(row.positions) * 2 * h * vocab
    return total


def distinct_tokens(rows: Iterable[Any]) -> int:
    """Tokens in the prefix tree of the rows: a causal LM's states at a position depend only
    on the tokens up to it, so rows that begin alike need those states once. In sorted
    order each row adds the tokens after its common prefix with the row before it."""
    total, previous = 0, ()
    for ids in sorted(tuple(row.ids) for row in rows):
        common = 0
        while common < min(len(ids), len(previous)) and ids[common] == previous[common]:
            common += 1
        total, previous = total + len(ids) - common, ids
    return total


def needed_flops(rows: Iterable[Any], config: Any) -> tuple[float, int, int]:
    """The FLOPs a causal reading needs, counted as 2·params·tokens: 2 × the decoder's
    matrix weights (q, k, v, o and the gated MLP's three, every layer) × the rows'
    :func:`distinct_tokens`, plus 2 × the head's H·V weights × the read positions. Not
    counted: the embedding lookup and norms (no multiply-adds of note) and attention's
    scores and mixing (4·n·d per token and layer: 0.1 % of a 7B layer's 2·202M at n = 20).
    Returns (FLOPs, distinct tokens, read positions)."""
    rows = list(rows)
    h, inter, layers = config.hidden_size, config.intermediate_size, config.num_hidden_layers
    heads = config.num_attention_heads
    head_dim = getattr(config, "head_dim", None) or h // heads
    kv = getattr(config, "num_key_value_heads", None) or heads
    layer_weights = 2 * h * heads * head_dim + 2 * h * kv * head_dim + 3 * h * inter
    tokens, reads = distinct_tokens(rows), sum(len(row.positions) for row in rows)
    return 2.0 * (layers * layer_weights * tokens + h * config.vocab_size * reads), tokens, reads


def machine_line(device: str) -> str:
    """Threads, cores, load average and the device, for the first line of a report."""
    name = torch.cuda.get_device_name(0) if torch.device(device).type == "cuda" else "cpu"
    return (f"device {device} ({name}), torch {torch.__version__}, threads {torch.get_num_threads()}, "
            f"cores {os.cpu_count()}, load average {os.getloadavg()[0]:.1f}")


def rows_of(scorer: Any, probes: list) -> list:
    """The distinct rows (model inputs) a scorer computes for ``probes``: a dry run,
    with the engine's launch replaced by a recorder, so the model is never called."""
    seen: list = []

    # work: the call's counts, left as they are; watch: which rows to compute (all, in a dry run)
    def record(requests: list, work: dict | None = None, watch: Any = None) -> Any:
        seen.extend(requests)
        return lambda: [0.0] * len(requests)

    scorer._launch = record
    try:
        scorer.score(probes)
    finally:
        del scorer._launch
    return list({row for row, _ in seen})
