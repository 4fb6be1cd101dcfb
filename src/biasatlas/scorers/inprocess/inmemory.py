"""A model already in memory: a transformers model object and its tokenizer, scored as they are.

Debiasing work evaluates a model it has just changed, without saving it first (lm-eval's
``simple_evaluate`` takes an ``LM`` object for the same reason). Such a model has no hub id
and no files to hash, so what identifies it for provenance and for the score cache is what
it computes with (the score cache is keyed by it, and must never serve one model's answers
for another's): its class, a hash of its config, a hash of every tensor of its ``state_dict`` (name, dtype,
shape and bytes) and a hash of its tokenizer. Two models that differ in one weight get
different fingerprints; the same model object changed in place (an optimiser step, a
``load_state_dict``) is hashed again, since each tensor's version counter moved.

Cost: the state hash reads every weight once (sha256, after a copy to the host for a model
on a GPU), so it grows linearly with the model's bytes; it is computed once per scorer and
again only after a weight changes. The scorer takes the model where it is: on its device, in
its dtype (asking for another is refused, never converted in place), and put in eval mode.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from ...errors import UsageError

#: What a scorer records as the location of an in-memory model: it has none.
IN_MEMORY = "in memory"
_DTYPES = {"torch.float32": "float32", "torch.float16": "float16", "torch.bfloat16": "bfloat16"}


@dataclass(frozen=True, eq=False)
class InMemoryModel:
    """A transformers model and its tokenizer, handed to a scorer instead of a name
    (``biasatlas.evaluate(name, model=(model, tokenizer))`` builds one). ``name`` labels the
    run (default: the model's class, "(in memory)")."""

    model: Any
    tokenizer: Any
    name: str = ""
    _memo: dict[str, Any] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if not hasattr(self.model, "config") or not callable(getattr(self.model, "state_dict", None)):
            raise UsageError(f"an in-memory model is a transformers model object (with .config and .state_dict), "
                             f"not {type(self.model).__name__}")
        if not callable(self.tokenizer):
            raise UsageError("the second item of (model, tokenizer) is a tokenizer, "
                             f"not {type(self.tokenizer).__name__}")
        if not self.name:
            object.__setattr__(self, "name", f"{type(self.model).__name__} (in memory)")

    @property
    def architectures(self) -> list[str]:
        """The model's class name, then its config's ``architectures`` (what a loaded model's
        scorer kind is read from)."""
        return [type(self.model).__name__, *(getattr(self.model.config, "architectures", None) or [])]

    @property
    def dtype(self) -> str:
        """The weights' dtype, by its option name (``float32``, ``bfloat16`` …)."""
        found = str(next(self.model.parameters()).dtype)
        return _DTYPES.get(found, found.removeprefix("torch."))

    @property
    def device(self) -> str:
        """Where the model's inputs go: its input embeddings' device."""
        return str(self.model.get_input_embeddings().weight.device)

    def identity(self) -> dict[str, Any]:
        """What identifies the model (see the module's docstring), for provenance and the cache key."""
        versions = _versions(self.model)
        if self._memo.get("versions") != versions:  # first call, or a weight changed since
            self._memo.update(versions=versions, state=_state_sha256(self.model))
        if self._memo.get("tokens") != len(self.tokenizer):  # a tokenizer changes by growing (add_tokens)
            self._memo.update(tokens=len(self.tokenizer), tokenizer=_tokenizer_sha256(self.tokenizer))
        cls = type(self.model)
        return {"class": f"{cls.__module__}.{cls.__qualname__}", "config_sha256": _config_sha256(self.model.config),
                "state_sha256": self._memo["state"], "tokenizer_sha256": self._memo["tokenizer"]}


def _versions(model: Any) -> tuple[tuple[str, int, int], ...]:
    """Each tensor's storage and version counter: both move when the tensor changes (an
    in-place update bumps the counter; assigning new data moves the storage)."""
    return tuple((name, t.data_ptr(), t._version) for name, t in model.state_dict(keep_vars=True).items())


def _state_sha256(model: Any) -> str:
    """sha256 over every tensor of the state dict: its name, dtype, shape and bytes."""
    import torch

    digest = hashlib.sha256()
    for name, tensor in model.state_dict(keep_vars=True).items():
        values = tensor.detach().to("cpu").contiguous().reshape(-1)
        digest.update(f"{name}\0{values.dtype}\0{tuple(tensor.shape)}\0".encode())
        digest.update(values.view(torch.uint8).numpy())  # the raw bytes, whatever the dtype
    return digest.hexdigest()


def _config_sha256(config: Any) -> str:
    """The config's settings, without what says where it came from (``_name_or_path``,
    ``transformers_version``): those do not change a score."""
    settings = {k: v for k, v in config.to_dict().items() if not k.startswith("_") and k != "transformers_version"}
    return hashlib.sha256(json.dumps(settings, sort_keys=True, default=str).encode()).hexdigest()


def _tokenizer_sha256(tokenizer: Any) -> str:
    """The tokenizer's whole definition (a fast tokenizer's serialised pipeline, else its
    vocabulary), its class, special tokens and plain settings (file paths left out)."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    body = backend.to_str() if backend is not None else json.dumps(sorted(tokenizer.get_vocab().items()))
    settings = {k: v for k, v in getattr(tokenizer, "init_kwargs", {}).items()
                if isinstance(v, str | int | float | bool | None) and k != "name_or_path" and not k.endswith("_file")}
    extra = json.dumps({"class": type(tokenizer).__name__, "special": tokenizer.special_tokens_map,
                        "settings": settings}, sort_keys=True, default=str)
    return hashlib.sha256(body.encode() + b"\0" + extra.encode()).hexdigest()
