"""The values of a run's model options that every edge reads, each checked by one function:
the batch size (:func:`check_batch_size`), the dtype (:func:`canonical_dtype`), the device's
name (:func:`check_device_name`), and a wait in seconds (:func:`check_seconds`).

The run request (:class:`~biasatlas.request.ModelOptions`), the suite file, the command line
and every scorer's constructor call these, so a value one of them accepts none refuses, and a
refused one reads the same everywhere. The spellings are the command line's: ``--batch-size``
takes a positive whole number or ``auto`` in any case (``8.0`` and ``2.5`` are no row counts),
``--dtype`` a torch name or its short alias in any case (``bf16`` → ``bfloat16``), ``--device``
``cpu``, ``cuda``, ``cuda:N`` or ``mps`` as torch spells them. Whether the device exists on this
machine is asked of torch later, before any weights load (:func:`biasatlas.scorers.inprocess.preflight.check_device`);
nothing here imports torch.
"""

from __future__ import annotations

import re
from typing import Literal, get_args

from .errors import UsageError, did_you_mean

#: A batch size: rows per forward pass, or ``"auto"`` (on a CUDA device, the largest batch that fits).
BatchSize = int | Literal["auto"]
#: The weights' dtypes a run may ask for (float32 by default; bfloat16/float16 on a GPU).
Dtype = Literal["float32", "float16", "bfloat16"]
DTYPES: tuple[str, ...] = get_args(Dtype)
#: Short names people type for the dtypes (accelerate's and most training scripts' spelling).
DTYPE_ALIASES: dict[str, Dtype] = {"fp32": "float32", "fp16": "float16", "bf16": "bfloat16"}
_DTYPE_SPELLINGS: dict[str, Dtype] = {"float32": "float32", "float16": "float16", "bfloat16": "bfloat16",
                                      **DTYPE_ALIASES}
#: The longest wait an option may ask for (``--request-timeout``, ``--ray-timeout``): an hour, far beyond any
#: request or connect that ever answers, and far below what the socket layer takes (``inf`` or ``1e12``
#: seconds overflow its time_t: an OverflowError, not a wait).
MAX_SECONDS = 3600.0
# torch's own spelling of the device types a run can score on (torch.device refuses "CUDA").
_DEVICE = re.compile(r"(cpu|cuda|mps)(:[0-9]+)?")


def check_batch_size(value: object) -> BatchSize:
    """A batch size: a positive whole number of rows, or ``"auto"`` in any case (returned as
    ``"auto"``). A float is refused even when whole (``8.0``), as ``--batch-size 8.0`` is, and so
    is text of digits (``"16"``): a suite file or a Python call gives the number itself."""
    if isinstance(value, str) and value.lower() == "auto":
        return "auto"
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
        return value
    raise UsageError(f"batch size '{value}' is neither a positive whole number nor 'auto'")


def canonical_dtype(value: object) -> Dtype:
    """``value`` by its torch name (``bf16`` → ``bfloat16``; case is ignored). Runs record the
    torch name, so an alias scores and caches exactly as the name it stands for."""
    if not isinstance(value, str):
        raise UsageError(f"option 'dtype' takes {' or '.join(repr(d) for d in DTYPES)}, not {value!r}")
    if value.lower() in _DTYPE_SPELLINGS:
        return _DTYPE_SPELLINGS[value.lower()]
    raise did_you_mean("dtype", value, (*DTYPES, *DTYPE_ALIASES))


def check_device_name(value: object) -> str:
    """A device as torch names it: ``cpu``, ``cuda``, ``cuda:N``, ``mps`` (or ``mps:N``, ``cpu:N``)."""
    if not isinstance(value, str):
        raise UsageError(f"option 'device' takes a string, not {value!r}")
    if _DEVICE.fullmatch(value) is None:
        raise UsageError(f"unknown device {value!r}: use cpu, cuda, cuda:N or mps")
    return value


def check_seconds(flag: str, value: object) -> float:
    """A wait of ``value`` seconds for the option ``flag``: a number above 0 and at most
    :data:`MAX_SECONDS` (NaN, infinity and a bool are none), refused at once naming the range."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= MAX_SECONDS:
        raise UsageError(f"{flag} takes seconds above 0 and at most {MAX_SECONDS:g} (one hour), not {value!r}")
    return float(value)


#: The check of each of these options by its field name (a suite file's keys are the same names).
CHECKS = {"batch_size": check_batch_size, "dtype": canonical_dtype, "device": check_device_name}
