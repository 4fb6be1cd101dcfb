"""Resolve a model name to weights we can trust, and fingerprint them for provenance.

METHODS.md §4, "Random heads": a checkpoint without masked-LM head weights (an ELECTRA
discriminator, a sentence encoder) loads with a freshly initialised head and produces
confident nonsense. We load with ``output_loading_info=True`` and refuse any missing
head weight. ``trust_remote_code`` stays off unless the user asks.

The same loading info guards the rest of the model: a checkpoint weight of another shape
than the config builds (a ``vocab_size`` or ``max_position_embeddings`` edited in
``config.json``), a weight the config builds but the checkpoint lacks, and a layer the
checkpoint holds but the config does not build (``num_hidden_layers`` lowered: the run
scored a truncated model under the full checkpoint's hashes) are each refused, naming
the weights. Unused weights of other heads (BERT's next-sentence head and pooler in a
masked-LM load) are no such layer and still load, as in transformers.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from ...errors import ModelError
from ...hashing import PACKAGED_RECORD, file_hashes
from ...values import canonical_dtype
from .inmemory import IN_MEMORY, InMemoryModel
from .packaged import PACKAGED_MODELS, is_packaged_model, resolve_packaged_model
from .progress_bars import no_progress_bars

@dataclass(frozen=True)
class ResolvedModel:
    """Where a model's files are, and the name the user gave it; ``held``, a model already in
    memory (then it has no files: ``location`` is :data:`~.inmemory.IN_MEMORY`)."""

    name: str
    location: str  # a local folder or a hub id
    packaged: bool = False
    held: InMemoryModel | None = dataclasses.field(default=None, compare=False, repr=False)


def resolve(name: str | InMemoryModel) -> ResolvedModel:
    """Map a user's ``--model`` to a local folder or hub id (packaged names are converted once);
    a model in memory stays where it is."""
    if isinstance(name, InMemoryModel):
        return ResolvedModel(name.name, IN_MEMORY, held=name)
    if is_packaged_model(name):
        return ResolvedModel(name, str(resolve_packaged_model(name)), packaged=True)
    path = Path(name).expanduser()
    if path.exists():
        if not (path / "config.json").is_file():
            raise ModelError(f"{path} is not a model folder: it has no config.json")
        return ResolvedModel(name, str(path.resolve()))
    if name.startswith((".", "/", "~")):
        raise ModelError(f"model folder {name} does not exist")
    return ResolvedModel(name, name)


def read_config(resolved: ResolvedModel, *, trust_remote_code: bool = False,
                revision: str | None = None) -> Any:
    """The model's transformers config, or a one-line :class:`ModelError` saying what is wrong
    (invalid JSON, no or unknown ``model_type``, custom code without ``--trust-remote-code``)."""
    from transformers import AutoConfig

    try:
        return AutoConfig.from_pretrained(resolved.location, trust_remote_code=trust_remote_code,
                                          revision=revision)
    except (OSError, ValueError, KeyError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ModelError(f"cannot read the config of {resolved.name}: {first}") from exc


def check_tokenizer(name: str, tokenizer: Any) -> None:
    """Refuse a tokenizer with no vocabulary of its own.

    A folder without tokenizer files can still give a tokenizer object (every word
    ``[UNK]``): scores then compare unknown tokens and ties pile up with exit 0.
    """
    special = set(getattr(tokenizer, "all_special_ids", ()) or ())
    probe = "The woman works as a nurse. Elle est infirmière. Hun jobber som lærer."
    try:
        ids = [i for i in tokenizer(probe, add_special_tokens=False)["input_ids"] if i not in special]
    except Exception as exc:  # a tokenizer that cannot encode plain text is unusable
        raise ModelError(f"{name}'s tokenizer cannot encode text: {exc}") from exc
    if len(tokenizer) <= len(special) + 1 or not ids:
        raise ModelError(f"{name}'s tokenizer is empty (every word would be unknown): the folder "
                         "lacks its tokenizer files (tokenizer.json, vocab.txt, spiece.model …)")


def check_head_loaded(name: str, model: Any, info: dict[str, Any]) -> None:
    """Refuse a model whose language-model head was freshly initialised.

    Weights outside the base model (``model.base_model_prefix``) are the head; any of
    them missing from the checkpoint means random head weights.
    """
    prefix = getattr(model, "base_model_prefix", "") + "."
    missing = sorted(k for k in info.get("missing_keys", ()) if not k.startswith(prefix))
    if missing:
        shown = ", ".join(missing[:4]) + (" …" if len(missing) > 4 else "")
        raise ModelError(
            f"{name} has no trained language-model head: {len(missing)} head weight(s) are "
            f"missing from the checkpoint ({shown}) and would be freshly initialised. "
            "This is typical of ELECTRA discriminators and sentence encoders; use a checkpoint "
            "with a masked- or causal-LM head (e.g. an ELECTRA generator)."
        )


def check_weights_loaded(name: str, model: Any, info: dict[str, Any]) -> None:
    """Refuse a model that is not its checkpoint as saved (see the module's docstring):
    weights of another shape, weights missing, or layers of the checkpoint left out."""
    mismatched = sorted((str(key), saved, built, _config_field(model.config, saved, built))
                        for key, saved, built in info.get("mismatched_keys", ()))
    if mismatched:  # shown: the first weight whose mismatch a config field explains
        key, saved, built, field = next((m for m in mismatched if m[3]), mismatched[0])
        raise ModelError(
            f"{name}'s config.json does not fit its weights: {len(mismatched)} weight(s) have "
            f"another shape ({key} is {_shape(saved)} in the checkpoint, {_shape(built)} by the "
            f"config{field}); restore the config saved with the weights")
    check_head_loaded(name, model, info)
    missing = sorted(info.get("missing_keys", ()))
    if missing:
        raise ModelError(f"{name}'s checkpoint lacks {len(missing)} weight(s) that its config builds "
                         f"({_first(missing)}): they would be freshly initialised; the config asks for "
                         "more layers or parts than the weights hold")
    built = {_layer_pattern(k) for k in model.state_dict()}
    dropped = sorted(k for k in info.get("unexpected_keys", ())
                     if _layer_pattern(k) in built or _in_empty_stack(model, k))
    if dropped:
        raise ModelError(f"{name}'s checkpoint holds {len(dropped)} weight(s) of layers that its config "
                         f"does not build ({_first(dropped)}): they would be dropped; the config asks "
                         "for fewer layers than the weights hold")


def _layer_pattern(key: str) -> str:
    """A weight's name with layer numbers blanked: ``encoder.layer.5.x`` and ``encoder.layer.0.x``
    are the same weight of two layers, so an unused one of them is a layer left out."""
    return re.sub(r"\.\d+(?=\.|$)", ".#", key)


def _in_empty_stack(model: Any, key: str) -> bool:
    """Whether ``key`` is a numbered layer of a stack the model builds with no layer at all
    (``num_hidden_layers`` 0 or -1: ``encoder.layer`` is an empty list, so no built weight shares
    the key's pattern, and the model ran on its embeddings alone; issue 34 item 13)."""
    found = re.match(r"(.+?)\.\d+\.", key)
    if found is None:
        return False
    try:
        stack = model.get_submodule(found.group(1))
    except AttributeError:
        return False
    return hasattr(stack, "__len__") and len(stack) == 0


def _first(keys: list[str]) -> str:
    return ", ".join(keys[:3]) + (" …" if len(keys) > 3 else "")


def _shape(size: Any) -> str:
    return "×".join(str(d) for d in size)


def _config_field(config: Any, saved: Any, built: Any) -> str:
    """``: vocab_size is … in config.json`` when a size field explains the mismatch."""
    # GPT-2's own names first: its config answers to the common names too (attribute_map)
    fields = ("vocab_size", "n_positions", "max_position_embeddings", "n_embd", "hidden_size",
              "d_model", "intermediate_size", "type_vocab_size")
    for field in fields:
        value = getattr(config, field, None)
        if any(s != b and b == value for s, b in zip(saved, built, strict=False)):
            return f": {field} is {value} in config.json"
    return ""


def check_vocabulary_fits(name: str, model: Any, tokenizer: Any) -> None:
    """Refuse a tokenizer with token ids past the end of the input embedding: the first
    such token would be an index error deep inside the model."""
    rows = model.get_input_embeddings().weight.shape[0]
    if len(tokenizer) > rows:
        raise ModelError(f"{name}'s tokenizer has {len(tokenizer)} tokens but its embedding only "
                         f"{rows} rows (vocab_size in config.json): the tokenizer is not this model's")


def model_provenance(resolved: ResolvedModel, model: Any, revision: str | None) -> dict[str, Any]:
    """What identifies the weights: hub revision (commit), local file hashes, or for a model
    in memory its class, config, state and tokenizer hashes (:meth:`~.inmemory.InMemoryModel.identity`)."""
    out: dict[str, Any] = {"model": resolved.name, "location": resolved.location,
                           "architecture": type(model).__name__}
    if resolved.held is not None:
        return {**out, "in_memory": resolved.held.identity()}
    packaged = Path(resolved.location) / PACKAGED_RECORD
    if packaged.is_file():
        out["packaged"] = _packaged_record(resolved.name, json.loads(packaged.read_text()))
    if Path(resolved.location).is_dir():
        out["file_sha256"] = file_hashes(resolved.location)
    else:
        out["revision"] = getattr(model.config, "_commit_hash", None) or revision
    return out


def _packaged_record(name: str, record: dict[str, Any]) -> dict[str, Any]:
    """The conversion's record, with what the weights are (base or instruct, 4-bit) filled in
    for folders converted before the record said so."""
    spec = PACKAGED_MODELS.get(str(record.get("name", name)))
    if spec is None:
        return record
    return {"tuning": spec.tuning, "quantisation": spec.quantisation, **record}


def load_checked(auto_class: str, resolved: ResolvedModel, *, revision: str | None,
                 trust_remote_code: bool, dtype: str, device: str, what: str,
                 device_map: str | None = None) -> tuple[Any, Any]:
    """Model (via ``transformers.<auto_class>``) and tokenizer, refusing untrained heads.

    ``what`` names the model kind in the error ("a masked language model" …). The model
    loads in ``dtype`` with attention through PyTorch's scaled-dot-product kernels (SDPA:
    fused kernels on a GPU, less memory) where its architecture supports them, else its
    own attention (:func:`attention_of` says which ran). ``device_map`` (e.g. ``"auto"``)
    lets accelerate place the layers over the devices (and the host) for a model larger
    than one device; the model is then left where accelerate put it, and inputs go to
    :func:`input_device`. Without it the model moves to ``device``. A model in memory
    (``resolved.held``) is checked as it is, never loaded or moved (:func:`_take_checked`).
    """
    import transformers

    if resolved.held is not None:
        return _take_checked(auto_class, resolved.held, dtype=dtype, device=device, what=what, device_map=device_map)
    loader = getattr(transformers, auto_class)
    failures: tuple[type[BaseException], ...] = (OSError, ValueError, KeyError, *_weight_file_errors())
    options: dict[str, Any] = {"revision": revision, "trust_remote_code": trust_remote_code,
                               "output_loading_info": True, "dtype": torch_dtype(dtype),
                               # shapes that do not fit come back in the loading info, which
                               # names them, not as a RuntimeError pointing at a log line
                               "ignore_mismatched_sizes": True}
    if device_map is not None:
        options["device_map"] = device_map

    try:
        with no_progress_bars(), _no_load_report():
            model, info = _with_sdpa(loader, resolved.location, options)
        tokenizer = transformers.AutoTokenizer.from_pretrained(
            resolved.location, revision=revision, trust_remote_code=trust_remote_code)
    except failures as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ModelError(f"cannot load {resolved.name} as {what}: {first}") from exc
    check_weights_loaded(resolved.name, model, info)
    check_tokenizer(resolved.name, tokenizer)
    check_vocabulary_fits(resolved.name, model, tokenizer)
    if device_map is None:
        model = model.to(device)
    return model.eval(), tokenizer


def _take_checked(auto_class: str, held: InMemoryModel, *, dtype: str, device: str, what: str,
                  device_map: str | None) -> tuple[Any, Any]:
    """An in-memory model and its tokenizer, with the checks a loaded one gets that need no
    checkpoint (its tokenizer, its vocabulary's fit; the head and weight checks read the
    loading info, which it has none of), on its own device and in its own dtype, in eval mode
    (dropout off, as every scorer runs). Refused: a model of another kind than ``auto_class``
    builds for its config, a dtype or device other than its own, a ``device_map``."""
    import torch
    import transformers

    name, model = held.name, held.model
    mapping = getattr(transformers, auto_class)._model_mapping
    expected = mapping.get(type(model.config), None)  # this mapping takes no one-argument get
    if expected is not None and not isinstance(model, expected):
        raise ModelError(f"{name} is not {what}: {auto_class} builds {expected.__name__} for its config")
    if device_map is not None:
        raise ModelError(f"{name} is in memory and stays where it is: place it yourself instead of device_map")
    if held.dtype != dtype:
        raise ModelError(f"{name} holds {held.dtype} weights, not {dtype}: pass dtype={held.dtype!r} "
                         "or convert the model first (it is never converted in place)")
    if torch.device(held.device) != _indexed(device):
        raise ModelError(f"{name} is on {held.device}, not {device}: pass device={held.device!r} "
                         "or move the model first (it is never moved in place)")
    check_tokenizer(name, held.tokenizer)
    check_vocabulary_fits(name, model, held.tokenizer)
    return model.eval(), held.tokenizer


def _indexed(device: str) -> Any:
    """``cuda`` as the device it means, ``cuda:0`` (a model's tensors always name their index)."""
    import torch

    place = torch.device(device)
    return torch.device(place.type, 0) if place.index is None and place.type != "cpu" else place


@contextlib.contextmanager
def _no_load_report() -> Iterator[None]:
    """Transformers' warnings off for the load: it logs a table of every unexpected, missing
    or mismatched weight, which :func:`check_weights_loaded` then names in its one-line
    error (or accepts, for unused weights of another head, as transformers does)."""
    from transformers.utils import logging as hf_logging

    before = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()
    try:
        yield
    finally:
        hf_logging.set_verbosity(before)


def _with_sdpa(loader: Any, location: str, options: dict[str, Any]) -> tuple[Any, Any]:
    """``loader.from_pretrained`` asking for SDPA attention; an architecture without it
    (transformers refuses with a ValueError naming SDPA) loads with its own attention."""
    try:
        return cast("tuple[Any, Any]", loader.from_pretrained(location, attn_implementation="sdpa", **options))
    except ValueError as exc:
        if "sdpa" not in str(exc).lower() and "scaled_dot_product" not in str(exc).lower():
            raise
    return cast("tuple[Any, Any]", loader.from_pretrained(location, **options))


def attention_of(model: Any) -> str:
    """The attention implementation the loaded model runs (``sdpa``, ``eager`` …)."""
    return str(getattr(model.config, "_attn_implementation", None) or "eager")


def input_device(model: Any) -> str:
    """Where a model's inputs go: its input embeddings' device (the first device when
    accelerate spread the layers over several)."""
    return str(model.get_input_embeddings().weight.device)


def placement(model: Any, device_map: str | None) -> dict[str, Any]:
    """Provenance of how the model runs: its attention implementation, and with
    ``device_map`` the map asked for and the devices accelerate put the weights on."""
    out: dict[str, Any] = {"attention": attention_of(model)}
    if device_map is not None:
        placed = {str(p.device) for p in model.parameters()}
        out["device_map"] = {"requested": device_map, "devices": sorted(placed)}
    return out


def _weight_file_errors() -> tuple[type[BaseException], ...]:
    """What a damaged weight file raises (a truncated safetensors file is no OSError)."""
    try:
        from safetensors import SafetensorError
    except ImportError:
        return ()
    return (SafetensorError,)


def torch_dtype(name: str) -> Any:
    """torch's dtype for ``name`` (an alias too: :func:`biasatlas.values.canonical_dtype`)."""
    import torch

    return getattr(torch, canonical_dtype(name))
