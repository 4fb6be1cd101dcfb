"""Reading a batch's target log-probabilities at the model's head, on its device: the
vocabulary projection and log-softmax in chunks of rows (:func:`read_targets`), a reused host
buffer for those chunks (:class:`Scratch`), and how many rows a chunk holds on the host or a
device (:func:`head_chunk_rows`). The batching around it is :mod:`..batching`.
"""

from __future__ import annotations

from typing import Any


def read_targets(states: Any, targets: Any, project: Any, chunk_rows: int, scratch: Scratch | None = None) -> Any:
    """``log_softmax(project(states))[m, targets[m]]`` for each row m, ``chunk_rows`` rows
    at a time, on the states' device: ``[M]`` float32.

    Why chunks: the whole [M, V] log-softmax (V = 262,144 for Gemma) is written only to
    read M numbers of it; chunks bound it and keep it off the host. The log-softmax is
    float32 whatever the model's dtype: it upcasts 16-bit logits as it reads them (no
    float32 copy of the chunk is written first). Why ``log_softmax`` and
    not ``logit − logsumexp``: the latter is closer to the float64 value, but float32
    ``log_softmax`` (what lm-evaluation-harness and the reference readings use) differs
    from it by up to 3e-4 on a 40-token SmolLM2 sentence; a row-wise op, it gives the same
    bits on a chunk as on the whole tensor. ``project`` is None when ``states`` are logits
    already; with ``scratch`` it is called as ``project(chunk, scratch)`` and writes its
    logits into the scratch buffer, where a float32 log-softmax then runs in place (the
    same bits as out of place).
    """
    import torch

    out = []
    for start in range(0, states.shape[0], chunk_rows):
        chunk = states[start:start + chunk_rows]
        if project is None:
            logits = chunk
        elif scratch is None:
            logits = project(chunk)  # [m, V], the model's dtype
        else:
            logits = project(chunk, scratch)
        if scratch is not None and scratch.holds(logits) and logits.dtype == torch.float32:
            logp = torch.log_softmax(logits, dim=-1, out=logits)
        else:
            logp = torch.log_softmax(logits, dim=-1, dtype=torch.float32)  # upcast as it reads
        picked = targets[start:start + chunk_rows, None].to(logp.device)
        out.append(logp.gather(1, picked)[:, 0])
    if not out:
        return torch.zeros(0, dtype=torch.float32, device=states.device)
    return torch.cat(out)


class Scratch:
    """One host buffer reused by every head chunk of a scorer.

    Why: on a CPU a fresh [256, 262,144] float32 tensor (268 MB) is fresh memory from the
    operating system, zeroed and mapped page by page as it is first written: measured at
    0.12 s a chunk on 2 cores, as much as a third of the chunk's matrix product, once for
    the logits and once for their log-softmax. A reused buffer is mapped once. (A GPU's
    caching allocator already reuses its memory.)
    """

    def __init__(self) -> None:
        self._buffer: Any = None

    def take(self, rows: int, cols: int, dtype: Any) -> Any:
        """A [rows, cols] tensor of ``dtype`` in the buffer (grown when too small)."""
        import torch

        if self._buffer is None or self._buffer.dtype != dtype or self._buffer.numel() < rows * cols:
            self._buffer = torch.empty(rows * cols, dtype=dtype)
        return self._buffer[: rows * cols].view(rows, cols)

    def holds(self, tensor: Any) -> bool:
        """Whether ``tensor`` lies in the buffer (so it may be overwritten)."""
        return self._buffer is not None and tensor.data_ptr() == self._buffer.data_ptr()


def on_cpu(device: str) -> bool:
    """Whether ``device`` (``cpu``, ``cuda:1`` …) is the host."""
    import torch

    return bool(torch.device(device).type == "cpu")


def head_chunk_rows(device: str, vocab_size: int, cpu_rows: int) -> int:
    """Read positions per :func:`read_targets` chunk: ``cpu_rows`` on the host (measured:
    the chunk's logits stay in cache), 1 GiB of float32 logits on a device (1,024 rows for
    Gemma's 262,144-token vocabulary, 8,796 for BERT's 30,522): fewer, larger kernels."""
    if on_cpu(device):
        return cpu_rows
    return max(cpu_rows, (1 << 28) // max(int(vocab_size), 1))
