"""Chat templates as a named, recorded choice (issue 38): the option any benchmark takes with one base class.

A benchmark that asks an instruction-tuned model a question builds its prompt from a user turn and an
assistant prefix (an answer cue: DiscrimEval's ``Based on the information provided … my answer would be "``)
and lets ``--chat-template`` decide how the two become the text the scorer reads:

- ``none``: plain text, ``user + separator + prefix`` (lm-evaluation-harness 0.4.13 without
  ``--apply_chat_template``; ``separator`` is the benchmark's, lm-eval's delimiter); allowed on a chat
  model too, and labelled so;
- ``model``: the model's own template (:class:`~biasatlas.probes.ChatTokens`, read from its tokenizer by
  the scorer) rendered for the one user message with the generation prompt, then the prefix, as lm-eval
  does with ``--apply_chat_template`` and a ``gen_prefix`` (the assistant turn left open);
- a path: a Jinja template file rendered the same way (a served model's template, a template to try).

Rendering is transformers' (``apply_chat_template``): a sandboxed Jinja environment with ``trim_blocks``,
``lstrip_blocks``, the loop-controls extension, ``tojson`` and the ``raise_exception`` and ``strftime_now``
globals, given ``messages``, ``add_generation_prompt``, ``bos_token`` and ``eos_token``. Written here rather
than called (transformers' renderer is a private function that moves between releases, and the benchmarks
load without torch); the tests check token for token against ``tokenizer.apply_chat_template``. Unlike
transformers', a rendering is bounded in steps and sizes, and whatever a template does wrong is one line
naming its file and line (:mod:`.chat_render`); a template file is read under the text-file policy
(:mod:`biasatlas.textfiles`) and compiled as the option is set, before a model loads.

One start token: a scorer may read a token of its own before the context (``ChatTokens.start_text``: the
BOS under ``--start-token always``, Gemma's ``<bos>`` under ``empty-context``). A rendered prompt that
begins with that text loses it, so the model reads the template's BOS once, as lm-eval reads it (its
``tok_encode`` adds no special tokens to a text that begins with the BOS text).

Recorded in config.json (:meth:`ChatOptions.chat_provenance`): the choice, the template's sha256 (of its
UTF-8 text) and the rendered prompt of the first item; and labelled in the summary (:meth:`ChatOptions.chat_label`).

A served chat endpoint (``--served-api chat``, :attr:`~biasatlas.probes.ChatTokens.server_renders`) renders the
template itself: only ``model`` (the server's) can be asked for, a generated answer's probe carries its user
turn as the message to send (:meth:`ChatOptions.messaged`; its prompt is that text), and a likelihood reading
is refused (a chat endpoint returns no prompt log-probabilities: lm-evaluation-harness issues 942 and 1196).
"""

from __future__ import annotations

import contextlib
import hashlib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..probes import GenerationProbe, Probe, ScorerInfo
from ..textfiles import input_file, read_text
from .chat_render import Origin, render_bounded
from .options import Options, option

MODEL, NONE = "model", "none"


@dataclass(frozen=True, kw_only=True)
class ChatOptions(Options):
    """The ``--chat-template`` option (module docstring), for a benchmark to include as a base class;
    :meth:`prompt` turns a user turn and an assistant prefix into the text its probes ask about."""

    chat_template: str = option(NONE, "How a prompt is given to the model: 'model' (its own chat template), "
                                      "'none' (plain text) or a Jinja template file.", metavar="model|none|FILE")

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.chat_template not in (MODEL, NONE):
            tried(self.chat_template)  # a bad template file is one line before anything loads

    def refuse(self, info: ScorerInfo) -> None:
        """``model`` on a scorer that knows its model has no template (or cannot know it); anything but
        ``model`` on a chat endpoint, which renders its own."""
        super().refuse(info)
        if info.chat is not None and info.chat.server_renders:
            if self.chat_template != MODEL:
                raise UsageError(f"--chat-template {self.chat_template}: --served-api chat sends the user's message "
                                 "and the server renders its own template; use --chat-template model (with a "
                                 "generated reading), or --served-api completions")
            return
        if self.chat_template == MODEL and info.chat is not None and info.chat.template is None:
            raise no_template(info)

    def messaged(self, probes: list[Probe]) -> list[Probe]:
        """``probes`` as the scorer is sent them: on a chat endpoint each generation probe carries its user
        turn (its prompt, unrendered there: :func:`chat_prompt`) as the message; elsewhere as they are, so
        a text prompt's probe and cache key never change."""
        if not self._server_renders():
            return probes
        return [replace(p, user=p.prompt) if isinstance(p, GenerationProbe) else p for p in probes]

    def _server_renders(self) -> bool:
        return self.scorer is not None and self.scorer.chat is not None and self.scorer.chat.server_renders

    def prompt(self, user: str, prefix: str, separator: str = "", *, generated: bool = False) -> str:
        """The text the scorer reads for ``user`` then ``prefix`` (:func:`chat_prompt`); ``generated``: the
        prompt of a generated answer, read as the tokenizer encodes it."""
        return chat_prompt(self.chat_template, self.scorer, user, prefix, separator, generated=generated)

    def chat_provenance(self, user: str, prefix: str, separator: str = "", *, generated: bool = False
                        ) -> dict[str, Any]:
        """config.json's record of the choice: the template's sha256 (None for ``none``, and for ``model``
        before a scorer says its template) and the rendered prompt of the first item (its ``user`` and
        ``prefix``; None until it can be rendered)."""
        template = self._known_template()
        renders = self.chat_template == NONE or template is not None and self.scorer is not None
        return {"chat_template_sha256": None if template is None else sha256_text(template),
                "chat_prompt_first": self.prompt(user, prefix, separator, generated=generated) if renders else None}

    def _known_template(self) -> str | None:
        if self.chat_template == NONE:
            return None
        if self.chat_template == MODEL:
            chat = self.scorer.chat if self.scorer is not None else None
            return chat.template if chat is not None else None
        return template_file(self.chat_template)

    def chat_label(self) -> str:
        """How a run says its choice, in its summary (issue 38: a base model without a template and a chat
        model asked without its own are both labelled): ``none (the model has one)``, ``none (the model has
        none)``, ``none`` where the scorer does not say; ``model (sha256 …)``, ``model (the server's)`` on a
        chat endpoint (``, sha256 …`` where its folder is readable here); ``file NAME (sha256 …)``."""
        chat = self.scorer.chat if self.scorer is not None else None
        if self.chat_template == NONE:
            if chat is None or chat.template is None and self.scorer is not None and self.scorer.kind == "served":
                return NONE  # a scorer that does not say, or a served model whose folder is not here
            return "none (the model has one)" if chat.template else "none (the model has none)"
        template = self._known_template()
        digest = f"sha256 {sha256_text(template)[:12]}" if template is not None else None
        if self.chat_template == MODEL:
            if chat is not None and chat.server_renders:
                return "model (the server's" + (f", {digest})" if digest else ")")
            return f"model ({digest})" if digest else MODEL
        return f"file {Path(self.chat_template).name} ({digest})"


def chat_prompt(choice: str, info: ScorerInfo | None, user: str, prefix: str, separator: str = "", *,
                generated: bool = False) -> str:
    """The prompt the scorer reads: ``user`` and ``prefix`` as ``choice`` (``model``, ``none`` or a template
    file) gives them, for a scorer whose answers mean what ``info`` says (module docstring). A likelihood
    probe is read after the scorer's own start text; a prompt to generate from (``generated``) after what
    the tokenizer adds itself (:attr:`~biasatlas.probes.ChatTokens.encoded_start`), so neither reads a
    rendered BOS twice, and neither loses a template's first token."""
    if choice == NONE:
        return user + separator + prefix
    if info is not None and info.chat is not None and info.chat.server_renders:
        return _sent_as_message(user, prefix, generated)
    rendered = render(_template_text(choice, info), [{"role": "user", "content": user}], origin=_origin(choice, info),
                      bos_token=_chat_token(info, "bos_token"), eos_token=_chat_token(info, "eos_token"))
    chat = info.chat if info is not None else None
    start = "" if chat is None else chat.encoded_start if generated else chat.start_text
    if start and rendered.startswith(start):  # the scorer reads its start token itself: not twice
        rendered = rendered[len(start):]
    return rendered + prefix


def _sent_as_message(user: str, prefix: str, generated: bool) -> str:
    """A chat endpoint's prompt: the user turn as it is (the server renders it); nothing else can be sent."""
    if not generated:
        raise UsageError("--served-api chat: a chat endpoint returns no prompt log-probabilities "
                         "(lm-evaluation-harness issues 942 and 1196), so a likelihood reading cannot be read through "
                         "it; use a generated reading (bbq --answers generated) or --served-api completions")
    if prefix:
        raise UsageError("--served-api chat: a chat endpoint cannot continue an assistant turn begun with an answer "
                         f"cue ({prefix!r}); use --served-api completions")
    return user


def render(template: str, messages: list[dict[str, str]], *, add_generation_prompt: bool = True,
           bos_token: str | None = None, eos_token: str | None = None, origin: Origin = "the chat template") -> str:
    """``template`` rendered as transformers' ``apply_chat_template(..., tokenize=False)`` renders it, within
    bounds (:mod:`.chat_render`); ``origin`` names it in an error."""
    return render_bounded(template, origin, {"messages": messages, "add_generation_prompt": add_generation_prompt,
                                             "bos_token": bos_token or "", "eos_token": eos_token or ""})


def tried(path: str) -> None:
    """A template file read, compiled and rendered once for a message of the benchmarks' shape: a missing
    file is a usage error (exit 2), one that is not UTF-8, not Jinja or that fails or runs on as it renders
    a data error naming the file and line (exit 1), found before a model loads. A refusal of the template's
    own (``raise_exception``) is left to the real prompt, whose tokens this trial does not know."""
    with contextlib.suppress(UsageError):
        render(template_file(path), [{"role": "user", "content": "Is this a question?"}], origin=Path(path))


def template_file(path: str) -> str:
    """A template file's text under the text-file policy (:mod:`biasatlas.textfiles`: UTF-8, a BOM dropped)."""
    return read_text(input_file(path))


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def no_template(info: ScorerInfo) -> UsageError:
    """The error for ``--chat-template model`` on a scorer with no template to give."""
    name = info.chat.model if info.chat is not None else info.kind
    why = ("does not say its chat template (a served model whose folder is not readable here)"
           if info.kind == "served" else "has no chat template")
    return UsageError(f"--chat-template model: {name} {why}; use --chat-template none (plain text) or "
                      "--chat-template FILE (a Jinja chat template file, e.g. the model's chat_template.jinja)")


def cannot_generate(info: ScorerInfo) -> str:
    """The one-line refusal of ``--answers generated`` on a scorer whose ``info`` says it writes no text
    (``generates`` False), naming the scorer and what to do; decided before any scoring."""
    if info.reads == "given":
        return ("--answers generated: the predictions file holds option scores, not generated texts; give a "
                "file of generated answers (lm-eval's bbq_generate samples) or leave --answers at likelihood")
    return (f"--answers generated: the {info.kind} scorer does not generate text; use a causal LM (a packaged "
            "one such as smollm2-135m, a model folder, or a served model's URL) or leave --answers at likelihood")


def _template_text(choice: str, info: ScorerInfo | None) -> str:
    if choice != MODEL:
        return template_file(choice)
    if info is None or info.chat is None:
        raise UsageError(f"--chat-template model: the scorer ({info.kind if info else 'none bound'}) does not say "
                         "its model's chat template; use --chat-template none or a template file")
    if info.chat.template is None:
        raise no_template(info)
    return info.chat.template


def _origin(choice: str, info: ScorerInfo | None) -> Origin:
    """The template's name in its errors: its file, or the model whose own it is."""
    if choice != MODEL:
        return Path(choice)
    return f"--chat-template model ({info.chat.model}'s template)" if info and info.chat else "--chat-template model"


def _chat_token(info: ScorerInfo | None, name: str) -> str | None:
    return getattr(info.chat, name) if info is not None and info.chat is not None else None
