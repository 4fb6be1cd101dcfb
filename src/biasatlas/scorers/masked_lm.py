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

from typing import Any

from ..errors import ModelError, UnsupportedProbe
from ..probes import PairAnswer, PairProbe, SentenceAnswer, SentenceProbe, SlotAnswer, SlotProbe
from .alignment import shared_positions
from .base import Progress, Scorer
from .batching import Request, Row, answer_slots, chunks, logprob_sums, pad_rows
from .loading import ResolvedModel, load_checked, model_provenance, resolve
from .spans import filler_positions

PAIR_VARIANTS = ("nangia", "modified-tokens", "aul")
MULTI_TOKEN_POLICIES = ("joint", "first-token")

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


class MaskedLMScorer(Scorer):
    name = "masked-lm"

    def __init__(self, model: str, *, variant: str = "nangia", batch_size: int = 64,
                 device: str = "cpu", dtype: str = "float32", revision: str | None = None,
                 trust_remote_code: bool = False, multi_token: str = "joint",
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

    # -- probes -------------------------------------------------------------------------
    def _pairs(self, probes: list[PairProbe], tick: Progress) -> list[PairAnswer]:
        answers = []
        for chunk in chunks(probes, 256):  # bounded memory, steady progress
            plans = [self._pair_plan(p) for p in chunk]
            values = iter(self.logprob_sums([r for plan in plans for side in plan for r in side]))
            for probe, (req_a, req_b) in zip(chunk, plans):
                got_a = [next(values) for _ in req_a]
                got_b = [next(values) for _ in req_b]
                answers.append(PairAnswer(probe.id, self._reduce(got_a, req_a),
                                          self._reduce(got_b, req_b), len(got_a), len(got_b)))
            tick(len(chunk))
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
        out = []
        for pos in positions:
            masked = list(ids)
            masked[pos] = mask
            out.append((Row(tuple(masked), (pos,)), (ids[pos],)))
        return out

    def _unmasked(self, ids: list[int]) -> Request:
        special = set(self.tokenizer.all_special_ids)
        positions = tuple(i for i, t in enumerate(ids) if t not in special)
        return Row(tuple(ids), positions), tuple(ids[i] for i in positions)

    def _slots(self, probes: list[SlotProbe], tick: Progress) -> list[SlotAnswer]:
        return answer_slots(probes, tick, self._slot_request, self.logprob_sums, chunk=512)

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

    def _sentences(self, probes: list[SentenceProbe], tick: Progress) -> list[SentenceAnswer]:
        """Pseudo-log-likelihood of every non-special token (Salazar et al. 2020)."""
        special = set(self.tokenizer.all_special_ids)
        answers = []
        for probe in probes:
            ids = self.encode(probe.text)
            reqs = self._one_mask_each(ids, [i for i, t in enumerate(ids) if t not in special])
            answers.append(SentenceAnswer(probe.id, float(sum(self.logprob_sums(reqs))), len(reqs)))
        tick(len(probes))
        return answers

    # -- engine -------------------------------------------------------------------------
    def encode(self, text: str) -> list[int]:
        ids = self.tokenizer(text, add_special_tokens=True)["input_ids"]
        limit = getattr(self.model.config, "max_position_embeddings", None)
        if limit and len(ids) > limit:
            raise UnsupportedProbe(f"{len(ids)} tokens exceed the model's {limit}: {text[:60]!r}")
        return list(ids)

    def logprob_sums(self, requests: list[Request]) -> list[float]:
        """For each (row, targets): Σ_j log softmax(logits[row, pos_j])[target_j]."""
        return logprob_sums(requests, self.batch_size, self._logprobs_at_positions, self.counters)

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


def _load(resolved: ResolvedModel, revision: str | None, trust_remote_code: bool,
          dtype: str, device: str) -> tuple[Any, Any]:
    model, tokenizer = load_checked("AutoModelForMaskedLM", resolved, revision=revision,
                                    trust_remote_code=trust_remote_code, dtype=dtype,
                                    device=device, what="a masked language model")
    if tokenizer.mask_token_id is None:
        raise ModelError(f"{resolved.name}'s tokenizer has no mask token")
    return model, tokenizer

