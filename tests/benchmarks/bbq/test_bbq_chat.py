"""BBQ's ``--chat-template`` (issue 38): what each reading asks under ``none`` (the plain text, as before) and
under a template (lm-eval 0.4.13 with ``--apply_chat_template``: the prompt is the user turn, each option
follows the assistant's start with no delimiter), the content-free prompt of ``--rule pmi``, the record in
config.json, and the scorers that cannot be asked through a template. The expected texts are written out by
hand from the template below; the real model's are checked against lm-eval in test_bbq_chat_lm_eval.py."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from biasatlas.benchmarks.bbq import BBQ
from biasatlas.benchmarks.bbq.data import Example
from biasatlas.benchmarks.bbq.spec import SENSITIVITY
from biasatlas.errors import UsageError
from biasatlas.probes import ChatTokens, ContinuationProbe, GenerationProbe, ScorerInfo

#: A template of the shape SmolLM2's has (a BOS of its own, a turn per message, the assistant's start).
TEMPLATE = ("{{ bos_token }}{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}<|end|>\n{% endfor %}"
            "{% if add_generation_prompt %}<|assistant|>{% endif %}")
CHAT = ScorerInfo("causal", "sequence", chat=ChatTokens(TEMPLATE, bos_token="<s>", eos_token="</s>", model="m"))
BASE = ScorerInfo("causal", "sequence", chat=ChatTokens(None, model="base-model"))
EXAMPLE = Example(id="Age/1", category="Age", template="Age/1", polarity="neg", ambiguous=True, context="C.",
                  question="Who?", options=("The old", "Unknown", "The young"), label=1, unknown=1, target=0)


def _contexts(bench: BBQ) -> list[tuple[tuple[str, ...], str]]:
    probes = bench.probes([EXAMPLE])
    assert all(isinstance(p, ContinuationProbe) for p in probes)
    return [(p.contexts, p.continuation) for p in probes if isinstance(p, ContinuationProbe)]


def test_none_asks_the_plain_prompt_with_lm_evals_space_before_each_option() -> None:
    bench = BBQ(chat_template="none").bind(CHAT)  # a chat model asked without its template: allowed
    assert _contexts(bench) == [(("C.\n\nQ: Who?\nA:",), " The old"), (("C.\n\nQ: Who?\nA:",), " Unknown"),
                                (("C.\n\nQ: Who?\nA:",), " The young")]
    assert bench.chat_label() == "none (the model has one)"


def test_a_template_makes_the_prompt_the_user_turn_and_drops_the_delimiter() -> None:
    asked = "<s><|user|>C.\n\nQ: Who?\nA:<|end|>\n<|assistant|>"  # the "A:" cue stays in the user's turn
    assert _contexts(BBQ(chat_template="model").bind(CHAT)) == [((asked,), "The old"), ((asked,), "Unknown"),
                                                                ((asked,), "The young")]


def test_pmis_content_free_prompt_goes_through_the_same_template() -> None:
    contexts = {c for c, _ in _contexts(BBQ(chat_template="model", rule="pmi").bind(CHAT))}
    assert contexts == {("<s><|user|>C.\n\nQ: Who?\nA:<|end|>\n<|assistant|>",
                         "<s><|user|>N/A\n\nQ: N/A\nA:<|end|>\n<|assistant|>")}


def test_a_generated_answer_starts_after_the_assistants_start(tmp_path: Path) -> None:
    file = tmp_path / "t.jinja"
    file.write_text(TEMPLATE.replace("<|assistant|>", "ASSISTANT:"), encoding="utf-8")
    for choice, want in (("none", "C.\n\nQ: Who?\nA:"), ("model", "<s><|user|>C.\n\nQ: Who?\nA:<|end|>\n<|assistant|>"),
                         (str(file), "<s><|user|>C.\n\nQ: Who?\nA:<|end|>\nASSISTANT:")):
        [probe] = BBQ(chat_template=choice, answers="generated").bind(CHAT).probes([EXAMPLE])
        assert isinstance(probe, GenerationProbe) and probe.prompt == want, choice


def test_config_records_the_template_only_when_one_is_used(shared_data: Path) -> None:
    plain = BBQ(data=shared_data / "bbq", category="Religion", limit=2).bind(CHAT).config()
    assert not {"chat_template", "chat_template_sha256", "chat_prompt_first"} & set(plain)  # as before issue 38
    chat = BBQ(data=shared_data / "bbq", category="Religion", limit=2, chat_template="model").bind(CHAT)
    config = chat.config()
    first = next(e for e in chat.load() if e.target is not None)
    assert config["chat_template"] == "model"
    assert config["chat_template_sha256"] == hashlib.sha256(TEMPLATE.encode("utf-8")).hexdigest()
    assert config["chat_prompt_first"] == (f"<s><|user|>{first.context}\n\nQ: {first.question}\nA:<|end|>\n"
                                           "<|assistant|>")


@pytest.mark.parametrize(("info", "said"), [(ScorerInfo("masked", "masked"), "masked LM"),
                                            (ScorerInfo("given", "given"), "predictions file"),
                                            (BASE, "base-model has no chat template")])
def test_a_scorer_without_a_template_to_read_through_is_refused(info: ScorerInfo, said: str) -> None:
    with pytest.raises(UsageError, match=said):
        BBQ(chat_template="model").bind(info)


def test_sensitivity_templates_kind_asks_through_the_models_template() -> None:
    kinds = {p.name: dict(p.options) for p in SENSITIVITY.kinds["templates"](BBQ(), "causal")}
    assert kinds["chat_template-model"] == {"chat_template": "model"}
