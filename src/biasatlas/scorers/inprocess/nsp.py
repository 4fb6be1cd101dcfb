"""BERT's next-sentence-prediction head, for the masked-LM scorer's :class:`~biasatlas.probes.NextSentenceProbe` s.

Devlin et al. (2019) pretrain BERT with a second head: from the pooled ``[CLS]`` state of
``[CLS] A [SEP] B [SEP]`` (segment ids 0 for A, 1 for B), two logits, index 0 "B follows A"
(IsNext). StereoSet's intersentence numbers for BERT read it (``BertNextSentence`` in the
authors' ``models.py``; ``eval_discriminative_models.py`` takes the softmax's index 0 as the
candidate's score, the pair encoded by ``encode_plus(context, text_pair=candidate)``).

The masked-LM scorer loads ``AutoModelForMaskedLM``, which leaves that head out, so the head's
checkpoint is looked for apart (:func:`has_nsp_head`: its config names ``BertForPreTraining``
or ``BertForNextSentencePrediction``, or its safetensors weights hold
``cls.seq_relationship.weight``) and loaded as ``BertForNextSentencePrediction`` when the first
next-sentence probe comes (:class:`NextSentenceHead`). Its forwards are not in the scorer's
row and batch counts, which count LM-head rows.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ...errors import ModelError, UnscorableProbe
from ..batching import chunks
from ..resume import EVERY_ROW, Watch, launched
from .loading import ResolvedModel, torch_dtype

#: Architectures whose checkpoints carry the NSP head.
NSP_ARCHITECTURES = frozenset({"BertForPreTraining", "BertForNextSentencePrediction"})
_HEAD_WEIGHT = "cls.seq_relationship.weight"


def has_nsp_head(resolved: ResolvedModel, revision: str | None) -> bool:
    """Whether ``resolved``'s checkpoint has BERT's NSP head (module docstring); a model in
    memory is read as it was built, so never."""
    if resolved.held is not None:
        return False
    import transformers

    try:
        config = transformers.AutoConfig.from_pretrained(resolved.location, revision=revision)
    except (OSError, ValueError):
        return False
    if NSP_ARCHITECTURES & set(getattr(config, "architectures", None) or ()):
        return True
    return config.model_type == "bert" and any(_holds_head(f) for f in _weight_files(resolved.location, revision))


def _weight_files(location: str, revision: str | None) -> list[Path]:
    """The safetensors files of a local folder, or of a hub id's cached download."""
    folder = Path(location)
    if folder.is_dir():
        return sorted(folder.glob("*.safetensors"))
    from huggingface_hub import try_to_load_from_cache

    cached = try_to_load_from_cache(location, "model.safetensors", revision=revision)
    return [Path(cached)] if isinstance(cached, str) else []


def _holds_head(path: Path) -> bool:
    from safetensors import safe_open

    with safe_open(str(path), framework="pt") as weights:
        return _HEAD_WEIGHT in weights.keys()  # noqa: SIM118 (a safetensors handle, not a dict)


class NextSentenceHead:
    """log P(IsNext | first, second) for pairs of texts, in batches of ``batch_size``."""

    def __init__(self, resolved: ResolvedModel, revision: str | None, dtype: str, device: str, tokenizer: Any,
                 batch_size: int) -> None:
        self.resolved, self.revision, self.dtype, self.device = resolved, revision, dtype, device
        self.tokenizer, self.batch_size = tokenizer, max(batch_size, 1)
        self._model: Any = None

    def model(self) -> Any:
        """``BertForNextSentencePrediction`` from the checkpoint, loaded once; refused if the
        checkpoint lacks the head's weights (it would be freshly initialised)."""
        if self._model is None:
            import transformers

            model, info = transformers.BertForNextSentencePrediction.from_pretrained(
                self.resolved.location, revision=self.revision, dtype=torch_dtype(self.dtype),
                output_loading_info=True)
            missing = [k for k in info.get("missing_keys", ()) if "seq_relationship" in k or "pooler" in k]
            if missing:
                raise ModelError(f"{self.resolved.name}'s checkpoint lacks the NSP head ({missing[0]})")
            self._model = model.eval().to(self.device)
        return self._model

    def log_is_next(self, pairs: Sequence[tuple[str, str]], watch: Watch = EVERY_ROW) -> list[float]:
        """One log-probability of IsNext (the head's softmax, index 0) per pair, in order, in
        batches of ``batch_size`` pairs. ``watch`` (:class:`..resume.Watch`) gets pair indices: a
        batch holding no needed pair is skipped (NaN), and on Ctrl-C
        :class:`~..resume.Stopped` reads the batches that ran."""
        import torch

        limit = self.model().config.max_position_embeddings
        # Every pair is measured before any batch runs: a too-long one fails the call before it
        # computes (its probes are then scored one by one, each_alone), so Ctrl-C never keeps a
        # batched value that an uninterrupted call would have thrown away and computed alone.
        coded = self.tokenizer([a for a, _ in pairs], [b for _, b in pairs])["input_ids"] if pairs else []
        if coded and (n := max(map(len, coded))) > limit:
            raise UnscorableProbe(f"{n} tokens exceed the model's {limit}")

        def compute(batch: list[int]) -> list[float]:
            enc = self.tokenizer([pairs[i][0] for i in batch], [pairs[i][1] for i in batch], padding=True,
                                 return_tensors="pt")
            if enc["input_ids"].shape[1] > limit:
                raise UnscorableProbe(f"{enc['input_ids'].shape[1]} tokens exceed the model's {limit}")
            with torch.inference_mode():
                logits = self.model()(**{k: v.to(self.device) for k, v in enc.items()}).logits  # [B, 2]
            return [float(v) for v in torch.log_softmax(logits.float(), dim=-1)[:, 0].tolist()]

        return launched(chunks(list(range(len(pairs))), self.batch_size), compute, watch, partial_reader(len(pairs)))()


def partial_reader(n: int) -> Callable[[list[tuple[list[int], list[float]]]], Callable[[], list[float]]]:
    """The reader of :func:`..resume.launched` for batches of indices into ``n`` values (NaN
    for an index whose batch did not run)."""
    def reader(parts: list[tuple[list[int], list[float]]]) -> Callable[[], list[float]]:
        def read() -> list[float]:
            out = [math.nan] * n
            for batch, values in parts:
                for i, value in zip(batch, values):
                    out[i] = value
            return out

        return read

    return reader
