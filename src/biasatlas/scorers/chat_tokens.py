"""What an in-process scorer knows of its model's chat template (:class:`~biasatlas.probes.ChatTokens`).

Read from the tokenizer once, at load: the template's Jinja source (``tokenizer.chat_template``; the
``default`` one of a tokenizer holding several by name), the texts of its BOS and EOS tokens, and the
text of what the scorer itself reads before a non-empty context under its start-token convention
(:mod:`.start`), so :mod:`biasatlas.benchmarks.chat` can keep a rendered ``{{ bos_token }}`` from being
read twice (lm-evaluation-harness 0.4.13 keeps it so too: its ``tok_encode`` adds no special tokens to
a string that already begins with the BOS text).
"""

from __future__ import annotations

from typing import Any

from ..probes import ChatTokens
from .start import Start


def chat_tokens(tokenizer: Any, start: Start, model: str) -> ChatTokens:
    """The chat facts of ``tokenizer`` read under ``start`` (module docstring)."""
    lead = {"always": (start.prefix,), "empty-context": start.leading, "first-only": ()}[start.mode]
    return template_tokens(tokenizer, tokenizer.decode(list(lead)) if lead else "", model)


def template_tokens(tokenizer: Any, start_text: str, model: str) -> ChatTokens:
    """The chat facts of ``tokenizer`` for a scorer that reads ``start_text`` before a non-empty context
    (a served model's folder, :mod:`.served.chat`, as the in-process scorer's own)."""
    template = getattr(tokenizer, "chat_template", None)
    if isinstance(template, dict):  # several named templates: the one transformers uses by default
        template = template.get("default")
    return ChatTokens(template if isinstance(template, str) and template else None,
                      _text(tokenizer, "bos_token"), _text(tokenizer, "eos_token"), start_text, model,
                      encoded_start(tokenizer))


def encoded_start(tokenizer: Any) -> str:
    """The text of what ``tokenizer`` puts before any text it encodes with its special tokens (Gemma's
    ``<bos>``; nothing for SmolLM2 or GPT-2): the start a generated prompt is read with."""
    plain = list(tokenizer("x", add_special_tokens=False)["input_ids"])
    full = list(tokenizer("x")["input_ids"])
    cut = next((i for i in range(len(full) - len(plain) + 1) if full[i:i + len(plain)] == plain), 0)
    return str(tokenizer.decode(full[:cut])) if cut else ""


def _text(tokenizer: Any, name: str) -> str | None:
    value = getattr(tokenizer, name, None)
    return value if isinstance(value, str) else None
