"""Causal-LM scorer: sentence log-likelihoods for pairs, slots and sentences.

Pair variants (METHODS.md §2, "Other variants"):
- ``sentence-ll`` (default): the lm-evaluation-harness formulation: an empty context
  becomes the prefix token (BOS, else EOS), and the score is the sum of
  ``log P(token_t | prefix, tokens_<t)`` over every token of the sentence.
- ``shared-ll``: the same conditional log-probabilities, summed only over the tokens the
  two sentences share (the difflib alignment of Nangia et al.), a causal analogue of
  the masked-LM metric that ignores the modified words' own probability.

Sentences are scored as given (lm-evaluation-harness passes ``sent_more`` and
``sent_less`` as stored, with an empty context and no target delimiter); a pair with an
empty sentence, which has no token to score, is refused (the harness asserts on an empty
continuation) rather than scored 0.

Slot probes are answered with the sentence log-likelihood of each filled-in sentence;
benchmarks normalise over their candidate fillers. Continuation probes are answered with
``log P(continuation | context)``: the same row as the whole sentence, summed over the
continuation's tokens only. What every text is read after (the start token, or not) is the
``start_token`` convention (:mod:`..start`), recorded in :meth:`CausalLMScorer.describe`.

Engine (why it is shaped so: bench/speed/bench_causal.py, and the profile in its docstring):
rows are cut into batches by a padded-token budget over length-sorted rows, with
``batch_size`` as the cap on rows; the decoder stack runs once per batch; the vocabulary
projection runs only at the positions a request reads, and each read is reduced on the
model's device to its target's log-softmax, so one number per token, not a
vocabulary-sized row, reaches the host, in one copy per engine call
(:func:`..batching.launch_target_sums`). Architectures whose head we have not checked get
the model's own full forward and the same on-device reduction. On a CPU the head's logits
go to one reused buffer (:class:`.head_reading.Scratch`: 44 → 51 % of the matmul peak on 12
CrowS-Pairs pairs with Gemma-3-270m, bench/speed/bench_cpu_fraction.py); on a GPU the weights
load in ``dtype`` with SDPA attention, inputs are copied without waiting
(:func:`..batching.to_device`), and ``batch_size="auto"`` sizes batches to the device.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from functools import partial
from typing import Any

from ...errors import ModelError, UnsupportedProbe
from ...probes import (Answer, ContinuationProbe, GenerationProbe, PairAnswer, PairProbe, Probe, ScorerInfo,
                      SentenceAnswer, SentenceProbe, SlotProbe)
from ..alignment import shared_positions
from .inmemory import InMemoryModel
from ...values import BatchSize
from ..base import ModelScorer, Progress
from ..generation import generate
from ..batch_size import DEFAULT_BATCH_SIZE
from ..job import Job
from ..batching import (AUTO_PROBE_WIDTH, JOB_PROBES, Picks, Request, Row, chunks, launch_target_sums, long_tensor,
                       option_jobs, pad_rows, to_device, token_batches, token_limits, unpadded)
from .causal_head import CHECK_TEXT, checked_head
from ..chat_tokens import chat_tokens
from .head_reading import Scratch, head_chunk_rows, on_cpu, read_targets
from .loading import input_device, load_checked, model_provenance, placement, resolve
from ..resume import EVERY_ROW, Watch
from ..prefix import Group, groups_worth_sharing, prefix_batches, shared_states
from ..spans import continuation_positions, filler_positions, split_continuation
from ..start import DEFAULT_START, Reading, Start, StartToken, check_start_token, leading_tokens
from .settings import checked_settings

PAIR_VARIANTS = ("sentence-ll", "shared-ll")

# Batch cutting (batching.token_batches): at most this many padded tokens per forward,
# and a forward's fixed cost counted as this many tokens. Measured on a 2-core CPU with
# SmolLM2-135M and Gemma-3-270m (bench/speed/bench_causal.py): 512–1024 tokens keep each
# layer's activations in cache while its matrix products stay large; an overhead of 32
# tokens beat 16, 64 and 128 on CrowS-Pairs (4.9 s against 5.0–5.3 s in the pipeline's
# 10-pair chunks; 6.2 s cutting by rows). The GPU values are not measured: there a
# forward's kernel launches cost thousands of tokens' arithmetic.
CPU_BATCH_TOKENS, CPU_FORWARD_OVERHEAD = 1024, 32
GPU_BATCH_TOKENS, GPU_FORWARD_OVERHEAD = 16384, 2048
# Read positions per head chunk: its logits and their log-softmax are [rows, V] floats
# each (256 MiB apiece for Gemma's V = 262,144). Each chunk streams the whole head weight;
# on 2 CPU cores, head + log-softmax ran at 98/128/162/168/182 GFLOP/s for 16/64/128/256/
# 512 rows on Gemma-3-270m and 105/155/191/189/168 on SmolLM2-135M. On a GPU: 1 GiB of
# float32 logits per chunk (head_reading.head_chunk_rows).
HEAD_CHUNK_ROWS = 256


class CausalLMScorer(ModelScorer):
    name = "causal-lm"

    def __init__(self, model: str | InMemoryModel, *,
                 variant: str = "sentence-ll", batch_size: BatchSize = DEFAULT_BATCH_SIZE,
                 device: str = "cpu", dtype: str = "float32", revision: str | None = None,
                 trust_remote_code: bool = False, max_batch_tokens: int | None = None,
                 fast_head: bool = True, share_prefixes: bool = True,
                 device_map: str | None = None, start_token: StartToken = DEFAULT_START) -> None:
        """``batch_size`` caps the rows of one forward pass (``"auto"``: the largest batch
        that fits on a CUDA device); ``max_batch_tokens`` caps its padded tokens (default:
        :data:`CPU_BATCH_TOKENS` on CPU, else :data:`GPU_BATCH_TOKENS`). Neither changes a
        score. ``fast_head=False`` always runs the model's own full forward (for
        comparisons); ``share_prefixes=False`` runs every row whole instead of sharing
        common prefixes (:mod:`..prefix`). ``dtype`` is the weights' dtype (log-softmaxes
        are float32); ``device_map`` (``"auto"``) spreads a model over several devices.
        ``start_token``: what each text is read after (:mod:`..start`)."""
        requested, dtype, device = checked_settings("causal-lm pair variant", variant, PAIR_VARIANTS, batch_size,
                                                    dtype, device)
        self.variant = variant
        self.dtype, self.revision, self.device_map = dtype, revision, device_map
        self.resolved = resolve(model)
        self._encoded: dict[str, list[int]] = {}
        self.model, self.tokenizer = load_checked(
            "AutoModelForCausalLM", self.resolved, revision=revision,
            trust_remote_code=trust_remote_code, dtype=dtype, device=device,
            what="a causal language model", device_map=device_map)
        self.device = device if device_map is None else input_device(self.model)
        prefix = self.tokenizer.bos_token_id
        self.prefix_id = prefix if prefix is not None else self.tokenizer.eos_token_id
        if self.prefix_id is None:
            raise ModelError(f"{self.resolved.name}'s tokenizer has neither a BOS nor an EOS token to start from")
        self.start = Start(check_start_token(start_token), self.prefix_id, leading_tokens(self.tokenizer),
                           getattr(self.model.config, "max_position_embeddings", None))
        self.chat = chat_tokens(self.tokenizer, self.start, self.resolved.name)
        cpu = on_cpu(self.device)
        self.forward_overhead = CPU_FORWARD_OVERHEAD if cpu else GPU_FORWARD_OVERHEAD
        self.head_chunk = head_chunk_rows(self.device, self.model.config.vocab_size, HEAD_CHUNK_ROWS)
        # On the host, each head chunk's logits go to one reused buffer (batching.Scratch).
        self._scratch = Scratch() if cpu else None
        self.head = checked_head(self.model, [self.prefix_id, *self.encode(CHECK_TEXT)]) \
            if fast_head else None
        self.share_prefixes = bool(share_prefixes) and self.head is not None
        self._first = _start_logprobs(self.model, self.prefix_id) if self.start.mode == "first-only" else None
        # Sliding-window layers count their window in cache slots, and a shared prefix's
        # padding adds slots (prefix width + suffix width ≤ twice the longest row): only
        # rows of at most half the window may share (Gemma 3: 512, so 256 tokens).
        self.window = getattr(self.model.config, "sliding_window", None)
        limits = token_limits(requested, self.device, max_batch_tokens, CPU_BATCH_TOKENS if cpu else GPU_BATCH_TOKENS,
                              self._probe_batch, (self.name, self.resolved.location, dtype, self.device))
        self.batch_size, self.batch_described, self.max_batch_tokens = limits.rows, limits.described, limits.tokens

    @property
    def info(self) -> ScorerInfo:
        """Slot answers are log-likelihoods of the filled-in sentences."""
        return ScorerInfo(kind=self.name, reads="sequence", dtype=self.dtype, chat=self.chat, generates=True)

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text`` without special tokens (the prefix is added per row)."""
        known = self._encoded.get(text)
        if known is not None:
            return list(known)
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def _encode_ahead(self, texts: Iterable[str]) -> None:
        """Encode a chunk's texts in one tokenizer call, for :meth:`encode` to find.

        Why: a tokenizer call costs ~70 µs of Python around a few µs of encoding; the US
        census asks 97,968 encodings (4.4 s on one core), a batch call encodes them in a
        fraction of that, so the host keeps ahead of a GPU. A batch encodes each text as a
        single call does. Only the current chunk's texts are kept.
        """
        unique = list(dict.fromkeys(texts))
        ids = self.tokenizer(unique, add_special_tokens=False)["input_ids"] if unique else []
        self._encoded = dict(zip(unique, ids))

    def _read(self, ids: list[int], scored: list[int] | None = None, *, context: bool = False) -> Reading:
        """Tokens ``scored`` of ``ids`` (default all) read under the start-token convention."""
        return self.start.read(ids, list(range(len(ids))) if scored is None else scored, context=context)

    def _job(self, readings: list[Reading], job: Job) -> Job:
        """``job`` (one request per reading, in order) with each reading's first token's
        log-probability after the start token alone added to its sum (``first-only``)."""
        if self._first is None or all(r.first is None for r in readings):
            return job
        table = self._first
        offsets = [0.0 if r.first is None else float(table[r.first]) for r in readings]
        answers = job.answers
        return Job(job.requests, lambda values: answers([v + o for v, o in zip(values, offsets)]), job.n_probes,
                   job.spans)

    def _option_job(self, chunk: list[Any], plans: list[list[tuple[Reading, int]]]) -> Job:
        """One job answering each probe of ``chunk`` with a slot answer: its plan's readings
        (one per filler or context) and the token count each answer reports."""
        got = iter(plans)
        job = next(option_jobs(chunk, lambda p: [(r.request, n) for r, n in next(got)], chunk=len(chunk)))
        return self._job([r for plan in plans for r, _ in plan], job)

    def _refused(self, probes: Sequence[Probe]) -> dict[str, str]:
        """Pairs with a sentence of no token (module docstring); only blank texts can be one."""
        blank = list(dict.fromkeys(s for p in probes if isinstance(p, PairProbe) for s in (p.a, p.b)
                                   if not s.strip()))
        ids = self.tokenizer(blank, add_special_tokens=False)["input_ids"] if blank else []
        empty = {text for text, tokens in zip(blank, ids) if not tokens}
        return {p.id: "an empty sentence: no token to score" for p in probes
                if isinstance(p, PairProbe) and (p.a in empty or p.b in empty)}

    def _pair_jobs(self, probes: list[PairProbe]) -> Iterator[Job]:
        for chunk in chunks(probes, JOB_PROBES):
            self._encode_ahead(s for p in chunk for s in (p.a, p.b))
            plans = [self._pair_plan(p) for p in chunk]
            readings = [r for plan in plans for r in plan]
            yield self._job(readings, Job([r.request for r in readings], partial(_pair_answers, chunk, plans),
                                          len(chunk), [(p.id, 2) for p in chunk]))

    def _pair_plan(self, probe: PairProbe) -> tuple[Reading, Reading]:
        ids_a, ids_b = self.encode(probe.a), self.encode(probe.b)
        if self.variant == "sentence-ll":
            return self._read(ids_a), self._read(ids_b)
        shared_a, shared_b = shared_positions(ids_a, ids_b)
        return self._read(ids_a, shared_a), self._read(ids_b, shared_b)

    def _slot_jobs(self, probes: list[SlotProbe]) -> Iterator[Job]:
        for chunk in chunks(probes, JOB_PROBES):
            self._encode_ahead(p.left + f + p.right for p in chunk for f in p.fillers)
            plans = [[self._slot_reading(p.left, f, p.right) for f in p.fillers] for p in chunk]
            yield self._option_job(chunk, plans)

    def _slot_reading(self, left: str, filler: str, right: str) -> tuple[Reading, int]:
        """The filled-in sentence's reading, and the filler's tokens (reported)."""
        tokens_of_filler = len(_filler_span(self.tokenizer, left, filler, right))
        return self._read(self.encode(left + filler + right)), tokens_of_filler

    def _continuation_jobs(self, probes: list[ContinuationProbe]) -> Iterator[Job]:
        for chunk in chunks(probes, JOB_PROBES):
            self._encode_ahead(text for p in chunk for c in p.contexts
                               for text in _continuation_texts(c, p.continuation))
            plans = [[(r, r.n_tokens) for r in (self._continuation_reading(c, p.continuation) for c in p.contexts)]
                     for p in chunk]
            yield self._option_job(chunk, plans)

    def _continuation_reading(self, context: str, continuation: str) -> Reading:
        context, continuation = split_continuation(context, continuation)
        ids = self.encode(context + continuation)
        scored = continuation_positions(ids, self.encode(context), set())
        return self._read(ids, scored, context=bool(context))

    def _sentence_jobs(self, probes: list[SentenceProbe]) -> Iterator[Job]:
        self._encode_ahead(p.text for p in probes)
        readings = [self._read(self.encode(p.text)) for p in probes]
        yield self._job(readings, Job([r.request for r in readings], partial(_sentence_answers, probes, readings),
                                      len(probes), [(p.id, 1) for p in probes]))

    def _generations(self, probes: list[GenerationProbe], tick: Progress,
                     answered: frozenset[str] = frozenset()) -> Sequence[Answer]:
        """Greedy generated texts (:mod:`..generation`), rows of one token length per batch."""
        return generate(self.model, self.tokenizer, probes, batch_size=max(self.batch_size, 1), device=self.device,
                        tick=tick, answered=answered)

    def logprob_sums(self, requests: Sequence[Request], work: dict[str, int] | None = None) -> list[float]:
        """For each (row, targets): Σ_j log P(target_j | the row up to position j)."""
        return self._launch(requests, {} if work is None else work)()

    def _launch(self, requests: Sequence[Any], work: dict[str, int], watch: Watch = EVERY_ROW) -> Any:
        """Queue every batch of ``requests`` that ``watch`` needs (:func:`..batching.launch_target_sums`);
        a batch that shares its prefixes counts in ``work["batches_shared"]``."""
        return launch_target_sums(list(requests), self._batches, partial(self._target_logprobs, work=work), work,
                                  watch)

    def _batch_plan(self, requests: Sequence[Any]) -> list[list[Any]]:
        return self._batches(list(dict.fromkeys(row for row, _ in requests)))

    def _batches(self, rows: list[Row]) -> list[list[Row]]:
        """Token-ordered batches that share prefixes when that saves enough over the call's
        rows (:func:`..prefix.groups_worth_sharing`: census rows), else length-sorted token
        batches. Each batch is then shared or not on its own rows (:meth:`_target_logprobs`)."""
        if self._shared_groups(rows):
            return prefix_batches(rows, max(self.batch_size, 1), self.max_batch_tokens)
        return token_batches(rows, max(self.batch_size, 1), self.max_batch_tokens,
                             self.forward_overhead)

    def _shared_groups(self, rows: list[Row]) -> list[Group]:
        """The prefix groups ``rows`` run with (:mod:`..prefix`); none when not sharing."""
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

    def _target_logprobs(self, rows: list[Row], picks: Picks, work: dict[str, int]) -> Any:
        """``[M]`` log-probabilities, one per pick, reduced over the vocabulary on the
        model's device (:func:`..batching.read_targets`)."""
        import torch

        if not picks.row:
            return torch.zeros(0, dtype=torch.float32)
        groups = self._shared_groups(rows)
        if not groups or self.head is None:
            return self._plain_logprobs(rows, picks)
        pad = self.tokenizer.pad_token_id
        targets = long_tensor(picks.target, self.device)
        work["batches_shared"] = work.get("batches_shared", 0) + 1
        with torch.inference_mode():
            states = shared_states(self.head.base, [r.ids for r in rows], groups, picks.row,
                                   picks.position, pad if pad is not None else self.prefix_id,
                                   self.device)
            return read_targets(states, targets, self.head.logits, self.head_chunk, self._scratch)  # [M]

    def _plain_logprobs(self, rows: list[Row], picks: Picks) -> Any:
        """The rows in one forward pass, unshared: the decoder, then the head at the read
        positions only (or the model's own full forward when its head is not split)."""
        import torch

        pad = self.tokenizer.pad_token_id
        ids, attention, _, _ = pad_rows(rows, pad if pad is not None else self.prefix_id)
        ids = to_device(ids, self.device)
        attention = unpadded(attention, rows)
        attention = None if attention is None else to_device(attention, self.device)
        rows_at, positions, targets = (long_tensor(v, self.device)
                                       for v in (picks.row, picks.position, picks.target))
        with torch.inference_mode():
            if self.head is None:  # the model's own head at every position, then gather
                logits = self.model(input_ids=ids, attention_mask=attention, use_cache=False).logits
                picked = logits[rows_at.to(logits.device), positions.to(logits.device)]  # [M, V]
                return read_targets(picked, targets, None, self.head_chunk)  # [M]
            hidden = self.head.base(input_ids=ids, attention_mask=attention, use_cache=False)[0]  # [B, L, H]
            states = hidden[rows_at.to(hidden.device), positions.to(hidden.device)]
            return read_targets(states, targets, self.head.logits, self.head_chunk, self._scratch)  # [M]

    def _probe_batch(self, n: int) -> None:
        """``n`` rows of :data:`AUTO_PROBE_WIDTH` tokens, every position read, as the engine
        runs them unshared (for ``batch_size="auto"``); waits for the device."""
        import torch

        width = min(AUTO_PROBE_WIDTH, getattr(self.model.config, "max_position_embeddings", None)
                    or AUTO_PROBE_WIDTH)
        read = list(range(width - 1))
        rows = [Row(tuple([self.prefix_id] * width), tuple(read))] * n
        self._plain_logprobs(rows, Picks([i for i in range(n) for _ in read], read * n,
                                         [self.prefix_id] * (n * len(read))))
        torch.cuda.synchronize()

    def describe(self) -> dict[str, Any]:
        return {"scorer": self.name, "variant": self.variant, "dtype": self.dtype,
                "device": self.device, "batch_size": self.batch_described,
                "max_batch_tokens": self.max_batch_tokens,
                "prefix_token_id": self.prefix_id, "start_token": self.start.mode,
                "tokenizer": type(self.tokenizer).__name__,
                **placement(self.model, self.device_map),
                **model_provenance(self.resolved, self.model, self.revision)}


def _pair_answers(chunk: list[PairProbe], plans: list[tuple[Reading, Reading]],
                  values: list[float]) -> list[PairAnswer]:
    got = iter(values)
    return [PairAnswer(probe.id, next(got), next(got), a.n_tokens, b.n_tokens) for probe, (a, b) in zip(chunk, plans)]


def _sentence_answers(probes: list[SentenceProbe], readings: list[Reading],
                      values: list[float]) -> list[SentenceAnswer]:
    return [SentenceAnswer(p.id, v, r.n_tokens) for p, v, r in zip(probes, values, readings)]


def _start_logprobs(model: Any, prefix: int) -> Any:
    """``[V]`` float32 log P(token | the start token alone): the original StereoSet's
    ``initial_token_probabilities`` (one pass over the start token), read by ``first-only``."""
    import torch

    row = torch.tensor([[prefix]], device=next(model.parameters()).device)
    with torch.inference_mode():
        logits = model(input_ids=row, use_cache=False).logits[0, -1]  # [V]
    return torch.log_softmax(logits, dim=-1, dtype=torch.float32).cpu()


def _continuation_texts(context: str, continuation: str) -> tuple[str, str]:
    """The two texts a continuation request encodes: the whole, and the context alone."""
    context, continuation = split_continuation(context, continuation)
    return context + continuation, context


def _filler_span(tokenizer: Any, left: str, filler: str, right: str) -> list[int]:
    """Positions of the filler's tokens in the filled sentence (for reporting only)."""
    try:
        return filler_positions(tokenizer, left, filler, right)[1]
    except UnsupportedProbe:
        return []
