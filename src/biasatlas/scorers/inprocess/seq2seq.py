"""Sequence-to-sequence scorer: BART / BARThez / mBART-style infilling likelihoods.

A denoising seq2seq model reads a corrupted text (a span replaced by the mask token)
and writes the original. Touileb et al. (EACL 2023, §4) probe BARThez this way: the
identifier is masked in the encoder input and the decoder's job is to write the whole
sentence back.

Slot probes: for each filler, ``log P(left + filler + right | left + <mask> + right)``,
the sum over *every* decoder target token (special tokens included: BART's ``<s>`` …
``</s>``, mBART's ``… </s> <lang>``) of ``log softmax(decoder logits)[target]``. The
target is the tokenizer's own ``text_target`` encoding and the decoder input comes from
the model's own ``prepare_decoder_input_ids_from_labels`` (BART: ``</s>`` as decoder
start; mBART: the language code wrapped to the front), so each model family is read
the way it was trained. This is a sentence log-likelihood, not a probability of the
filler: benchmarks normalise over their candidate fillers (census ``template``).

Continuation probes (the census conditional reading): ``log P(continuation | context +
<mask>)`` read in the decoder, i.e. the encoder sees the context with the continuation
masked out ("Han jobber som <mask>") and only the decoder tokens of the continuation
are summed, each given the decoder's own copy of the context before it. This is the
infilling model's estimate of P(occupation phrase | identifier, predicate): the
continuation is never visible to the encoder, so it cannot be copied.

Sentence probes: ``log P(text | <mask>)``, the text written from an input that is the
mask token alone (BART's text-infilling objective with the whole text as one masked
span). It is the infilling model's nearest analogue of an unconditional
log-likelihood; reconstructing the text from the text itself would be a near-certain
copy and say nothing. Pair probes are not answered (:class:`UnsupportedProbe`).

Speed (DESIGN.md, "Performance stance"): every filler of a probe shares one encoder
input, so requests are sorted by (encoder input, decoder length) and batched; the
encoder runs once per distinct input in a batch and its states are reused by every
decoder row that reads them; identical requests are computed once; each decoder position
is reduced on the model's device to its target's float32 log-probability, and a row's
sum stays there until the engine call's results are read, in one copy; all under
``torch.inference_mode``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from ...errors import ModelError, UnscorableProbe, UnsupportedProbe
from ...probes import (ContinuationProbe, PairProbe, ScorerInfo, SentenceAnswer, SentenceProbe,
                      SlotAnswer, SlotProbe)
from .inmemory import InMemoryModel
from ...values import BatchSize
from ..base import ModelScorer
from ..batch_size import DEFAULT_BATCH_SIZE
from ..job import Job
from ..batching import AUTO_PROBE_WIDTH, JOB_PROBES, batch_limits, chunks, long_tensor, option_jobs, pad_ids, to_device
from ..resume import EVERY_ROW, Watch, launched
from .loading import ResolvedModel, input_device, load_checked, model_provenance, placement, resolve
from ..spans import continuation_positions, filler_positions, split_continuation
from .settings import checked_settings

VARIANTS = ("sentence-ll",)


@dataclass(frozen=True)
class Seq2SeqRow:
    """One decoder pass: the encoder input, the decoder input and the target at each step."""

    encoder: tuple[int, ...]
    decoder: tuple[int, ...]
    targets: tuple[int, ...]  # targets[t] is predicted from decoder position t
    scored: tuple[int, ...] | None = None  # decoder positions summed; None: all of them


class Seq2SeqScorer(ModelScorer):
    name = "seq2seq"

    def __init__(self, model: str | InMemoryModel, *,
                 variant: str = "sentence-ll", batch_size: BatchSize = DEFAULT_BATCH_SIZE,
                 device: str = "cpu", dtype: str = "float32", revision: str | None = None,
                 trust_remote_code: bool = False, device_map: str | None = None) -> None:
        """``batch_size``: decoder rows per forward pass (``"auto"``: the most that fit on a
        CUDA device); ``dtype`` the weights' dtype (log-softmaxes are float32);
        ``device_map`` (``"auto"``) spreads the model over several devices."""
        requested, dtype, device = checked_settings("seq2seq variant", variant, VARIANTS, batch_size, dtype, device)
        self.variant = variant
        self.dtype, self.revision, self.device_map = dtype, revision, device_map
        self.resolved = resolve(model)
        self.model, self.tokenizer = _load(self.resolved, revision, trust_remote_code,
                                           dtype, device, device_map)
        self.device = device if device_map is None else input_device(self.model)
        limits = batch_limits(requested, self.device, 0, self._probe_batch,
                              (self.name, self.resolved.location, dtype, self.device), by_tokens=False)
        self.batch_size, self.batch_described = limits.rows, limits.described

    @property
    def info(self) -> ScorerInfo:
        """Slot answers are log-likelihoods of the filled-in sentences (given the masked input)."""
        return ScorerInfo(kind=self.name, reads="sequence", dtype=self.dtype, generates=False)

    # -- probes → jobs ------------------------------------------------------------------
    def _pair_jobs(self, probes: list[PairProbe]) -> Iterator[Job]:
        raise UnsupportedProbe("the seq2seq scorer does not answer pair probes: CrowS-Pairs "
                               "is defined for masked LMs (use masked-lm) or as sentence "
                               "likelihoods (use causal-lm)")

    def _slot_jobs(self, probes: list[SlotProbe]) -> Iterator[Job]:
        for chunk in chunks(probes, JOB_PROBES):  # one job per pipeline chunk: batched as a whole
            masked = [self._encode_source(p.left + self.tokenizer.mask_token + p.right)
                      for p in chunk]
            rows = [[self._row(enc, p.left + f + p.right) for f in p.fillers]
                    for p, enc in zip(chunk, masked)]
            yield Job([r for plan in rows for r in plan], partial(self._slot_answers, chunk, rows),
                      len(chunk), [(p.id, len(plan)) for p, plan in zip(chunk, rows)])

    def _slot_answers(self, chunk: list[SlotProbe], rows: list[list[Seq2SeqRow]],
                      values: list[float]) -> list[SlotAnswer]:
        got = iter(values)
        return [SlotAnswer(probe.id, tuple(next(got) for _ in plan),
                           tuple(self._filler_tokens(probe, f) for f in probe.fillers))
                for probe, plan in zip(chunk, rows)]

    def _continuation_jobs(self, probes: list[ContinuationProbe]) -> Iterator[Job]:
        return option_jobs(probes, lambda p: [self._continuation_row(c, p.continuation)
                                              for c in p.contexts], chunk=JOB_PROBES)

    def _continuation_row(self, context: str, continuation: str) -> tuple[Seq2SeqRow, int]:
        """Encoder: the context and a mask where the continuation was; decoder: both, with
        only the continuation's tokens summed."""
        context, continuation = split_continuation(context, continuation)
        gap = continuation[: len(continuation) - len(continuation.lstrip())]
        row = self._row(self._encode_source(context + gap + self.tokenizer.mask_token),
                        context + continuation)
        prefix = self.tokenizer(text_target=context, add_special_tokens=True)["input_ids"]
        scored = continuation_positions(list(row.targets), list(prefix),
                                        set(self.tokenizer.all_special_ids))
        return Seq2SeqRow(row.encoder, row.decoder, row.targets, tuple(scored)), len(scored)

    def _sentence_jobs(self, probes: list[SentenceProbe]) -> Iterator[Job]:
        source = self._encode_source(self.tokenizer.mask_token)
        rows = [self._row(source, p.text) for p in probes]
        yield Job(rows, partial(_sentence_answers, probes, rows), len(probes), [(p.id, 1) for p in probes])

    def _filler_tokens(self, probe: SlotProbe, filler: str) -> int:
        """The filler's token count in the filled sentence (for reporting only)."""
        try:
            return len(filler_positions(self.tokenizer, probe.left, filler, probe.right)[1])
        except UnsupportedProbe:
            return 0

    # -- requests -----------------------------------------------------------------------
    def _encode_source(self, text: str) -> tuple[int, ...]:
        ids = self.tokenizer(text, add_special_tokens=True)["input_ids"]
        self._check_length(len(ids), text)
        return tuple(ids)

    def _row(self, encoder: tuple[int, ...], text: str) -> Seq2SeqRow:
        """The decoder row that scores ``text`` as the model's output for ``encoder``."""
        import torch

        targets = list(self.tokenizer(text_target=text, add_special_tokens=True)["input_ids"])
        self._check_length(len(targets), text)
        prepare = getattr(self.model, "prepare_decoder_input_ids_from_labels", None)
        if prepare is not None:
            decoder = prepare(labels=torch.tensor([targets]))[0].tolist()  # [T]
        else:  # the generic teacher-forcing shift
            decoder = [self.model.config.decoder_start_token_id, *targets[:-1]]
        return Seq2SeqRow(encoder, tuple(decoder), tuple(targets))

    def _check_length(self, n: int, text: str) -> None:
        limit = getattr(self.model.config, "max_position_embeddings", None)
        if limit and n > limit:
            raise UnscorableProbe(f"{n} tokens exceed the model's {limit}: {text[:60]!r}")

    # -- engine -------------------------------------------------------------------------
    def _model_input(self, request: Seq2SeqRow) -> Seq2SeqRow:
        return request  # a request is its row: the targets are part of it

    def _planned_batches(self, calls: list[Sequence[Any]], rows: set[Any]) -> int:
        """Batches as :meth:`_batch_plan` cuts each engine call's rows: a call per probe kind, each
        batched on its own (the rows of all calls cut together counted one batch fewer where a
        chunk held slot and continuation probes)."""
        return sum(len(self._batch_plan(call)) for call in calls)

    def _planned_extra(self, calls: list[list[Any]]) -> dict[str, int]:
        """Encoder inputs as :meth:`_launch` runs them: once per batch holding their rows (rows
        sorted by encoder input, so a batch runs each of its inputs once, and an input whose rows
        a batch boundary splits runs in both batches, as the engine counts it)."""
        n = sum(len({row.encoder for row in batch}) for call in calls for batch in self._batch_plan(call))
        return {"encoder_rows": n} if n else {}

    def logprob_sums(self, rows: Sequence[Seq2SeqRow], work: dict[str, int] | None = None) -> list[float]:
        """Σ_t log P(targets[t] | encoder, decoder[:t+1]) for each row, in order."""
        return self._launch(rows, {} if work is None else work)()

    def _launch(self, rows: Sequence[Any], work: dict[str, int], watch: Watch = EVERY_ROW) -> Any:
        """Queue every batch of ``rows`` that ``watch`` needs (:class:`..resume.Watch`), counting
        into ``work``; the returned function reads all their sums in one copy (see
        :func:`..batching.launch_target_sums`), NaN for a row whose batch did not run."""
        _add(work, "rows_requested", len(rows))

        def compute(batch: list[Seq2SeqRow]) -> Any:
            _add(work, "rows_computed", len(batch))
            _add(work, "encoder_rows", len({r.encoder for r in batch}))  # each run once (_batch_sums)
            _add(work, "batches", 1)
            return self._batch_sums(batch)

        def reader(parts: list[tuple[list[Seq2SeqRow], Any]]) -> Callable[[], list[float]]:
            def read() -> list[float]:
                import torch

                if not parts:
                    return [math.nan] * len(rows)
                sums = torch.cat([s.to(parts[0][1].device) for _, s in parts]).tolist()  # one copy
                results = dict(zip((r for batch, _ in parts for r in batch), sums))
                return [float(results.get(r, math.nan)) for r in rows]

            return read

        return launched(self._batch_plan(rows), compute, watch, reader)

    def _batch_plan(self, rows: Sequence[Any]) -> list[list[Any]]:
        """Rows of one encoder input sit together, so a batch runs each encoder input once."""
        distinct = list(dict.fromkeys(rows))
        return chunks(sorted(distinct, key=lambda r: (len(r.encoder), r.encoder, len(r.decoder))), self.batch_size)

    def _batch_sums(self, batch: list[Seq2SeqRow]) -> Any:
        """``[B]`` float64 sums of the batch's rows, on the model's device."""
        import torch
        from transformers.modeling_outputs import BaseModelOutput

        sources = list(dict.fromkeys(r.encoder for r in batch))
        which = {s: i for i, s in enumerate(sources)}
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0
        enc_ids, enc_mask = (to_device(t, self.device) for t in pad_ids(sources, pad))  # [E, Le]
        dec_ids, dec_mask = pad_ids([r.decoder for r in batch], pad)  # [B, Ld]
        targets, _ = pad_ids([r.targets for r in batch], 0)  # [B, Ld]
        scored = to_device(_score_mask(batch, dec_mask), self.device)
        dec_ids, dec_mask, targets = (to_device(t, self.device) for t in (dec_ids, dec_mask, targets))
        pick = long_tensor([which[r.encoder] for r in batch], self.device)  # [B]
        with torch.inference_mode():
            states = self.model.get_encoder()(input_ids=enc_ids, attention_mask=enc_mask)[0]  # [E, Le, H]
            logits = self.model(encoder_outputs=BaseModelOutput(last_hidden_state=states[pick.to(states.device)]),
                                attention_mask=enc_mask[pick], decoder_input_ids=dec_ids,
                                decoder_attention_mask=dec_mask).logits  # [B, Ld, V]
            logp = torch.log_softmax(logits.float(), dim=-1)
            picked = logp.gather(-1, targets.to(logp.device).unsqueeze(-1)).squeeze(-1)  # [B, Ld]
            return (picked.double() * scored.to(picked.device)).sum(dim=1)  # [B]

    def _probe_batch(self, n: int) -> None:
        """``n`` decoder rows of :data:`AUTO_PROBE_WIDTH` tokens, each with an encoder input
        of its own (for ``batch_size="auto"``); waits for the device."""
        import torch

        width = min(AUTO_PROBE_WIDTH, getattr(self.model.config, "max_position_embeddings", None)
                    or AUTO_PROBE_WIDTH)
        vocab = int(self.model.config.vocab_size)
        token = self.tokenizer.mask_token_id
        rows = [Seq2SeqRow((i % vocab, *[token] * (width - 1)), tuple([token] * width), tuple([token] * width))
                for i in range(n)]
        self._batch_sums(rows)
        torch.cuda.synchronize()

    def describe(self) -> dict[str, Any]:
        return {"scorer": self.name, "variant": self.variant, "dtype": self.dtype,
                "device": self.device, "batch_size": self.batch_described,
                "slot_input": "left + mask_token + right", "sentence_input": "mask_token",
                "decoder_start_token_id": self.model.config.decoder_start_token_id,
                "tokenizer": type(self.tokenizer).__name__,
                **placement(self.model, self.device_map),
                **model_provenance(self.resolved, self.model, self.revision)}


def _sentence_answers(probes: list[SentenceProbe], rows: list[Seq2SeqRow],
                      values: list[float]) -> list[SentenceAnswer]:
    return [SentenceAnswer(p.id, v, len(r.targets)) for p, v, r in zip(probes, values, rows)]


def _score_mask(batch: list[Seq2SeqRow], dec_mask: Any) -> Any:
    """1 at the decoder positions each row sums: all real positions, or its ``scored`` ones."""
    mask = dec_mask.clone()
    for i, row in enumerate(batch):
        if row.scored is not None:
            mask[i] = 0
            mask[i, list(row.scored)] = 1
    return mask


def _load(resolved: ResolvedModel, revision: str | None, trust_remote_code: bool,
          dtype: str, device: str, device_map: str | None) -> tuple[Any, Any]:
    model, tokenizer = load_checked("AutoModelForSeq2SeqLM", resolved, revision=revision,
                                    trust_remote_code=trust_remote_code, dtype=dtype,
                                    device=device, what="a sequence-to-sequence model",
                                    device_map=device_map)
    if tokenizer.mask_token is None:
        raise ModelError(f"{resolved.name}'s tokenizer has no mask token: the seq2seq scorer needs a "
                         "BART-style infilling model (T5's sentinel tokens are not supported)")
    if (getattr(model, "prepare_decoder_input_ids_from_labels", None) is None
            and model.config.decoder_start_token_id is None):
        raise ModelError(f"{resolved.name} has neither a decoder_start_token_id nor its own label shift")
    return model, tokenizer



def _add(work: dict[str, int], name: str, count: int) -> None:
    """One of a call's work counts grown by ``count`` (:attr:`~biasatlas.probes.Scored.work`)."""
    work[name] = work.get(name, 0) + count
