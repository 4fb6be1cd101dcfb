"""Transformers' progress bars off while a model loads or converts, so they do not interleave
with the run's one scoring bar (shared by the loaders, the encoder scorer and the packaged
models' conversion).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator


@contextlib.contextmanager
def no_progress_bars() -> Iterator[None]:
    """Transformers' own progress bars off for the duration ("Loading weights" on every
    load would otherwise interleave with the run's one scoring bar)."""
    from transformers.utils import logging as hf_logging

    was_enabled = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_enabled:
            hf_logging.enable_progress_bar()


@contextlib.contextmanager
def quiet_progress() -> Iterator[None]:
    """Silence the dequantisation's progress bars (the "converting once" line says it all).

    Transformers' own bars obey its switch; the GGUF reader's tqdm writes straight to
    stderr, so stderr is swapped for the duration (an exception still propagates).
    """
    with no_progress_bars(), open(os.devnull, "w", encoding="utf-8") as sink, contextlib.redirect_stderr(sink):
        yield
