"""The reveal loop: a masked LM's reading of a filler of several pieces, one piece at a time
(``multi_token="reveal"``), as StereoSet's original intrasentence evaluation reads it.

Nadeem, Bethke & Reddy (2021) score a candidate word for a ``BLANK`` as follows
(``code/dataloader.py``, ``IntrasentenceLoader``, and ``eval_discriminative_models.py``, in
the authors' repository). The word is tokenized alone, without special tokens and without a
leading space: pieces w_1 … w_k. For each i, the context's blank becomes the text of
w_1 … w_{i-1} (the tokenizer's ``decode``) followed by the mask token, so the earlier pieces
are revealed and the later ones absent. The sentence is tokenized again, and the model's
softmax at the mask gives p_i = P(w_i | that sentence). The word's score is the arithmetic
mean (1/k) Σ p_i.

A slot answer under this policy carries each filler's piece log-probabilities
(``SlotAnswer.piece_logprobs``: log p_1 … log p_k) and, as every slot answer does, their sum
as ``logprobs``, which is the chain rule's log P(w_1 … w_k | context) read left to right, and
``k`` as ``n_tokens``. A benchmark after the original's number averages exp of the pieces
(StereoSet's ``masked-reveal`` reading). Each step is one row with one mask; the rows of all
fillers and steps run batched in one engine call.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from functools import partial
from typing import Any

from ...errors import UnscorableProbe
from ...probes import SlotAnswer, SlotProbe
from ..job import Job
from ..batching import Request, Row, chunks


def reveal_requests(tokenizer: Any, encode: Callable[[str], list[int]], left: str, filler: str,
                    right: str) -> list[Request]:
    """One request per piece of ``filler``: the row with the pieces before it decoded into the
    slot and one mask after them, and the piece as the target at that mask."""
    pieces = list(tokenizer.encode(filler, add_special_tokens=False))
    if not pieces:
        raise UnscorableProbe(f"filler {filler!r} has no token of its own")
    mask_id = tokenizer.mask_token_id
    requests: list[Request] = []
    for i, piece in enumerate(pieces):
        ids = encode(left + tokenizer.decode(pieces[:i]) + tokenizer.mask_token + right)
        if mask_id not in ids:
            raise UnscorableProbe(f"the mask is cut off in {left + tokenizer.mask_token + right!r}")
        requests.append((Row(tuple(ids), (ids.index(mask_id),)), (piece,)))
    return requests


def reveal_jobs(probes: Sequence[SlotProbe], requests_of: Callable[[str, str, str], list[Request]],
                chunk: int) -> Iterator[Job]:
    """Slot answers under the reveal loop, ``chunk`` probes per engine call: ``requests_of(left,
    filler, right)`` gives a filler's requests (:func:`reveal_requests`, bound to a scorer)."""
    for group in chunks(probes, chunk):
        plans = [[requests_of(p.left, f, p.right) for f in p.fillers] for p in group]
        flat = [req for plan in plans for steps in plan for req in steps]
        yield Job(flat, partial(_answers, group, plans), len(group),
                  [(p.id, sum(len(steps) for steps in plan)) for p, plan in zip(group, plans)])


def _answers(group: list[SlotProbe], plans: list[list[list[Request]]], values: list[float]) -> list[SlotAnswer]:
    got = iter(values)
    answers = []
    for probe, plan in zip(group, plans):
        pieces = tuple(tuple(float(next(got)) for _ in steps) for steps in plan)
        answers.append(SlotAnswer(probe.id, tuple(float(sum(p)) for p in pieces), tuple(len(p) for p in pieces),
                                  pieces))
    return answers
