"""Generated answers from a served model: ``/v1/completions`` at temperature 0 (issue 38).

The request lm-evaluation-harness's ``local-completions`` model sends for ``generate_until``, and what
:mod:`..generation` does in process: the prompt as it is (the server's tokenizer adds its own special
tokens, as ours does in process), ``temperature`` 0, ``max_tokens`` the probe's ``max_new_tokens``,
``stop`` its stop strings (the server leaves them out of the text). ``logprobs`` 0 is asked only to
count the generated tokens. Prompts of one stop rule go ``batch_size`` per request (the API takes a list).

``finish`` from the server's ``finish_reason``: ``length``; ``stop`` with a ``stop_reason`` string
(vLLM says which stop string) is a stop string, any other ``stop`` the end-of-sequence token. A
server that does not say ``stop_reason`` reads ``stop`` for both; the text is then cut again on the
stop strings here, which changes nothing where the server cut it already.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ...errors import ModelError
from ...probes import GenerationAnswer, GenerationProbe
from ..generation import cut
from ..resume import Interrupted
from .answer import Field, ordered_choices


def completions(post: Callable[[str, Mapping[str, Any]], Any], model: str, probes: Sequence[GenerationProbe], *,
                batch_size: int, tick: Callable[[int], None], where: str,
                url: str = "the server") -> list[GenerationAnswer]:
    """Each probe's generated text, one request per ``batch_size`` prompts of one stop rule; on
    Ctrl-C, :class:`~..resume.Interrupted` with the answers of the requests finished. ``where`` names
    the server and model in messages, ``url`` the endpoint whose answers' fields they name."""
    out: list[GenerationAnswer] = []
    rules: dict[tuple[int, tuple[str, ...]], list[GenerationProbe]] = {}
    for p in probes:
        rules.setdefault((p.max_new_tokens, p.stop), []).append(p)
    try:
        for (max_tokens, stop), group in rules.items():
            for k in range(0, len(group), batch_size):
                batch = group[k:k + batch_size]
                body: dict[str, Any] = {"model": model, "prompt": [p.prompt for p in batch], "max_tokens": max_tokens,
                                        "temperature": 0, "logprobs": 0}
                if stop:
                    body["stop"] = list(stop)
                out.extend(_answers(post("completions", body), batch, where, url))
                tick(len(batch))
    except KeyboardInterrupt:
        raise Interrupted({a.id: a for a in out}) from None
    return out


def _answers(said: Any, batch: Sequence[GenerationProbe], where: str, url: str) -> list[GenerationAnswer]:
    return [_answer(probe, choice, where) for probe, choice in zip(batch, ordered_choices(said, len(batch), url))]


def _answer(probe: GenerationProbe, choice: Field, where: str) -> GenerationAnswer:
    text = choice.key("text")
    if text.absent:
        raise ModelError(f"{where} gave no text for probe {probe.id}")
    cut_text, cut_here = cut(text.text(), probe.stop)
    logprobs = choice.key("logprobs")
    tokens = [] if logprobs.absent else logprobs.key("tokens").maybe_items()
    return GenerationAnswer(probe.id, cut_text, len(tokens), finish(choice, cut_here))


def finish(choice: Field, cut_here: bool) -> str:
    """Why a generated answer ended (module docstring), from its ``finish_reason`` (a string or null) and
    ``stop_reason`` (vLLM's: the stop string, a stop token's id, or null)."""
    reason, stop_reason = choice.key("finish_reason").maybe_text(), choice.key("stop_reason")
    if not stop_reason.absent and not isinstance(stop_reason.value, str):
        stop_reason.whole()  # a stop token's id, else refused
    return "length" if reason == "length" else "stop" if cut_here or isinstance(stop_reason.value, str) else "eos"
