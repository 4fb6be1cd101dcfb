"""A causal LM split at its vocabulary projection (:class:`Head`), so the causal scorer
(:mod:`.causal_lm`) projects only the positions it reads instead of every position of every row
(DESIGN.md, "Performance stance"): for the architectures whose forward is known to be
``logits = head(base(ids)[0])`` (:data:`PLAIN_HEADS`), and only after the split reproduces the
model's own logits once at load (:func:`checked_head`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .head_reading import Scratch

# Architectures whose forward is ``logits = head(base(ids)[0])``, soft-capped by
# ``config.final_logit_softcapping`` when set (Gemma 2 and 3), and nothing else: read from
# their transformers modeling code. Any other architecture runs its own full forward.
# Each is also checked numerically once at load (:func:`checked_head`).
PLAIN_HEADS = frozenset({
    "GPT2LMHeadModel", "GPTNeoXForCausalLM", "LlamaForCausalLM", "MistralForCausalLM",
    "Qwen2ForCausalLM", "Qwen3ForCausalLM", "GemmaForCausalLM", "Gemma2ForCausalLM",
    "Gemma3ForCausalLM", "Phi3ForCausalLM", "Olmo2ForCausalLM", "SmolLM3ForCausalLM",
})

# The load-time check's input: a few ordinary tokens after the prefix.
CHECK_TEXT = "The check reads the head at these positions."


@dataclass(frozen=True)
class Head:
    """A causal LM split at its vocabulary projection: ``logits(base(ids)[0])`` is the
    model's own ``.logits``, so the projection can run on the read positions only."""

    base: Any  # the decoder stack, final norm included: ids -> [B, L, H]
    projection: Any  # the output embeddings: [.., H] -> [.., V]
    softcap: float | None  # Gemma 2/3's final_logit_softcapping

    def logits(self, states: Any, scratch: Scratch | None = None) -> Any:
        """Vocabulary logits of ``states`` [m, H]; with ``scratch``, written into its reused
        buffer (a bias-free linear projection: the same product, the same bits)."""
        import torch

        weight = getattr(self.projection, "weight", None)
        if (scratch is not None and isinstance(self.projection, torch.nn.Linear) and self.projection.bias is None
                and weight is not None and states.dim() == 2):
            logits = torch.mm(states, weight.t(), out=scratch.take(states.shape[0], weight.shape[0], weight.dtype))
            if self.softcap is not None:  # the model's three steps, in place
                logits.div_(self.softcap)
                torch.tanh(logits, out=logits)
                logits.mul_(self.softcap)
            return logits
        logits = self.projection(states)
        if self.softcap is not None:  # the same three steps, in the same order, as the model
            logits = logits / self.softcap
            logits = torch.tanh(logits)
            logits = logits * self.softcap
        return logits


def split_head(model: Any) -> Head | None:
    """The model split at its head, for the architectures of :data:`PLAIN_HEADS`."""
    if type(model).__name__ not in PLAIN_HEADS:
        return None
    base = getattr(model, getattr(model, "base_model_prefix", ""), None)
    projection = model.get_output_embeddings()
    if base is None or projection is None:
        return None
    return Head(base, projection, getattr(model.config, "final_logit_softcapping", None))


def checked_head(model: Any, ids: list[int]) -> Head | None:
    """The split head, if it reproduces the model's own logits on ``ids``; else None.

    Guards against a transformers release that adds a step between the decoder and the
    logits (a scale, a cap): the split would then score silently differently. Both paths
    get the full sequence here, so they do the same arithmetic and agree to rounding: 1e-3
    in float32, a few units of the last place of a 16-bit dtype (0.03 in bfloat16), far
    below what a missing scale or cap changes.
    """
    import torch

    head = split_head(model)
    if head is None:
        return None
    row = torch.tensor([ids], device=next(model.parameters()).device)
    with torch.inference_mode():
        native = model(input_ids=row, use_cache=False).logits
        theirs = native.float()
        ours = head.logits(head.base(input_ids=row, use_cache=False)[0]).float()
    tolerance = max(1e-3, 4 * torch.finfo(native.dtype).eps)
    return head if torch.allclose(ours, theirs, rtol=tolerance, atol=tolerance) else None
