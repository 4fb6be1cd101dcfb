"""Masked-LM scorer: pseudo-log-likelihoods and slot probabilities.

Pair variants (METHODS.md §2):
- ``nangia`` (default): Nangia et al. 2020, eq. in §3 "Metric":
  ``score(S) = Σ_{u∈U} log P(u | S \\ u)`` over the shared tokens U of the pair, first
  and last shared position skipped, one mask at a time, modified tokens visible.
- ``modified-tokens``: each token outside the alignment's ``equal`` blocks is masked one
  at a time; the score is their *mean* log-probability (bias-bench ``crows.py``, whose
  ``_get_span(..., "diff")`` takes every such position, a special token included). A pair
  with no such token on a side is not scored: bias-bench skips it, and we refuse it with
  the reason (:meth:`MaskedLMScorer._refused`) rather than score the empty side 0.
- ``aul``: Kaneko & Bollegala 2022, "All Unmasked Likelihood": one unmasked pass, the
  mean log-probability of every non-special token; a sentence without one (an empty
  sentence) has no mean and is refused.

``nangia`` refuses nothing: an identical pair or one with an empty sentence sums to the
same score on both sides, a tie, as in the reference.

Slot probes: log P(filler | context) with all of the filler's tokens masked at once
(``multi_token="joint"``, a product of per-position softmaxes from one pass), only
the first sub-token under a single mask (``"first-token"``, the GeBNLP 2022 reading), or
piece by piece with the earlier pieces revealed (``"reveal"``, StereoSet's original loop:
:mod:`.reveal`).

Speed (DESIGN.md, "Performance stance"): every masked copy of a sentence is a *row*;
identical rows are computed once (so a shared census context is one row); rows are
sorted by length and cut into batches by a padded-token budget (``batch_size`` caps the
rows); the encoder runs once per row and the vocabulary projection only at the masked
positions, where each read is reduced on the model's device to its target's float32
log-softmax, so one number per masked token, never a vocabulary-sized row, reaches the
host, once per engine call; all under ``torch.inference_mode``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from functools import partial
from typing import Any

from ...errors import ModelError, UnscorableProbe, UnsupportedProbe
from ...probes import (MULTI_TOKEN_POLICIES, MultiToken, NextSentenceProbe, PairAnswer, PairProbe, Probe,
                      ScorerInfo, SentenceAnswer, SentenceProbe, SlotProbe)
from ..alignment import shared_positions
from .inmemory import InMemoryModel
from ...values import BatchSize, canonical_dtype, check_batch_size, check_device_name
from ..base import ModelScorer, Progress
from ..batch_size import DEFAULT_BATCH_SIZE
from ..job import Job
from ..resume import EVERY_ROW, Interrupted, Stopped, Watch
from ..batching import (AUTO_PROBE_WIDTH, JOB_PROBES, Picks, Request, Row, chunks, launch_target_sums, long_tensor,
                       pad_rows, slot_jobs, to_device, token_batches, token_limits, unpadded)
from .head_reading import head_chunk_rows, on_cpu, read_targets
from .loading import ResolvedModel, input_device, load_checked, model_provenance, placement, resolve
from .nsp import NextSentenceHead, has_nsp_head
from .reveal import reveal_jobs, reveal_requests
from ..spans import filler_positions

PAIR_VARIANTS = ("nangia", "modified-tokens", "aul")
#: Bumped when a variant's answers change for the same probe, so that the score cache (keyed
#: by :meth:`~..base.Scorer.fingerprint`) never serves an answer computed the old way.
#: modified-tokens 2: special tokens among the modified positions are scored; a side
#: without a modified token is refused, not scored 0.
VARIANT_REVISIONS = {"modified-tokens": 2}

# Batch cutting (batching.token_batches): at most this many padded tokens per forward and a
# forward's fixed cost counted as this many tokens. CPU: measured on 2 cores with a
# BERT-base-sized model on CrowS-Pairs (bench/speed/bench_crows.py); GPU: a forward's kernel
# launches cost thousands of tokens' arithmetic.
CPU_BATCH_TOKENS, CPU_FORWARD_OVERHEAD = 1024, 32
GPU_BATCH_TOKENS, GPU_FORWARD_OVERHEAD = 16384, 2048
# Masked positions per head chunk: the chunk's logits and log-softmax are [rows, V] floats.
CPU_HEAD_CHUNK_ROWS = 256

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

    def __init__(self, model: str | InMemoryModel, *,
                 variant: str = "nangia", batch_size: BatchSize = DEFAULT_BATCH_SIZE,
                 device: str = "cpu", dtype: str = "float32", revision: str | None = None,
                 trust_remote_code: bool = False, multi_token: MultiToken = "joint",
                 fast_head: bool = True, max_batch_tokens: int | None = None,
                 device_map: str | None = None) -> None:
        """``batch_size`` caps the rows of one forward pass (``"auto"``: the largest batch
        that fits on a CUDA device); ``max_batch_tokens`` caps its padded tokens (default:
        :data:`CPU_BATCH_TOKENS` on CPU, else :data:`GPU_BATCH_TOKENS`). Neither changes a
        score. ``dtype`` (``float32``, ``bfloat16``, ``float16``) is the weights' dtype;
        log-softmaxes are float32 whatever it is. ``device_map`` (``"auto"``) spreads a
        model too large for one device over several (accelerate)."""
        if variant not in PAIR_VARIANTS:
            raise UnsupportedProbe(f"masked-lm pair variant {variant!r} unknown; "
                                   f"choose one of {', '.join(PAIR_VARIANTS)}")
        if multi_token not in MULTI_TOKEN_POLICIES:
            raise UnsupportedProbe(f"multi-token policy {multi_token!r} unknown; "
                                   f"choose one of {', '.join(MULTI_TOKEN_POLICIES)}")
        requested, dtype, device = check_batch_size(batch_size), canonical_dtype(dtype), check_device_name(device)
        self.variant, self.multi_token = variant, multi_token
        self.dtype, self.revision, self.device_map = dtype, revision, device_map
        self.resolved = resolve(model)
        self.model, self.tokenizer = _load(self.resolved, revision, trust_remote_code,
                                           dtype, device, device_map)
        self.device = device if device_map is None else input_device(self.model)
        self._head = _HEADS.get(type(self.model).__name__) if fast_head else None
        self._encoded: dict[str, list[int]] = {}
        cpu = on_cpu(self.device)
        self.forward_overhead = CPU_FORWARD_OVERHEAD if cpu else GPU_FORWARD_OVERHEAD
        self.head_chunk = head_chunk_rows(self.device, self.model.config.vocab_size, CPU_HEAD_CHUNK_ROWS)
        limits = token_limits(requested, self.device, max_batch_tokens, CPU_BATCH_TOKENS if cpu else GPU_BATCH_TOKENS,
                              self._probe_batch, (self.name, self.resolved.location, dtype, self.device))
        self.batch_size, self.batch_described, self.max_batch_tokens = limits.rows, limits.described, limits.tokens
        self._nsp = (NextSentenceHead(self.resolved, revision, dtype, self.device, self.tokenizer, self.batch_size)
                     if has_nsp_head(self.resolved, revision) else None)

    @property
    def info(self) -> ScorerInfo:
        """Slot answers are log P(filler | context) read at the mask."""
        return ScorerInfo(kind=self.name, reads="masked", multi_token=self.multi_token, dtype=self.dtype,
                          mask_token=self.tokenizer.mask_token, next_sentence=self._nsp is not None, generates=False)

    # -- probes → jobs ------------------------------------------------------------------
    def _pair_jobs(self, probes: list[PairProbe]) -> Iterator[Job]:
        for chunk in chunks(probes, JOB_PROBES):  # one job per pipeline chunk: batched as a whole
            self._encode_ahead(s for p in chunk for s in (p.a, p.b))
            plans = [self._pair_plan(p) for p in chunk]
            yield Job([r for plan in plans for side in plan for r in side],
                      partial(self._pair_answers, chunk, plans), len(chunk),
                      [(p.id, len(a) + len(b)) for p, (a, b) in zip(chunk, plans)])

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

    @staticmethod
    def _modified(ids: list[int], shared: list[int]) -> list[int]:
        """Every position outside the shared blocks, special tokens included (bias-bench)."""
        keep = set(shared)
        return [i for i in range(len(ids)) if i not in keep]

    def _refused(self, probes: Sequence[Probe]) -> dict[str, str]:
        """Pairs the variant cannot score by definition (module docstring), found from the
        tokenizer alone: under ``modified-tokens`` a side with no modified token, under
        ``aul`` a sentence with no non-special token."""
        pairs = [p for p in probes if isinstance(p, PairProbe)]
        if self.variant == "nangia" or not pairs:
            return {}
        texts = list(dict.fromkeys(s for p in pairs for s in (p.a, p.b)))
        ids = dict(zip(texts, self.tokenizer(texts, add_special_tokens=True)["input_ids"]))
        special = set(self.tokenizer.all_special_ids)
        refused = {}
        for probe in pairs:
            ids_a, ids_b = ids[probe.a], ids[probe.b]
            if self.variant == "aul":
                if not all(any(t not in special for t in side) for side in (ids_a, ids_b)):
                    refused[probe.id] = "an empty sentence: no token to average (aul)"
                continue
            shared_a, shared_b = shared_positions(ids_a, ids_b)
            sides = [n for n, (side, shared) in enumerate(((ids_a, shared_a), (ids_b, shared_b)), start=1)
                     if not self._modified(side, shared)]
            if sides:
                refused[probe.id] = (f"no modified token in sentence {sides[0]} (modified-tokens skips "
                                     "the pair, as bias-bench does)")
        return refused

    def _one_mask_each(self, ids: list[int], positions: list[int]) -> list[Request]:
        mask = (self.tokenizer.mask_token_id,)
        row = tuple(ids)
        return [(Row(row[:pos] + mask + row[pos + 1:], (pos,)), (row[pos],)) for pos in positions]

    def _unmasked(self, ids: list[int]) -> Request:
        special = set(self.tokenizer.all_special_ids)
        positions = tuple(i for i, t in enumerate(ids) if t not in special)
        return Row(tuple(ids), positions), tuple(ids[i] for i in positions)

    def _slot_jobs(self, probes: list[SlotProbe]) -> Iterator[Job]:
        if self.multi_token == "reveal":  # one row per piece of each filler (.reveal)
            return reveal_jobs(probes, partial(reveal_requests, self.tokenizer, self.encode), chunk=JOB_PROBES)
        return slot_jobs(probes, self._slot_request, chunk=JOB_PROBES)

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

    def _next_sentences(self, probes: list[NextSentenceProbe], tick: Progress,
                        answered: frozenset[str] = frozenset()) -> list[SentenceAnswer]:
        """log P(IsNext | first, second) from the checkpoint's NSP head (:mod:`.nsp`), in its
        batches over all ``probes``: those of ``answered`` probes only are skipped, and on
        Ctrl-C the pairs of the batches that ran are kept (:mod:`..resume`)."""
        if self._nsp is None:
            raise self._unsupported("next-sentence")
        needed = frozenset(i for i, p in enumerate(probes) if p.id not in answered)
        watch = Watch(needed, lambda batch: tick(len(needed.intersection(batch))))
        pairs = [(p.first, p.second) for p in probes]
        try:
            values = self._nsp.log_is_next(pairs, watch)
        except Stopped as stop:
            got = stop.read()
            raise Interrupted({p.id: SentenceAnswer(p.id, got[i], 1) for i, p in enumerate(probes)
                               if i in needed and not math.isnan(got[i])}) from None
        return [SentenceAnswer(p.id, values[i], 1) for i, p in enumerate(probes) if i in needed]

    def _sentence_jobs(self, probes: list[SentenceProbe]) -> Iterator[Job]:
        """Pseudo-log-likelihood of every non-special token (Salazar et al. 2020), one
        engine call per sentence."""
        special = set(self.tokenizer.all_special_ids)
        for probe in probes:
            ids = self.encode(probe.text)
            reqs = self._one_mask_each(ids, [i for i, t in enumerate(ids) if t not in special])
            yield Job(reqs, partial(_sentence_answer, probe.id, len(reqs)), 1, [(probe.id, len(reqs))])

    # -- engine -------------------------------------------------------------------------
    def encode(self, text: str) -> list[int]:
        ids = self._encoded.get(text)
        if ids is None:
            ids = self.tokenizer(text, add_special_tokens=True)["input_ids"]
        limit = getattr(self.model.config, "max_position_embeddings", None)
        if limit and len(ids) > limit:
            raise UnscorableProbe(f"{len(ids)} tokens exceed the model's {limit}: {text[:60]!r}")
        return list(ids)

    def _encode_ahead(self, texts: Iterable[str]) -> None:
        """Encode a chunk's texts in one tokenizer call, for :meth:`encode` to find (a
        tokenizer call costs ~100 µs of Python around a few µs of encoding; a batch encodes
        each text as a single call does). Only the current chunk's texts are kept."""
        unique = list(dict.fromkeys(texts))
        ids = self.tokenizer(unique, add_special_tokens=True)["input_ids"] if unique else []
        self._encoded = dict(zip(unique, ids))

    def logprob_sums(self, requests: Sequence[Request], work: dict[str, int] | None = None) -> list[float]:
        """For each (row, targets): Σ_j log softmax(logits[row, pos_j])[target_j]."""
        return self._launch(requests, {} if work is None else work)()

    def _launch(self, requests: Sequence[Any], work: dict[str, int], watch: Watch = EVERY_ROW) -> Any:
        """Queue every batch of ``requests`` that ``watch`` needs (:func:`..batching.launch_target_sums`)."""
        return launch_target_sums(list(requests), self._batches, self._target_logprobs, work, watch)

    def _batch_plan(self, requests: Sequence[Any]) -> list[list[Any]]:
        return self._batches(list(dict.fromkeys(row for row, _ in requests)))

    def _batches(self, rows: list[Row]) -> list[list[Row]]:
        """Length-sorted batches under the row cap and the padded-token budget."""
        return token_batches(rows, max(self.batch_size, 1), self.max_batch_tokens, self.forward_overhead)

    def _planned_batches(self, calls: list[Sequence[Any]], rows: set[Any]) -> int:
        """Batches as :meth:`_batches` cuts each engine call's distinct rows."""
        return sum(len(self._batches(list(dict.fromkeys(row for row, _ in call)))) for call in calls)

    def _target_logprobs(self, rows: list[Row], picks: Picks) -> Any:
        """``[M]`` log-probabilities of the picks' targets, on the model's device: the
        encoder over the rows, the head at the masked positions only, float32 log-softmax
        and gather there (:func:`.head_reading.read_targets`)."""
        import torch

        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0
        ids, attention, _, _ = pad_rows(rows, pad)
        ids = to_device(ids, self.device)
        attention = unpadded(attention, rows)
        attention = None if attention is None else to_device(attention, self.device)
        b_idx, p_idx, targets = (long_tensor(v, self.device) for v in (picks.row, picks.position, picks.target))
        with torch.inference_mode():
            if self._head is None:  # generic path: the model's own full projection, then gather
                logits = self.model(input_ids=ids, attention_mask=attention).logits
                return read_targets(logits[b_idx.to(logits.device), p_idx.to(logits.device)], targets,
                                    None, self.head_chunk)
            base = getattr(self.model, self.model.base_model_prefix)
            hidden = base(input_ids=ids, attention_mask=attention)[0]  # [B, L, H]
            states = hidden[b_idx.to(hidden.device), p_idx.to(hidden.device)]  # [M, H]: masked positions
            return read_targets(states, targets, self._project, self.head_chunk)

    def _project(self, states: Any) -> Any:
        """Vocabulary logits of encoder states: the architecture's head modules, in order."""
        for name in self._head or ():
            states = getattr(self.model, name)(states)
        return states  # [M, V]

    def _probe_batch(self, n: int) -> None:
        """``n`` rows of :data:`AUTO_PROBE_WIDTH` tokens, one mask each, as the engine runs
        them (for ``batch_size="auto"``); waits for the device."""
        import torch

        mask = self.tokenizer.mask_token_id
        width = min(AUTO_PROBE_WIDTH, getattr(self.model.config, "max_position_embeddings", None)
                    or AUTO_PROBE_WIDTH)
        rows = [Row(tuple([mask] * width), (width // 2,))] * n
        self._target_logprobs(rows, Picks(list(range(n)), [width // 2] * n, [mask] * n))
        torch.cuda.synchronize()

    def describe(self) -> dict[str, Any]:
        revision = VARIANT_REVISIONS.get(self.variant)
        return {"scorer": self.name, "variant": self.variant, "multi_token": self.multi_token,
                **({"variant_revision": revision} if revision else {}),
                **({"next_sentence_head": True} if self._nsp is not None else {}),
                "dtype": self.dtype, "device": self.device, "batch_size": self.batch_described,
                "max_batch_tokens": self.max_batch_tokens, "tokenizer": type(self.tokenizer).__name__,
                **placement(self.model, self.device_map),
                **model_provenance(self.resolved, self.model, self.revision)}


def _n_tokens(requests: list[Request]) -> int:
    """Token log-probabilities a side's score sums or averages: one per read position
    (one per masked copy for ``nangia`` and ``modified-tokens``, every token of the one
    unmasked row for ``aul``)."""
    return sum(len(row.positions) for row, _ in requests)


def _sentence_answer(probe_id: str, n_tokens: int, values: list[float]) -> list[SentenceAnswer]:
    return [SentenceAnswer(probe_id, float(sum(values)), n_tokens)]


def _load(resolved: ResolvedModel, revision: str | None, trust_remote_code: bool,
          dtype: str, device: str, device_map: str | None) -> tuple[Any, Any]:
    model, tokenizer = load_checked("AutoModelForMaskedLM", resolved, revision=revision,
                                    trust_remote_code=trust_remote_code, dtype=dtype,
                                    device=device, what="a masked language model", device_map=device_map)
    if tokenizer.mask_token_id is None:
        raise ModelError(f"{resolved.name}'s tokenizer has no mask token")
    return model, tokenizer
