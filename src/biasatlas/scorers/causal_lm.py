"""Causal-LM scorer: sentence log-likelihoods for pairs, slots and sentences.

Pair variants (METHODS.md §2, "Other variants"):
- ``sentence-ll`` (default): the lm-evaluation-harness formulation: an empty context
  becomes the prefix token (BOS, else EOS), and the score is the sum of
  ``log P(token_t | prefix, tokens_<t)`` over every token of the sentence.
- ``shared-ll``: the same conditional log-probabilities, summed only over the tokens the
  two sentences share (the difflib alignment of Nangia et al.), a causal analogue of
  the masked-LM metric that ignores the modified words' own probability.

Slot probes are answered with the sentence log-likelihood of each filled-in sentence;
benchmarks normalise over their candidate fillers. Continuation probes are answered with
``log P(continuation | BOS + context)``: the same row as the whole sentence, summed over
the continuation's tokens only.
"""

from __future__ import annotations

from typing import Any

from ..errors import ModelError, UnsupportedProbe
from ..probes import (ContinuationProbe, PairAnswer, PairProbe, SentenceAnswer, SentenceProbe,
                      SlotAnswer, SlotProbe)
from .alignment import shared_positions
from .base import Progress, Scorer
from .batching import Request, Row, answer_options, answer_slots, chunks, logprob_sums, pad_rows
from .loading import load_checked, model_provenance, resolve
from .spans import continuation_positions, filler_positions, split_continuation

PAIR_VARIANTS = ("sentence-ll", "shared-ll")


class CausalLMScorer(Scorer):
    name = "causal-lm"

    def __init__(self, model: str, *, variant: str = "sentence-ll", batch_size: int = 16,
                 device: str = "cpu", dtype: str = "float32", revision: str | None = None,
                 trust_remote_code: bool = False) -> None:
        if variant not in PAIR_VARIANTS:
            raise UnsupportedProbe(f"causal-lm pair variant {variant!r} unknown; "
                                   f"choose one of {', '.join(PAIR_VARIANTS)}")
        self.variant, self.batch_size = variant, int(batch_size)
        self.device, self.dtype, self.revision = device, dtype, revision
        self.resolved = resolve(model)
        self.model, self.tokenizer = load_checked(
            "AutoModelForCausalLM", self.resolved, revision=revision,
            trust_remote_code=trust_remote_code, dtype=dtype, device=device,
            what="a causal language model")
        prefix = self.tokenizer.bos_token_id
        self.prefix_id = prefix if prefix is not None else self.tokenizer.eos_token_id
        if self.prefix_id is None:
            raise ModelError(f"{model}'s tokenizer has neither a BOS nor an EOS token to start from")
        self.counters: dict[str, int] = {}

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text`` without special tokens (the prefix is added per row)."""
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def _request(self, ids: list[int], scored: list[int] | None = None) -> Request:
        """Row = prefix + ids; token ``ids[i]`` is predicted from logits position ``i``."""
        scored = list(range(len(ids))) if scored is None else scored
        limit = getattr(self.model.config, "max_position_embeddings", None)
        if limit and len(ids) + 1 > limit:
            raise UnsupportedProbe(f"{len(ids) + 1} tokens exceed the model's {limit}")
        return Row((self.prefix_id, *ids), tuple(scored)), tuple(ids[i] for i in scored)

    def _pairs(self, probes: list[PairProbe], tick: Progress) -> list[PairAnswer]:
        answers = []
        for chunk in chunks(probes, 256):
            plans = [self._pair_plan(p) for p in chunk]
            values = iter(self.logprob_sums([r for plan in plans for r in plan]))
            for probe, (req_a, req_b) in zip(chunk, plans):
                answers.append(PairAnswer(probe.id, next(values), next(values),
                                          len(req_a[1]), len(req_b[1])))
            tick(len(chunk))
        return answers

    def _pair_plan(self, probe: PairProbe) -> tuple[Request, Request]:
        ids_a, ids_b = self.encode(probe.a), self.encode(probe.b)
        if self.variant == "sentence-ll":
            return self._request(ids_a), self._request(ids_b)
        shared_a, shared_b = shared_positions(ids_a, ids_b)
        return self._request(ids_a, shared_a), self._request(ids_b, shared_b)

    def _slots(self, probes: list[SlotProbe], tick: Progress) -> list[SlotAnswer]:
        return answer_slots(probes, tick, self._slot_request, self.logprob_sums, chunk=256)

    def _slot_request(self, left: str, filler: str, right: str) -> tuple[Request, int]:
        ids = self.encode(left + filler + right)
        tokens_of_filler = len(_filler_span(self.tokenizer, left, filler, right))
        return self._request(ids), tokens_of_filler

    def _continuations(self, probes: list[ContinuationProbe], tick: Progress) -> list[SlotAnswer]:
        return answer_options(probes, tick, lambda p: [self._continuation_request(c, p.continuation)
                                                       for c in p.contexts],
                              self.logprob_sums, chunk=256)

    def _continuation_request(self, context: str, continuation: str) -> tuple[Request, int]:
        context, continuation = split_continuation(context, continuation)
        ids = self.encode(context + continuation)
        scored = continuation_positions(ids, self.encode(context), set())
        return self._request(ids, scored), len(scored)

    def _sentences(self, probes: list[SentenceProbe], tick: Progress) -> list[SentenceAnswer]:
        requests = [self._request(self.encode(p.text)) for p in probes]
        values = self.logprob_sums(requests)
        tick(len(probes))
        return [SentenceAnswer(p.id, v, len(r[1])) for p, v, r in zip(probes, values, requests)]

    def logprob_sums(self, requests: list[Request]) -> list[float]:
        return logprob_sums(requests, self.batch_size, self._logprobs_at_positions, self.counters)

    def _logprobs_at_positions(self, rows: list[Row]) -> Any:
        import torch

        pad = self.tokenizer.pad_token_id
        ids, attention, b_idx, p_idx = (t.to(self.device) for t in
                                        pad_rows(rows, pad if pad is not None else self.prefix_id))
        with torch.inference_mode():
            logits = self.model(input_ids=ids, attention_mask=attention).logits  # [B, L, V]
            return torch.log_softmax(logits[b_idx, p_idx].float(), dim=-1).cpu()  # [M, V]

    def describe(self) -> dict[str, Any]:
        return {"scorer": self.name, "variant": self.variant, "dtype": self.dtype,
                "device": self.device, "batch_size": self.batch_size,
                "prefix_token_id": self.prefix_id, "tokenizer": type(self.tokenizer).__name__,
                **model_provenance(self.resolved, self.model, self.revision)}


def _filler_span(tokenizer: Any, left: str, filler: str, right: str) -> list[int]:
    """Positions of the filler's tokens in the filled sentence (for reporting only)."""
    try:
        return filler_positions(tokenizer, left, filler, right)[1]
    except UnsupportedProbe:
        return []

