"""The settings every transformers scorer (masked LM, causal LM, seq2seq) checks alike before it
loads a model: its variant among those it reads, then the batch size, dtype and device by the one
check of each (:mod:`biasatlas.values`), so a bad value is refused with the same words whichever
scorer is asked, and before any weights are read."""

from __future__ import annotations

from collections.abc import Sequence

from ...errors import UnsupportedProbe
from ...values import BatchSize, Dtype, canonical_dtype, check_batch_size, check_device_name


def checked_settings(what: str, variant: str, variants: Sequence[str], batch_size: object, dtype: object,
                     device: object) -> tuple[BatchSize, Dtype, str]:
    """The requested batch size, the canonical dtype and the device, once ``variant`` is one of
    ``variants``; ``what`` names the variant in the error (``"causal-lm pair variant"``)."""
    if variant not in variants:
        raise UnsupportedProbe(f"{what} {variant!r} unknown; choose one of {', '.join(variants)}")
    return check_batch_size(batch_size), canonical_dtype(dtype), check_device_name(device)
