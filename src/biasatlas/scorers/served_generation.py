"""Generated answers from a served model: ``/v1/completions`` at temperature 0 (issue 38).

The request lm-evaluation-harness's ``local-completions`` model sends for ``generate_until``, and what
:mod:`.generation` does in process: the prompt as it is (the server's tokenizer adds its own special
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

from ..errors import ModelError
from ..probes import GenerationAnswer, GenerationProbe
from .generation import cut
from .resume import Interrupted


def completions(post: Callable[[str, Mapping[str, Any]], Any], model: str, probes: Sequence[GenerationProbe], *,
                batch_size: int, tick: Callable[[int], None], where: str) -> list[GenerationAnswer]:
    """Each probe's generated text, one request per ``batch_size`` prompts of one stop rule; on
    Ctrl-C, :class:`~.resume.Interrupted` with the answers of the requests finished."""
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
                out.extend(_answers(post("completions", body), batch, where))
                tick(len(batch))
    except KeyboardInterrupt:
        raise Interrupted({a.id: a for a in out}) from None
    return out


def _answers(said: Any, batch: Sequence[GenerationProbe], where: str) -> list[GenerationAnswer]:
    choices = said.get("choices") if isinstance(said, dict) else None
    if not isinstance(choices, list) or len(choices) != len(batch):
        raise ModelError(f"{where} answered {len(batch)} prompts with "
                         f"{len(choices) if isinstance(choices, list) else 'no'} choices")
    ordered = sorted(choices, key=lambda c: int(c.get("index", 0)) if isinstance(c, dict) else 0)
    return [_answer(probe, choice, where) for probe, choice in zip(batch, ordered)]


def _answer(probe: GenerationProbe, choice: Any, where: str) -> GenerationAnswer:
    text = choice.get("text") if isinstance(choice, dict) else None
    if not isinstance(text, str):
        raise ModelError(f"{where} gave no text for probe {probe.id}")
    text, cut_here = cut(text, probe.stop)
    logprobs = choice.get("logprobs")
    tokens = logprobs.get("tokens") if isinstance(logprobs, dict) else None
    reason, stop_reason = choice.get("finish_reason"), choice.get("stop_reason")
    finish = "length" if reason == "length" else "stop" if cut_here or isinstance(stop_reason, str) else "eos"
    return GenerationAnswer(probe.id, text, len(tokens) if isinstance(tokens, list) else 0, finish)
