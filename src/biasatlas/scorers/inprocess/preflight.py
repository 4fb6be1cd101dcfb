"""Checks made before any model loads, so a wrong setting costs a second, not a model load.

Without them a CUDA device on a CPU-only torch ends in an ``AssertionError`` deep inside
torch after the weights are read, and a hub id while offline retries for about 30 seconds
before a long transformers traceback. :func:`biasatlas.registry.load_scorer` (and
:func:`~biasatlas.registry.scorer_kind`) call these first, so the Python API and the
command line refuse the same things with the same one-line messages.
"""

from __future__ import annotations

import os
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from ...errors import ModelError, ModelNotFound, UsageError
from ...values import check_device_name
from .packaged import PACKAGED_MODELS, check_installed, is_packaged_model
from .encoder import PACKAGED_ENCODERS, encoder_install_state

#: How long the hub may take to answer before it counts as unreachable (seconds).
HUB_TIMEOUT = 3.0
_TRUE = {"1", "on", "yes", "true"}
# Hub ids already found reachable in this process: a second check of the same model
# (``scorer_kind`` then ``load_scorer``) asks the network once. Failures are not kept.
_reachable: set[tuple[str, str | None]] = set()


def check_device(device: str) -> None:
    """Refuse a device this torch build cannot use (CUDA on a CPU-only build, an absent GPU
    index, MPS off macOS), naming the build, before any weights are read. A name torch does not
    spell is refused first, by :func:`biasatlas.values.check_device_name`."""
    if check_device_name(device) == "cpu":
        return
    import torch

    parsed = torch.device(device)
    if parsed.type == "cuda":
        _check_cuda(device, parsed.index, torch)
    elif parsed.type == "mps" and not _mps_available(torch):
        raise UsageError(f"device {device!r}: this torch build ({torch.__version__}) has no usable MPS "
                         "backend (Apple silicon only); use --device cpu")


def _check_cuda(device: str, index: int | None, torch: Any) -> None:
    if not torch.cuda.is_available():
        build = f"CUDA {torch.version.cuda}" if torch.version.cuda else "CPU-only"
        raise UsageError(f"device {device!r}: CUDA is not available (torch {torch.__version__}, {build} build"
                         + (", no GPU visible" if torch.version.cuda else "") + "); use --device cpu")
    count = torch.cuda.device_count()
    if index is not None and index >= count:
        raise UsageError(f"device {device!r}: this machine has {count} CUDA device(s) "
                         f"(cuda:0 … cuda:{count - 1})")


def _mps_available(torch: Any) -> bool:
    backend = getattr(torch.backends, "mps", None)
    return bool(backend is not None and backend.is_available())


def check_model_reachable(name: str, revision: str | None = None) -> None:
    """Refuse a model that cannot be had without a long wait: a path that does not exist,
    or a hub id that is neither in the local Hugging Face cache nor on a hub that answers
    within :data:`HUB_TIMEOUT` seconds.

    A packaged name passes when its package is installed (else the error names the command
    that installs it: a suite's dry run then fails, not its second cell), an existing folder at
    once (its own contents are checked when it loads). A hub id passes when its ``config.json``
    is cached (the hub is then not asked) or the hub endpoint answers.
    """
    if is_packaged_model(name):
        check_installed(name)
        return
    if name in PACKAGED_ENCODERS:
        state = encoder_install_state(name)
        if state != "installed":
            raise ModelNotFound(f"packaged encoder {name} is {state}")
        return
    if (name, revision) in _reachable:
        return
    path = Path(name).expanduser()
    if path.exists():
        return
    if name.startswith((".", "/", "~")):
        raise ModelNotFound(f"model folder {name} does not exist")
    if not _is_hub_id(name):
        raise ModelNotFound(f"model {name!r} is not a local folder, a packaged model or a hub id "
                         f"(owner/name); {_alternatives(name)}")
    if _cached_config(name, revision):
        _reachable.add((name, revision))
        return
    from huggingface_hub import constants

    if _offline():
        raise ModelError(f"model {name!r} is not in the Hugging Face cache and HF_HUB_OFFLINE is set; "
                         + _alternatives(name))
    if not _endpoint_answers(constants.ENDPOINT, HUB_TIMEOUT):
        raise ModelError(f"model {name!r} is not cached and the hub ({constants.ENDPOINT}) did not answer "
                         f"within {HUB_TIMEOUT:g} s; {_alternatives(name)}, or HF_HUB_OFFLINE=1 "
                         "with a cached copy")
    _reachable.add((name, revision))


def _alternatives(name: str) -> str:
    """What to pass instead, with the closest packaged name when one is near."""
    from difflib import get_close_matches

    close = get_close_matches(name, [*PACKAGED_MODELS, "fake"], n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    return hint + f"pass a local model folder or a packaged model ({', '.join(PACKAGED_MODELS)})"


def _is_hub_id(name: str) -> bool:
    """Whether ``name`` is a well-formed hub repository id (``owner/name`` or ``name``)."""
    from huggingface_hub.utils import HFValidationError, validate_repo_id

    try:
        validate_repo_id(name)
    except HFValidationError:
        return False
    return True


def _cached_config(name: str, revision: str | None) -> bool:
    """Whether the hub id's config file is in the local Hugging Face cache."""
    from huggingface_hub import try_to_load_from_cache

    return isinstance(try_to_load_from_cache(name, "config.json", revision=revision), str)


def _offline() -> bool:
    """HF_HUB_OFFLINE (or transformers' older TRANSFORMERS_OFFLINE) as set now."""
    from huggingface_hub import constants

    return bool(constants.HF_HUB_OFFLINE) or any(
        os.environ.get(var, "").strip().lower() in _TRUE for var in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))


def _endpoint_answers(endpoint: str, timeout: float) -> bool:
    """Whether the hub endpoint answers an HTTP request at all within ``timeout`` seconds
    (any HTTP status counts: the server is there)."""
    request = urllib.request.Request(endpoint, method="HEAD")
    try:
        with urllib.request.urlopen(request, timeout=timeout):  # noqa: S310 (the configured hub endpoint)
            return True
    except urllib.error.HTTPError:
        return True
    except (OSError, ValueError):
        return False
