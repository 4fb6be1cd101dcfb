"""How many rows a model scorer runs per forward pass: the ``batch_size`` option as given
(:func:`biasatlas.values.check_batch_size`: a positive number of rows, or ``"auto"``) and, for ``"auto"`` on a
CUDA device, the largest batch that fits in its memory (:func:`largest_fitting`).

Every model scorer takes the same option, so it lives here, below :mod:`.base`, where the
engine-side batching (:mod:`.batching`) reads it without importing the scorer contract.
"""

from __future__ import annotations

from collections.abc import Callable

#: Rows per forward pass unless the user says otherwise: the same for every model scorer,
#: in the Python API and on the command line.
DEFAULT_BATCH_SIZE = 64


def largest_fitting(run: Callable[[int], None], limit: int) -> int:
    """The largest ``n`` of 1, 2, 4 … ≤ ``limit`` for which ``run(n)`` did not run out of
    device memory (0 if even 1 does not fit).

    ``run`` does a batch of ``n`` rows the way the engine does, and waits for it. A batch
    that runs out of memory raises ``torch.cuda.OutOfMemoryError`` when it allocates (or a
    cuBLAS/cuDNN error saying it could not allocate its workspace); its memory is freed when
    the error is dropped, and the allocator's cache is emptied after the search so the
    scores that follow start from a clean device.
    """
    import torch

    fitted, n = 0, 1
    try:
        while n <= limit:
            try:
                run(n)
            except RuntimeError as exc:
                if not _out_of_memory(exc):
                    raise
                break
            fitted, n = n, 2 * n
    finally:
        if torch.cuda.is_available():
            torch.cuda.empty_cache()
    return fitted


def _out_of_memory(exc: RuntimeError) -> bool:
    """Whether ``exc`` says the device ran out of memory."""
    import torch

    text = str(exc)
    return (isinstance(exc, torch.cuda.OutOfMemoryError) or "out of memory" in text.lower()
            or "ALLOC_FAILED" in text)
