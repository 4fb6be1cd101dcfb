"""Masked-LM scorer: pseudo-log-likelihoods and slot probabilities.

Pair variants (METHODS.md §2):
- ``nangia`` (default): Nangia et al. 2020, eq. in §3 "Metric":
  ``score(S) = Σ_{u∈U} log P(u | S \\ u)`` over the shared tokens U of the pair, first
  and last shared position skipped, one mask at a time, modified tokens visible.
- ``modified-tokens``: each token that differs between the two sentences is masked
  one at a time; the score is their *mean* log-probability (the bias-bench reading).
- ``aul``: Kaneko & Bollegala 2022, "All Unmasked Likelihood": one unmasked pass, the
  mean log-probability of every non-special token.

Slot probes: log P(filler | context) with all of the filler's tokens masked at once
(``multi_token="joint"``, a product of per-position softmaxes from one pass), or only
the first sub-token under a single mask (``"first-token"``, the GeBNLP 2022 reading).

Speed (DESIGN.md, "Performance stance"): every masked copy of a sentence is a *row*;
identical rows are computed once (so a shared census context is one row); rows are
sorted by length and batched; the encoder runs once per row and the vocabulary
projection only at the masked positions; all under ``torch.inference_mode``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import partial
from typing import Any

from ..errors import ModelError, UnsupportedProbe
from ..probes import (MULTI_TOKEN_POLICIES, MultiToken, PairAnswer, PairProbe, ScorerInfo,
                      SentenceAnswer, SentenceProbe, SlotProbe)
from .alignment import shared_positions
from .base import Job, ModelScorer
from .batching import Request, Row, chunks, logprob_sums, pad_rows, slot_jobs
from .loading import ResolvedModel, load_checked, model_provenance, resolve
from .spans import filler_positions

PAIR_VARIANTS = ("nangia", "modified-tokens", "aul")

# Modules applied, in order, to encoder states to get vocabulary logits. Applying them
# to the gathered masked positions only is what saves the [rows, length, vocab] product.
_HEADS: dict[str, tuple[str, ...]] = {
    "BertForMaskedLM": ("cls",),
    "RobertaForMaskedLM": ("lm_head",),
    "XLMRobertaForMaskedLM": ("lm_head",),
    "CamembertForMaskedLM": ("lm_head",),
    "AlbertForMaskedLM": ("predictions",),
    "ElectraForMaskedLM": ("generator_predictions", "generator_lm_head"),
    "DistilBertForMaskedLM": ("vocab_transform", "activation", "vocab_layer_norm", "vocab_projector"),
}


class MaskedLMScorer(ModelScorer):
    name = "masked-lm"

    def __init__(self, model: str, *, variant: str = "nangia", batch_size: int = 64,
                 device: str = "cpu", dtype: str = "float32", revision: str | None = None,
                 trust_remote_code: bool = False, multi_token: MultiToken = "joint",
                 fast_head: bool = True) -> None:
        if variant not in PAIR_VARIANTS:
            raise UnsupportedProbe(f"masked-lm pair variant {variant!r} unknown; "
                                   f"choose one of {', '.join(PAIR_VARIANTS)}")
        if multi_token not in MULTI_TOKEN_POLICIES:
            raise UnsupportedProbe(f"multi-token policy {multi_token!r} unknown; "
                                   f"choose one of {', '.join(MULTI_TOKEN_POLICIES)}")
        self.variant, self.batch_size, self.multi_token = variant, int(batch_size), multi_token
        self.device, self.dtype, self.revision = device, dtype, revision
        self.resolved = resolve(model)
        self.model, self.tokenizer = _load(self.resolved, revision, trust_remote_code,
                                           dtype, device)
        self._head = _HEADS.get(type(self.model).__name__) if fast_head else None
        self.counters = {"rows_requested": 0, "rows_computed": 0, "batches": 0}

    @property
    def info(self) -> ScorerInfo:
        """Slot answers are log P(filler | context) read at the mask."""
        return ScorerInfo(kind=self.name, reads="masked", multi_token=self.multi_token)

    # -- probes → jobs ------------------------------------------------------------------
    def _pair_jobs(self, probes: list[PairProbe]) -> Iterator[Job]:
        for chunk in chunks(probes, 256):  # bounded memory, steady progress
            plans = [self._pair_plan(p) for p in chunk]
            yield Job([r for plan in plans for side in plan for r in side],
                      partial(self._pair_answers, chunk, plans), len(chunk))

    def _pair_answers(self, chunk: list[PairProbe], plans: list[tuple[list[Request], list[Request]]],
                      values: list[float]) -> list[PairAnswer]:
        got = iter(values)
        answers = []
        for probe, (req_a, req_b) in zip(chunk, plans):
            got_a = [next(got) for _ in req_a]
            got_b = [next(got) for _ in req_b]
            answers.append(PairAnswer(probe.id, self._reduce(got_a, req_a), self._reduce(got_b, req_b),
                                      _n_tokens(req_a), _n_tokens(req_b)))
        return answers

    def _reduce(self, values: list[float], requests: list[Request]) -> float:
        if self.variant == "nangia":
            return float(sum(values))
        count = sum(len(r[0].positions) for r in requests)
        return float(sum(values)) / count if count else 0.0

    def _pair_plan(self, probe: PairProbe) -> tuple[list[Request], list[Request]]:
        ids_a, ids_b = self.encode(probe.a), self.encode(probe.b)
        if self.variant == "aul":
            return [self._unmasked(ids_a)], [self._unmasked(ids_b)]
        shared_a, shared_b = shared_positions(ids_a, ids_b)
        if self.variant == "nangia":
            # The reference masks template[1:-1]: skip the first and last shared position.
            return self._one_mask_each(ids_a, shared_a[1:-1]), self._one_mask_each(ids_b, shared_b[1:-1])
        return (self._one_mask_each(ids_a, self._modified(ids_a, shared_a)),
                self._one_mask_each(ids_b, self._modified(ids_b, shared_b)))

    def _modified(self, ids: list[int], shared: list[int]) -> list[int]:
        special = set(self.tokenizer.all_special_ids)
        keep = set(shared)
        return [i for i, t in enumerate(ids) if i not in keep and t not in special]

    def _one_mask_each(self, ids: list[int], positions: list[int]) -> list[Request]:
        mask = self.tokenizer.mask_token_id
        out: list[Request] = []
        for pos in positions:
            masked = list(ids)
            masked[pos] = mask
            out.append((Row(tuple(masked), (pos,)), (ids[pos],)))
        return out

    def _unmasked(self, ids: list[int]) -> Request:
        special = set(self.tokenizer.all_special_ids)
        positions = tuple(i for i, t in enumerate(ids) if t not in special)
        return Row(tuple(ids), positions), tuple(ids[i] for i in positions)

    def _slot_jobs(self, probes: list[SlotProbe]) -> Iterator[Job]:
        return slot_jobs(probes, self._slot_request, chunk=512)

    def _slot_request(self, left: str, filler: str, right: str) -> tuple[Request, int]:
        """The masked row for one filler, and the filler's token count in context."""
        ids, positions = filler_positions(self.tokenizer, left, filler, right)
        mask = self.tokenizer.mask_token_id
        if self.multi_token == "first-token":
            # One mask replaces the whole word; its first sub-token is the target.
            target = ids[positions[0]]
            masked = ids[: positions[0]] + [mask] + ids[positions[-1] + 1:]
            return (Row(tuple(masked), (positions[0],)), (target,)), len(positions)
        masked = list(ids)
        for pos in positions:
            masked[pos] = mask
        return (Row(tuple(masked), tuple(positions)), tuple(ids[p] for p in positions)), len(positions)

    def _sentence_jobs(self, probes: list[SentenceProbe]) -> Iterator[Job]:
        """Pseudo-log-likelihood of every non-special token (Salazar et al. 2020), one
        engine call per sentence."""
        special = set(self.tokenizer.all_special_ids)
        for probe in probes:
            ids = self.encode(probe.text)
            reqs = self._one_mask_each(ids, [i for i, t in enumerate(ids) if t not in special])
            yield Job(reqs, partial(_sentence_answer, probe.id, len(reqs)), 1)

    # -- engine -------------------------------------------------------------------------
    def encode(self, text: str) -> list[int]:
        ids = self.tokenizer(text, add_special_tokens=True)["input_ids"]
        limit = getattr(self.model.config, "max_position_embeddings", None)
        if limit and len(ids) > limit:
            raise UnsupportedProbe(f"{len(ids)} tokens exceed the model's {limit}: {text[:60]!r}")
        return list(ids)

    def logprob_sums(self, requests: Sequence[Request]) -> list[float]:
        """For each (row, targets): Σ_j log softmax(logits[row, pos_j])[target_j]."""
        return logprob_sums(list(requests), self.batch_size, self._logprobs_at_positions,
                            self.counters)

    def _logprobs_at_positions(self, rows: list[Row]) -> Any:
        import torch

        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0
        ids, attention, b_idx, p_idx = (t.to(self.device) for t in pad_rows(rows, pad))
        with torch.inference_mode():
            logits = self._logits(ids, attention, b_idx, p_idx)
            return torch.log_softmax(logits.float(), dim=-1).cpu()  # [M, V]

    def _logits(self, ids: Any, attention: Any, b_idx: Any, p_idx: Any) -> Any:
        if self._head is None:  # generic path: full vocabulary projection, then gather
            return self.model(input_ids=ids, attention_mask=attention).logits[b_idx, p_idx]
        base = getattr(self.model, self.model.base_model_prefix)
        hidden = base(input_ids=ids, attention_mask=attention)[0]  # [B, L, H]
        states = hidden[b_idx, p_idx]  # [M, H]: only the masked positions
        for name in self._head:
            states = getattr(self.model, name)(states)
        return states  # [M, V]

    def describe(self) -> dict[str, Any]:
        return {"scorer": self.name, "variant": self.variant, "multi_token": self.multi_token,
                "dtype": self.dtype, "device": self.device, "batch_size": self.batch_size,
                "tokenizer": type(self.tokenizer).__name__,
                **model_provenance(self.resolved, self.model, self.revision)}


def _n_tokens(requests: list[Request]) -> int:
    """Token log-probabilities a side's score sums or averages: one per read position
    (one per masked copy for ``nangia`` and ``modified-tokens``, every token of the one
    unmasked row for ``aul``)."""
    return sum(len(row.positions) for row, _ in requests)


def _sentence_answer(probe_id: str, n_tokens: int, values: list[float]) -> list[SentenceAnswer]:
    return [SentenceAnswer(probe_id, float(sum(values)), n_tokens)]


def _load(resolved: ResolvedModel, revision: str | None, trust_remote_code: bool,
          dtype: str, device: str) -> tuple[Any, Any]:
    model, tokenizer = load_checked("AutoModelForMaskedLM", resolved, revision=revision,
                                    trust_remote_code=trust_remote_code, dtype=dtype,
                                    device=device, what="a masked language model")
    if tokenizer.mask_token_id is None:
        raise ModelError(f"{resolved.name}'s tokenizer has no mask token")
    return model, tokenizer

