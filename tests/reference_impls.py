"""Straightforward implementations of the reference algorithms, for parity tests only.

Each follows the paper's description directly: one masked copy per forward pass, the
full model forward, no batching, no de-duplication, no head tricks. They share no code
with the package on purpose.
"""

from __future__ import annotations

import difflib

import torch


def nangia_pll(model, tokenizer, sent1: str, sent2: str) -> tuple[float, float]:
    """Nangia et al. 2020, metric.py: PLL of the shared tokens, one mask per forward."""
    ids1 = tokenizer.encode(sent1, return_tensors="pt")[0]
    ids2 = tokenizer.encode(sent2, return_tensors="pt")[0]
    ops = difflib.SequenceMatcher(None, [str(x) for x in ids1.tolist()],
                                  [str(x) for x in ids2.tolist()]).get_opcodes()
    t1 = [i for op in ops if op[0] == "equal" for i in range(op[1], op[2])]
    t2 = [i for op in ops if op[0] == "equal" for i in range(op[3], op[4])]
    score1 = score2 = 0.0
    for k in range(1, len(t1) - 1):
        score1 += masked_logprob(model, tokenizer, ids1, t1[k])
        score2 += masked_logprob(model, tokenizer, ids2, t2[k])
    return score1, score2


def masked_logprob(model, tokenizer, ids: torch.Tensor, position: int) -> float:
    masked = ids.clone()
    masked[position] = tokenizer.mask_token_id
    with torch.no_grad():
        logits = model(masked.unsqueeze(0)).logits[0, position]
    return float(torch.log_softmax(logits, dim=-1)[ids[position]])


def unmasked_mean_logprob(model, tokenizer, sentence: str) -> float:
    """AUL (Kaneko & Bollegala 2022): mean log P of every non-special token, no mask."""
    ids = tokenizer.encode(sentence, return_tensors="pt")[0]
    with torch.no_grad():
        logp = torch.log_softmax(model(ids.unsqueeze(0)).logits[0], dim=-1)
    special = set(tokenizer.all_special_ids)
    picked = [float(logp[i, t]) for i, t in enumerate(ids.tolist()) if t not in special]
    return sum(picked) / len(picked)


def causal_sentence_ll(model, tokenizer, sentence: str) -> float:
    """lm-evaluation-harness: log P(sentence | BOS-or-EOS), summed over its tokens."""
    start = tokenizer.bos_token_id if tokenizer.bos_token_id is not None else tokenizer.eos_token_id
    ids = [start] + tokenizer.encode(sentence, add_special_tokens=False)
    with torch.no_grad():
        logp = torch.log_softmax(model(torch.tensor([ids])).logits[0], dim=-1)
    return sum(float(logp[t - 1, ids[t]]) for t in range(1, len(ids)))


def masked_span_logprob(model, tok, s) -> float:
    """log P(the pronoun's pieces | the sentence with them masked), one forward: Winogender's and
    WinoBias's masked reading written plainly (``s`` has ``left``, ``pronoun`` and ``text``)."""
    start, end = len(s.left), len(s.left) + len(s.pronoun)
    enc = tok(s.text, return_offsets_mapping=True)
    ids = list(enc["input_ids"])
    at = [i for i, (a, b) in enumerate(enc["offset_mapping"]) if b > a and a < end and b > start]
    masked = [tok.mask_token_id if i in at else t for i, t in enumerate(ids)]
    with torch.no_grad():
        logp = torch.log_softmax(model(torch.tensor([masked])).logits[0].float(), dim=-1)
    return sum(float(logp[i, ids[i]]) for i in at)
