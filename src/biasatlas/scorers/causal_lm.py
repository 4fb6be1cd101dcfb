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

Engine (why it is shaped so: bench/bench_causal.py, and the profile in its docstring):
rows are cut into batches by a padded-token budget over length-sorted rows, with
``batch_size`` as the cap on rows; the decoder stack runs once per batch; the vocabulary
projection runs only at the positions a request reads, and each read is reduced on the
model's device to its target's log-softmax, so one number per token, not a
vocabulary-sized row, reaches the host. Architectures whose head we have not checked get
the model's own full forward and the same on-device reduction.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from ..errors import ModelError, UnsupportedProbe
from ..probes import (ContinuationProbe, PairAnswer, PairProbe, ScorerInfo, SentenceAnswer,
                      SentenceProbe, SlotProbe)
from .alignment import shared_positions
from .base import Job, ModelScorer
from .batching import (Picks, Request, Row, chunks, option_jobs, pad_rows, slot_jobs,
                       target_logprob_sums, token_batches)
from .loading import load_checked, model_provenance, resolve
from .prefix import Group, groups_worth_sharing, prefix_batches, shared_states
from .spans import continuation_positions, filler_positions, split_continuation

PAIR_VARIANTS = ("sentence-ll", "shared-ll")

# Architectures whose forward is ``logits = head(base(ids)[0])``, soft-capped by
# ``config.final_logit_softcapping`` when set (Gemma 2 and 3), and nothing else: read from
# their transformers modeling code. Any other architecture runs its own full forward.
# Each is also checked numerically once at load (see _checked_head).
_PLAIN_HEADS = frozenset({
    "GPT2LMHeadModel", "GPTNeoXForCausalLM", "LlamaForCausalLM", "MistralForCausalLM",
    "Qwen2ForCausalLM", "Qwen3ForCausalLM", "GemmaForCausalLM", "Gemma2ForCausalLM",
    "Gemma3ForCausalLM", "Phi3ForCausalLM", "Olmo2ForCausalLM", "SmolLM3ForCausalLM",
})

# Batch cutting (batching.token_batches): at most this many padded tokens per forward,
# and a forward's fixed cost counted as this many tokens. Measured on a 2-core CPU with
# SmolLM2-135M and Gemma-3-270m (bench/bench_causal.py): 512–1024 tokens keep each
# layer's activations in cache while its matrix products stay large; an overhead of 32
# tokens beat 16, 64 and 128 on CrowS-Pairs (4.9 s against 5.0–5.3 s in the pipeline's
# 10-pair chunks; 6.2 s cutting by rows). The GPU values are not measured: there a
# forward's kernel launches cost thousands of tokens' arithmetic.
CPU_BATCH_TOKENS, CPU_FORWARD_OVERHEAD = 1024, 32
GPU_BATCH_TOKENS, GPU_FORWARD_OVERHEAD = 16384, 2048
# Read positions per head chunk: its logits and their log-softmax are [rows, V] floats
# each (256 MiB apiece for Gemma's V = 262,144). Each chunk streams the whole head weight;
# on 2 CPU cores, head + log-softmax ran at 98/128/162/168/182 GFLOP/s for 16/64/128/256/
# 512 rows on Gemma-3-270m and 105/155/191/189/168 on SmolLM2-135M.
HEAD_CHUNK_ROWS = 256


class CausalLMScorer(ModelScorer):
    name = "causal-lm"

    def __init__(self, model: str, *, variant: str = "sentence-ll", batch_size: int = 16,
                 device: str = "cpu", dtype: str = "float32", revision: str | None = None,
                 trust_remote_code: bool = False, max_batch_tokens: int | None = None,
                 fast_head: bool = True, share_prefixes: bool = True) -> None:
        """``batch_size`` caps the rows of one forward pass; ``max_batch_tokens`` caps its
        padded tokens (default: :data:`CPU_BATCH_TOKENS` on CPU, else
        :data:`GPU_BATCH_TOKENS`). Neither changes a score. ``fast_head=False`` always runs
        the model's own full forward (for comparisons); ``share_prefixes=False`` runs
        every row whole instead of sharing common prefixes (:mod:`.prefix`)."""
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
        on_cpu = device == "cpu"
        self.max_batch_tokens = int(max_batch_tokens or (CPU_BATCH_TOKENS if on_cpu
                                                         else GPU_BATCH_TOKENS))
        self.forward_overhead = CPU_FORWARD_OVERHEAD if on_cpu else GPU_FORWARD_OVERHEAD
        self.head = _checked_head(self.model, [self.prefix_id, *self.encode(_CHECK_TEXT)]) \
            if fast_head else None
        self.share_prefixes = bool(share_prefixes) and self.head is not None
        # Sliding-window layers count their window in cache slots, and a shared prefix's
        # padding adds slots (prefix width + suffix width ≤ twice the longest row): only
        # rows of at most half the window may share (Gemma 3: 512, so 256 tokens).
        self.window = getattr(self.model.config, "sliding_window", None)
        self.counters: dict[str, int] = {}

    @property
    def info(self) -> ScorerInfo:
        """Slot answers are log-likelihoods of the filled-in sentences."""
        return ScorerInfo(kind=self.name, reads="sequence")

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

    def _pair_jobs(self, probes: list[PairProbe]) -> Iterator[Job]:
        for chunk in chunks(probes, 256):
            plans = [self._pair_plan(p) for p in chunk]
            yield Job([r for plan in plans for r in plan], partial(_pair_answers, chunk, plans),
                      len(chunk))

    def _pair_plan(self, probe: PairProbe) -> tuple[Request, Request]:
        ids_a, ids_b = self.encode(probe.a), self.encode(probe.b)
        if self.variant == "sentence-ll":
            return self._request(ids_a), self._request(ids_b)
        shared_a, shared_b = shared_positions(ids_a, ids_b)
        return self._request(ids_a, shared_a), self._request(ids_b, shared_b)

    def _slot_jobs(self, probes: list[SlotProbe]) -> Iterator[Job]:
        return slot_jobs(probes, self._slot_request, chunk=256)

    def _slot_request(self, left: str, filler: str, right: str) -> tuple[Request, int]:
        ids = self.encode(left + filler + right)
        tokens_of_filler = len(_filler_span(self.tokenizer, left, filler, right))
        return self._request(ids), tokens_of_filler

    def _continuation_jobs(self, probes: list[ContinuationProbe]) -> Iterator[Job]:
        return option_jobs(probes, lambda p: [self._continuation_request(c, p.continuation)
                                              for c in p.contexts], chunk=256)

    def _continuation_request(self, context: str, continuation: str) -> tuple[Request, int]:
        context, continuation = split_continuation(context, continuation)
        ids = self.encode(context + continuation)
        scored = continuation_positions(ids, self.encode(context), set())
        return self._request(ids, scored), len(scored)

    def _sentence_jobs(self, probes: list[SentenceProbe]) -> Iterator[Job]:
        requests = [self._request(self.encode(p.text)) for p in probes]
        yield Job(requests, partial(_sentence_answers, probes, requests), len(probes))

    def logprob_sums(self, requests: Sequence[Request]) -> list[float]:
        """For each (row, targets): Σ_j log P(target_j | the row up to position j)."""
        return target_logprob_sums(list(requests), self._batches, self._target_logprobs,
                                   self.counters)

    def _batches(self, rows: list[Row]) -> list[list[Row]]:
        """Token-ordered batches that share prefixes when that saves enough over the call's
        rows (:func:`.prefix.groups_worth_sharing`: census rows), else length-sorted token
        batches. Each batch is then shared or not on its own rows (:meth:`_target_logprobs`)."""
        if self._shared_groups(rows):
            return prefix_batches(rows, max(self.batch_size, 1), self.max_batch_tokens)
        return token_batches(rows, max(self.batch_size, 1), self.max_batch_tokens,
                             self.forward_overhead)

    def _shared_groups(self, rows: list[Row]) -> list[Group]:
        """The prefix groups ``rows`` run with (:mod:`.prefix`); none when not sharing."""
        if not self.share_prefixes or not rows:
            return []
        if self.window and 2 * max(len(r.ids) for r in rows) > self.window:
            return []
        return groups_worth_sharing([r.ids for r in rows])

    def _planned_batches(self, calls: list[Sequence[Any]], rows: set[Any]) -> int:
        """Batches as :meth:`_batches` cuts each engine call's distinct rows (a token budget
        cuts as well as ``batch_size``)."""
        return sum(len(self._batches(list(dict.fromkeys(row for row, _ in call))))
                   for call in calls)

    def _target_logprobs(self, rows: list[Row], picks: Picks) -> Any:
        """One log-probability per pick, reduced over the vocabulary on the model's device."""
        import torch

        if not picks.row:
            return []
        pad = self.tokenizer.pad_token_id
        ids, attention, _, _ = pad_rows(rows, pad if pad is not None else self.prefix_id)
        ids, attention = ids.to(self.device), attention.to(self.device)
        rows_at, positions, targets = (torch.tensor(v, dtype=torch.long, device=self.device)
                                       for v in (picks.row, picks.position, picks.target))
        with torch.inference_mode():
            if self.head is None:  # the model's own head at every position, then gather
                logits = self.model(input_ids=ids, attention_mask=attention,
                                    use_cache=False).logits[rows_at, positions]  # [M, V]
                return _read_targets(logits, targets, None).cpu()  # [M]
            groups = self._shared_groups(rows)
            if groups:
                self.counters["batches_shared"] = self.counters.get("batches_shared", 0) + 1
                states = shared_states(self.head.base, [r.ids for r in rows], groups, picks.row,
                                       picks.position, pad if pad is not None else self.prefix_id,
                                       self.device)
                return _read_targets(states, targets, self.head.logits).cpu()  # [M]
            hidden = self.head.base(input_ids=ids, attention_mask=attention,
                                    use_cache=False)[0]  # [B, L, H]
            return _read_targets(hidden[rows_at, positions], targets, self.head.logits).cpu()  # [M]

    def describe(self) -> dict[str, Any]:
        return {"scorer": self.name, "variant": self.variant, "dtype": self.dtype,
                "device": self.device, "batch_size": self.batch_size,
                "prefix_token_id": self.prefix_id, "tokenizer": type(self.tokenizer).__name__,
                **model_provenance(self.resolved, self.model, self.revision)}


def _pair_answers(chunk: list[PairProbe], plans: list[tuple[Request, Request]],
                  values: list[float]) -> list[PairAnswer]:
    got = iter(values)
    return [PairAnswer(probe.id, next(got), next(got), len(req_a[1]), len(req_b[1]))
            for probe, (req_a, req_b) in zip(chunk, plans)]


def _sentence_answers(probes: list[SentenceProbe], requests: list[Request],
                      values: list[float]) -> list[SentenceAnswer]:
    return [SentenceAnswer(p.id, v, len(r[1])) for p, v, r in zip(probes, values, requests)]


# The load-time check's input: a few ordinary tokens after the prefix.
_CHECK_TEXT = "The check reads the head at these positions."


@dataclass(frozen=True)
class _Head:
    """A causal LM split at its vocabulary projection: ``logits(base(ids)[0])`` is the
    model's own ``.logits``, so the projection can run on the read positions only."""

    base: Any  # the decoder stack, final norm included: ids -> [B, L, H]
    projection: Any  # the output embeddings: [.., H] -> [.., V]
    softcap: float | None  # Gemma 2/3's final_logit_softcapping

    def logits(self, states: Any) -> Any:
        logits = self.projection(states)
        if self.softcap is not None:  # the same three steps, in the same order, as the model
            import torch

            logits = logits / self.softcap
            logits = torch.tanh(logits)
            logits = logits * self.softcap
        return logits


def _split_head(model: Any) -> _Head | None:
    """The model split at its head, for the architectures of :data:`_PLAIN_HEADS`."""
    if type(model).__name__ not in _PLAIN_HEADS:
        return None
    base = getattr(model, getattr(model, "base_model_prefix", ""), None)
    projection = model.get_output_embeddings()
    if base is None or projection is None:
        return None
    return _Head(base, projection, getattr(model.config, "final_logit_softcapping", None))


def _checked_head(model: Any, ids: list[int]) -> _Head | None:
    """The split head, if it reproduces the model's own logits on ``ids``; else None.

    Guards against a transformers release that adds a step between the decoder and the
    logits (a scale, a cap): the split would then score silently differently. Both paths
    get the full sequence here, so they do the same arithmetic and agree to rounding.
    """
    import torch

    head = _split_head(model)
    if head is None:
        return None
    row = torch.tensor([ids], device=next(model.parameters()).device)
    with torch.inference_mode():
        theirs = model(input_ids=row, use_cache=False).logits.float()
        ours = head.logits(head.base(input_ids=row, use_cache=False)[0]).float()
    return head if torch.allclose(ours, theirs, rtol=1e-3, atol=1e-3) else None


def _read_targets(states: Any, targets: Any, project: Any) -> Any:
    """``log_softmax(project(states))[m, targets[m]]`` for each row m, a chunk of rows at
    a time, on the states' device.

    Why chunks: the whole [M, V] log-softmax (V = 262,144 for Gemma) is written only to
    read M numbers of it; chunks of :data:`HEAD_CHUNK_ROWS` bound it and keep it off the
    host. Why ``log_softmax`` and not ``logit − logsumexp``: the latter is closer
    to the float64 value, but float32 ``log_softmax`` (what lm-evaluation-harness and
    our earlier scores use) differs from it by up to 3e-4 on a 40-token SmolLM2 sentence;
    a row-wise op, it gives the same bits on a chunk as on the whole tensor.
    ``project`` is None when ``states`` are logits already.
    """
    import torch

    out = []
    for start in range(0, states.shape[0], HEAD_CHUNK_ROWS):
        chunk = states[start:start + HEAD_CHUNK_ROWS]
        logits = (chunk if project is None else project(chunk)).float()  # [m, V]
        logp = torch.log_softmax(logits, dim=-1)
        out.append(logp.gather(1, targets[start:start + HEAD_CHUNK_ROWS, None])[:, 0])
    return torch.cat(out)


def _filler_span(tokenizer: Any, left: str, filler: str, right: str) -> list[int]:
    """Positions of the filler's tokens in the filled sentence (for reporting only)."""
    try:
        return filler_positions(tokenizer, left, filler, right)[1]
    except UnsupportedProbe:
        return []

