"""A served model's chat template, read from its own folder where that folder is readable here (issue 38).

vLLM's ``/v1/models`` names the served model's ``root``: for a model served from a local folder, that
folder's path. Where it is a directory here holding a tokenizer, the served scorer learns what the
in-process scorer learns from the same tokenizer (:mod:`..chat_tokens`): the chat template, the BOS and
EOS texts, and what a text is read after. Nothing is guessed where the folder is not here (another
machine, a hub id): the template stays unknown and ``--chat-template model`` is refused with its hint.

The template read here is ours; the server renders its own (it may have been started with
``--chat-template``). Where the server offers vLLM's ``/tokenize`` with ``messages``, one probe message is
rendered both ways (ours by the folder's tokenizer, transformers' ``apply_chat_template``, which
:mod:`biasatlas.benchmarks.chat`'s renderer is tested to equal token for token) and the token ids
compared (:func:`cross_check`): a server whose rendering differs is
refused before any scoring, never silently used; a server without that endpoint is recorded unchecked.

The start token: SmolLM2's tokenizer puts nothing before a text, so a server of it reads a text's first
token from nothing, and the canary's ``start-token`` check refuses it unless ``--served-prefix`` names
the text of the token the in-process scorer reads first (its BOS, else its EOS: :mod:`..start`).
:func:`default_prefix` gives that text from the folder's tokenizer, so such a server needs no flag.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ...errors import UsageError
from ...probes import ChatTokens
from ..chat_tokens import template_tokens
from .answer import Field
from .http import ServerError
from ..start import StartToken, leading_tokens

#: The message whose rendering is compared with the server's (plain words, one user turn).
PROBE_MESSAGE = "Is the sky blue? Answer yes or no."

Check = Literal["equal", "unchecked"]


@dataclass(frozen=True)
class LocalTokenizer:
    """The served model's tokenizer, read from ``folder`` (the server's ``root``)."""

    tokenizer: Any
    folder: str


def local_tokenizer(root: str | None) -> LocalTokenizer | None:
    """The tokenizer in ``root`` when it is a readable folder here holding one; else None (nothing is
    downloaded: ``local_files_only``)."""
    if root is None or not Path(root).is_dir():
        return None
    if not any((Path(root) / name).is_file() for name in ("tokenizer.json", "tokenizer_config.json")):
        return None
    from transformers import AutoTokenizer  # transformers only where a local folder is there to read

    try:
        return LocalTokenizer(AutoTokenizer.from_pretrained(root, local_files_only=True), root)
    except (OSError, ValueError):  # a folder without a loadable tokenizer: as if it were not here
        return None


def default_prefix(local: LocalTokenizer | None) -> str:
    """The text of the start token the in-process scorer reads before a text (the BOS, else the EOS)
    where the tokenizer puts none of its own; empty where it puts one (the server adds it) or where
    no tokenizer is known."""
    if local is None or leading_tokens(local.tokenizer):
        return ""
    for name in ("bos_token", "eos_token"):
        value = getattr(local.tokenizer, name, None)
        if isinstance(value, str) and value:
            return value
    return ""


def served_chat(local: LocalTokenizer | None, mode: StartToken, prefix: str, where: str) -> ChatTokens:
    """The chat facts of the served model: its folder's (:func:`..chat_tokens.template_tokens`), read before
    what the served scorer reads first under ``mode`` (``prefix`` under ``always``; the tokenizer's own
    leading tokens, which the server adds, under ``empty-context`` or without a prefix); a template
    unknown where the folder is not here."""
    if local is None:
        return ChatTokens(None, start_text=prefix, model=where)
    lead = list(leading_tokens(local.tokenizer))
    start = prefix if mode == "always" and prefix else "" if mode == "first-only" else local.tokenizer.decode(lead)
    return template_tokens(local.tokenizer, start, where)


def cross_check(post: Any, served_model: str, local: LocalTokenizer, chat: ChatTokens, where: str,
                url: str = "the server's /tokenize") -> Check:
    """``equal`` when the server's ``/tokenize`` (at ``url``) of :data:`PROBE_MESSAGE` (its own template,
    with the generation prompt) gives the token ids of our rendering of the folder's template; ``unchecked``
    where the server has no such endpoint (an error, or an answer without ``tokens``); ``tokens`` other
    than a list of whole numbers is a :class:`.answer.WrongShape`. A difference is a
    :class:`UsageError` naming the first differing token."""
    if chat.template is None:
        return "unchecked"
    messages = [{"role": "user", "content": PROBE_MESSAGE}]
    try:
        said = post("../tokenize", {"model": served_model, "messages": messages, "add_generation_prompt": True,
                                    "add_special_tokens": False})
    except ServerError:
        return "unchecked"
    tokens = Field(said, url).key("tokens") if isinstance(said, dict) else None
    if tokens is None or tokens.absent:
        return "unchecked"
    theirs = [t.whole() for t in tokens.items()]
    text = local.tokenizer.apply_chat_template(messages, chat_template=chat.template, add_generation_prompt=True,
                                               tokenize=False)
    ours = list(local.tokenizer(text, add_special_tokens=False)["input_ids"])
    if ours != theirs:
        at = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
        raise UsageError(f"{where} renders its chat template otherwise than {local.folder} does (token {at} of "
                         f"{len(theirs)} from its /tokenize, {len(ours)} ours): was it started with another "
                         "--chat-template? Use --chat-template FILE with the template it serves, or none")
    return "equal"
