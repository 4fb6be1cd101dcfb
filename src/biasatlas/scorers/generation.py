"""Generated answers in process: greedy decoding with transformers' ``generate`` (issue 38).

A :class:`~biasatlas.probes.GenerationProbe` is answered as lm-evaluation-harness 0.4.13's
``generate_until`` answers a request with a Hugging Face model, and as an OpenAI-compatible server
answers ``/v1/completions`` at temperature 0:

- the prompt is encoded as the tokenizer encodes a text, with its own special tokens (SmolLM2's add
  none; Gemma's add ``<bos>``, which lm-eval adds for Gemma too and a server adds for both);
- greedy decoding (``do_sample=False``), at most ``max_new_tokens`` new tokens, ending early at the
  model's end-of-sequence token (its generation config's) or once a stop string appears;
- the new tokens decoded without special tokens, and the text cut before the first stop string
  (lm-eval splits its output on each ``until`` string; a server leaves the stop string out).

The stop rule is the probe's, so it is part of each answer's cache key; :data:`STOP_RULE` names the
decoding for the scorer's provenance.

Batching: only prompts of the same token length share a forward pass, so no row is ever padded.
Why not left padding: a padded row runs other kernels on other shapes than the same prompt alone,
and a greedy choice between two near-tied tokens can flip, so a text would depend on its batch
neighbours (the thing users hate most: results that change with batch size).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from ..probes import GenerationAnswer, GenerationProbe
from .resume import Interrupted

#: The decoding every in-process and served generation uses, as provenance records it.
STOP_RULE = ("greedy (temperature 0), at most max_new_tokens new tokens, ending at the model's end-of-sequence "
             "token or a stop string; text decoded without special tokens and cut before the first stop string")


def cut(text: str, stop: Sequence[str]) -> tuple[str, bool]:
    """``text`` cut before the earliest stop string it holds, and whether one was found."""
    found = [i for i in (text.find(s) for s in stop) if i >= 0]
    return (text[: min(found)], True) if found else (text, False)


def same_length_batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Indices grouped by equal length (in order of first appearance), each group cut into
    batches of at most ``batch_size``: rows that need no padding."""
    groups: dict[int, list[int]] = {}
    for i, n in enumerate(lengths):
        groups.setdefault(n, []).append(i)
    size = max(int(batch_size), 1)
    return [ids[k:k + size] for ids in groups.values() for k in range(0, len(ids), size)]


def generate(model: Any, tokenizer: Any, probes: Sequence[GenerationProbe], *, batch_size: int, device: str,
             tick: Any, answered: Collection[str] = frozenset()) -> list[GenerationAnswer]:
    """Each probe's :class:`GenerationAnswer` (module docstring); probes in ``answered`` are not
    generated again (their answers are in the cache). On Ctrl-C, raises
    :class:`~.resume.Interrupted` with the answers of the batches finished."""
    todo = [p for p in probes if p.id not in answered]
    encoded = [list(tokenizer(p.prompt)["input_ids"]) for p in todo]
    out: list[GenerationAnswer] = []
    try:
        for batch in same_length_batches([len(e) for e in encoded], batch_size):
            # one call per (max_new_tokens, stop) within the batch keeps each probe's own rule
            for rule in dict.fromkeys((todo[i].max_new_tokens, todo[i].stop) for i in batch):
                rows = [i for i in batch if (todo[i].max_new_tokens, todo[i].stop) == rule]
                out.extend(_generated(model, tokenizer, [todo[i] for i in rows], [encoded[i] for i in rows],
                                      device))
            tick(len(batch))
    except KeyboardInterrupt:
        raise Interrupted({a.id: a for a in out}) from None
    return out


def _generated(model: Any, tokenizer: Any, probes: list[GenerationProbe], rows: list[list[int]],
               device: str) -> list[GenerationAnswer]:
    """One ``generate`` call over rows of one length sharing one stop rule."""
    import torch

    first = probes[0]
    ids = torch.tensor(rows, dtype=torch.long, device=device)  # [B, L], no padding
    eos = _eos_ids(model, tokenizer)
    with torch.inference_mode():
        generated = model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), do_sample=False,
                                   max_new_tokens=first.max_new_tokens, stop_strings=list(first.stop) or None,
                                   tokenizer=tokenizer if first.stop else None, eos_token_id=eos,
                                   pad_token_id=eos[0] if eos else None, num_beams=1,
                                   temperature=None, top_p=None, top_k=None)
    answers = []
    for probe, row in zip(probes, generated[:, ids.shape[1]:].tolist()):  # the new tokens of each row
        answers.append(_answer(probe, row, eos, tokenizer))
    return answers


def _answer(probe: GenerationProbe, row: list[int], eos: list[int], tokenizer: Any) -> GenerationAnswer:
    """The answer of one generated row: tokens up to and including the first end-of-sequence
    (a batch pads a finished row with it), decoded, cut at the first stop string."""
    ended = next((k for k, t in enumerate(row) if t in eos), None)
    tokens = row if ended is None else row[: ended + 1]
    text, stopped = cut(tokenizer.decode(tokens, skip_special_tokens=True), probe.stop)
    finish = "stop" if stopped else "eos" if ended is not None else "length"
    return GenerationAnswer(probe.id, text, len(tokens), finish)


def _eos_ids(model: Any, tokenizer: Any) -> list[int]:
    """The end-of-sequence ids the model's generation config names (else its tokenizer's)."""
    config = getattr(model, "generation_config", None)
    eos = getattr(config, "eos_token_id", None)
    if eos is None:
        eos = tokenizer.eos_token_id
    return [] if eos is None else [int(e) for e in (eos if isinstance(eos, (list, tuple)) else [eos])]
