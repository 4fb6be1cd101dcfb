"""Find a filler word's tokens *in context* (METHODS.md §4, "First sub-token only").

``encode(word)[0]`` is wrong for multi-token words, and encoding a word without its
leading space gives the wrong byte-level BPE (``Ġwhen`` vs ``when``) or SentencePiece
(``▁``) token. We tokenize the whole filled-in sentence and take the tokens whose
character spans overlap the filler: exact for every fast tokenizer. Slow tokenizers
(FlauBERT) have no offsets; there the filler's tokens are the ones that differ from the
same sentence with the filler replaced by the mask token (a difflib alignment).
"""

from __future__ import annotations

from typing import Any

from ..errors import UnscorableProbe
from .alignment import shared_positions


def filler_positions(tokenizer: Any, left: str, filler: str, right: str) -> tuple[list[int], list[int]]:
    """Token ids of ``left + filler + right`` and the positions of the filler's tokens."""
    text = left + filler + right
    if getattr(tokenizer, "is_fast", False):
        enc = tokenizer(text, add_special_tokens=True, return_offsets_mapping=True)
        start, end = len(left), len(left) + len(filler)
        positions = [i for i, (s, e) in enumerate(enc["offset_mapping"])
                     if e > s and s < end and e > start]
        ids = list(enc["input_ids"])
    else:
        ids = list(tokenizer(text, add_special_tokens=True)["input_ids"])
        other = tokenizer(left + tokenizer.mask_token + right, add_special_tokens=True)["input_ids"]
        shared, _ = shared_positions(ids, other)
        keep = set(shared)
        positions = [i for i in range(len(ids)) if i not in keep]
    if not positions:
        raise UnscorableProbe(f"filler {filler!r} has no token of its own in {text!r}")
    if positions != list(range(positions[0], positions[-1] + 1)):
        raise UnscorableProbe(f"filler {filler!r} is not one contiguous token span in {text!r}")
    return ids, positions


def split_continuation(context: str, continuation: str) -> tuple[str, str]:
    """Whitespace that ends the context moves to the continuation (lm-evaluation-harness's
    convention): word-initial tokens carry their space (``Ġnurse``, ``▁lege``), so
    ``"som " + "lege."`` would otherwise tokenize the continuation as a word-internal piece."""
    stripped = context.rstrip()
    return stripped, context[len(stripped):] + continuation


def continuation_positions(full: list[int], context: list[int], specials: set[int]) -> list[int]:
    """Positions in ``full`` (context + continuation, tokenized together) of the continuation.

    The continuation starts where the two token lists first differ, so a token that merges
    the end of the context with the start of the continuation is counted as continuation;
    special tokens that close the sequence (``</s>``, mBART's language code) are not.
    """
    start = 0
    while start < min(len(full), len(context)) and full[start] == context[start]:
        start += 1
    stop = len(full)
    while stop > start and full[stop - 1] in specials:
        stop -= 1
    if stop == start:
        raise UnscorableProbe("the continuation has no token of its own")
    return list(range(start, stop))
