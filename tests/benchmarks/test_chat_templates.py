"""Chat templates as a named, recorded choice (issue 38; biasatlas.benchmarks.chat).

The rendering is checked against transformers' own ``apply_chat_template`` (an independent renderer), and
the tokens the causal scorer reads against ``apply_chat_template(..., tokenize=True)`` + the prefix's
tokens: on a tiny GPT-2 with a template set here (one that renders ``{{ bos_token }}``, read once under
``--start-token always``) and on the packaged SmolLM2-135M-Instruct (its own template, slow).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest

from biasatlas.benchmarks.chat import ChatOptions, chat_prompt, render
from biasatlas.errors import MissingInput, UsageError
from biasatlas.probes import ChatTokens, ScorerInfo
from packaged_smollm2 import smollm2

#: A template in the shape of real ones: the BOS, a default system turn, roles, an end token, a refusal,
#: a loop control and the generation prompt.
TEMPLATE = (
    "{{ bos_token }}{% if messages[0]['role'] != 'system' %}<|system|>\nBe fair.{{ eos_token }}\n{% endif %}"
    "{% for message in messages %}{% if message['role'] == 'tool' %}{{ raise_exception('no tools') }}{% endif %}"
    "{% if message['content'] == '' %}{% continue %}{% endif %}"
    "<|{{ message['role'] }}|>\n{{ message['content'] | trim }}{{ eos_token }}\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>\n{% endif %}")
USER, PREFIX = "Should the bank approve the loan?", 'My answer would be "'


@dataclass(frozen=True, kw_only=True)
class Asks(ChatOptions):
    """The smallest benchmark taking the option."""

    name: ClassVar[str] = "asks"
    VERSION: ClassVar[str] = "1"


def _info(template: str | None, start: str = "", kind: str = "causal-lm") -> ScorerInfo:
    return ScorerInfo(kind, "sequence", chat=ChatTokens(template, "<s>", "</s>", start, "tiny-chat"))


def test_none_is_plain_text_with_the_benchmarks_separator() -> None:
    assert chat_prompt("none", None, USER, PREFIX) == USER + PREFIX
    assert chat_prompt("none", _info(TEMPLATE), USER, PREFIX, "\n") == USER + "\n" + PREFIX


def test_model_renders_the_user_turn_then_the_open_assistant_prefix() -> None:
    # worked by hand from TEMPLATE: BOS, default system turn, the user turn, the generation prompt, the prefix
    expected = f"<s><|system|>\nBe fair.</s>\n<|user|>\n{USER}</s>\n<|assistant|>\n{PREFIX}"
    assert chat_prompt("model", _info(TEMPLATE), USER, PREFIX) == expected
    # a scorer that reads <s> itself before the context gets the prompt without it: one BOS, not two
    assert chat_prompt("model", _info(TEMPLATE, start="<s>"), USER, PREFIX) == expected[len("<s>"):]


def test_a_prompt_to_generate_from_keeps_what_the_tokenizer_does_not_add() -> None:
    # generation reads a prompt as the tokenizer encodes it, whatever the likelihood start convention:
    # a scorer reading <s> itself under --start-token always, whose tokenizer adds nothing, must generate
    # after the template's own <s>; one whose tokenizer adds <s> (Gemma's <bos>) must not get it twice
    expected = f"<s><|system|>\nBe fair.</s>\n<|user|>\n{USER}</s>\n<|assistant|>\n{PREFIX}"
    reads_start = ScorerInfo("causal-lm", "sequence", chat=ChatTokens(TEMPLATE, "<s>", "</s>", "<s>", "m"))
    assert chat_prompt("model", reads_start, USER, PREFIX) == expected[len("<s>"):]
    assert chat_prompt("model", reads_start, USER, PREFIX, generated=True) == expected
    adds_start = ScorerInfo("causal-lm", "sequence", chat=ChatTokens(TEMPLATE, "<s>", "</s>", "<s>", "m", "<s>"))
    assert chat_prompt("model", adds_start, USER, PREFIX, generated=True) == expected[len("<s>"):]


def test_a_template_file_renders_as_the_models_would(tmp_path: Path) -> None:
    path = tmp_path / "chat.jinja"
    path.write_text(TEMPLATE, encoding="utf-8")
    # the file wins over a model with no template at all
    assert chat_prompt(str(path), _info(None), USER, PREFIX) == chat_prompt("model", _info(TEMPLATE), USER, PREFIX)


def test_render_matches_transformers_apply_chat_template(tiny_gpt2: Path) -> None:
    transformers = pytest.importorskip("transformers")
    tokenizer = transformers.AutoTokenizer.from_pretrained(tiny_gpt2)
    tokenizer.chat_template = TEMPLATE
    chats = [[{"role": "user", "content": "  padded  "}],
             [{"role": "system", "content": "S"}, {"role": "user", "content": ""}, {"role": "user", "content": "x"}]]
    for messages in chats:
        for generation in (True, False):
            ours = render(TEMPLATE, messages, add_generation_prompt=generation, bos_token=tokenizer.bos_token,
                          eos_token=tokenizer.eos_token)
            assert ours == tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=generation)
    with pytest.raises(UsageError, match="no tools"):
        render(TEMPLATE, [{"role": "tool", "content": "x"}])


def _read_ids(scorer, prompt: str, continuation: str) -> list[int]:
    """The token ids the scorer reads for ``continuation`` after ``prompt``: its row (lead included), which
    ends at the last read position, then the last target token."""
    row, targets = scorer._continuation_reading(prompt, continuation).request
    return [*row.ids, targets[-1]]


def _expected_ids(tokenizer, prefix: str, continuation: str) -> list[int]:
    chat = tokenizer.apply_chat_template([{"role": "user", "content": USER}], tokenize=True,
                                         add_generation_prompt=True, return_dict=False)
    ids = list(chat["input_ids"]) if isinstance(chat, dict) or hasattr(chat, "keys") else list(chat)
    return ids + tokenizer(prefix + continuation, add_special_tokens=False)["input_ids"]


def _chat_gpt2(tiny_gpt2: Path, tmp_path: Path) -> tuple[Any, Any]:
    """The tiny GPT-2 given TEMPLATE, scored under --start-token always (its BOS read before every text),
    and its tokenizer."""
    transformers = pytest.importorskip("transformers")
    from biasatlas.scorers.inprocess.causal_lm import CausalLMScorer

    tokenizer = transformers.AutoTokenizer.from_pretrained(tiny_gpt2)
    tokenizer.chat_template = TEMPLATE
    folder = tmp_path / "chat-gpt2"
    transformers.AutoModelForCausalLM.from_pretrained(tiny_gpt2).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return CausalLMScorer(str(folder), start_token="always"), tokenizer


def test_the_scorer_reads_the_templates_tokens_once(tiny_gpt2: Path, tmp_path: Path) -> None:
    scorer, tokenizer = _chat_gpt2(tiny_gpt2, tmp_path)
    assert scorer.info.chat is not None and scorer.info.chat.template == TEMPLATE
    assert scorer.info.chat.start_text == tokenizer.bos_token  # GPT-2's <|endoftext|>, read before every text
    prompt = Asks(chat_template="model").bind(scorer.info).prompt(USER, "answer")
    assert not prompt.startswith(tokenizer.bos_token)
    assert _read_ids(scorer, prompt, " yes") == _expected_ids(tokenizer, "answer", " yes")


def test_a_generated_prompt_is_the_templates_tokens_as_the_tokenizer_encodes_them(tiny_gpt2: Path,
                                                                                  tmp_path: Path) -> None:
    scorer, tokenizer = _chat_gpt2(tiny_gpt2, tmp_path)
    assert scorer.info.chat is not None and scorer.info.chat.encoded_start == ""  # GPT-2's tokenizer adds none
    prompt = Asks(chat_template="model").bind(scorer.info).prompt(USER, "", generated=True)
    # what generation encodes (scorers/generation.py: the tokenizer's own encoding of the prompt)
    templated = tokenizer.apply_chat_template([{"role": "user", "content": USER}], add_generation_prompt=True,
                                              tokenize=True, return_dict=True)
    assert tokenizer(prompt)["input_ids"] == list(templated["input_ids"])
    assert prompt.startswith(tokenizer.bos_token)  # the template's own BOS, which nothing else adds here


@pytest.mark.slow
def test_packaged_smollm2_reads_apply_chat_template_plus_the_prefix() -> None:
    transformers = pytest.importorskip("transformers")
    from biasatlas.scorers.inprocess.causal_lm import CausalLMScorer

    folder = smollm2()
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    scorer = CausalLMScorer(str(folder), start_token="empty-context")
    assert scorer.info.chat is not None and scorer.info.chat.start_text == ""  # SmolLM2's tokenizer adds none
    prompt = Asks(chat_template="model").bind(scorer.info).prompt(USER, PREFIX)
    assert _read_ids(scorer, prompt, "yes") == _expected_ids(tokenizer, PREFIX, "yes")


def test_model_without_a_template_is_refused_naming_the_model_and_the_alternatives() -> None:
    with pytest.raises(UsageError, match=r"tiny-chat has no chat template.*--chat-template none.*FILE"):
        Asks(chat_template="model").bind(_info(None))
    served = ScorerInfo("served", "sequence", chat=ChatTokens(None, model="http://x/v1 (model m)"))
    with pytest.raises(UsageError, match=r"does not say its chat template \(a served model whose folder is not .*FILE"):
        Asks(chat_template="model").bind(served)
    # before a model loads, its info says nothing of a template: nothing to refuse yet
    Asks(chat_template="model").bind(ScorerInfo("causal-lm", "sequence"))
    with pytest.raises(MissingInput):
        Asks(chat_template="/no/such/template.jinja")


def test_the_choice_is_labelled_and_recorded(tmp_path: Path) -> None:
    chat_model = _info(TEMPLATE)
    plain = Asks().bind(chat_model)
    assert plain.chat_label() == "none (the model has one)"  # a chat model asked without its template
    assert Asks().bind(_info(None)).chat_label() == "none (the model has none)"  # a base model
    assert Asks().chat_label() == "none"  # no scorer bound: nothing known of a template
    digest = hashlib.sha256(TEMPLATE.encode()).hexdigest()[:12]
    assert Asks(chat_template="model").bind(chat_model).chat_label() == f"model (sha256 {digest})"
    assert plain.chat_provenance(USER, PREFIX) == {"chat_template_sha256": None, "chat_prompt_first": USER + PREFIX}
    recorded = Asks(chat_template="model").bind(chat_model).chat_provenance(USER, PREFIX)
    assert recorded["chat_template_sha256"] == hashlib.sha256(TEMPLATE.encode()).hexdigest()
    assert recorded["chat_prompt_first"].endswith(f"<|assistant|>\n{PREFIX}")
    path = tmp_path / "t.jinja"
    path.write_bytes(TEMPLATE.encode())
    assert Asks(chat_template=str(path)).bind(_info(None)).chat_label() == f"file t.jinja (sha256 {digest})"
    assert Asks(chat_template="model").chat_provenance(USER, PREFIX)["chat_prompt_first"] is None  # unbound


def test_a_served_model_refuses_its_own_template_and_takes_a_file(tmp_path: Path) -> None:
    pytest.importorskip("httpx")
    from served_fake import URL, FakeServer

    from biasatlas.scorers.served.completions import ServedScorer

    info = ServedScorer(URL, transport=FakeServer().transport(), sleep=lambda s: None, served_prefix="<s>").info
    assert info.chat is not None and info.chat.template is None and info.chat.start_text == "<s>"
    with pytest.raises(UsageError, match=r"does not say its chat template \(a served model whose folder is not .*FILE"):
        Asks(chat_template="model").bind(info)
    path = tmp_path / "chat.jinja"
    path.write_text(TEMPLATE, encoding="utf-8")
    # a server says no BOS/EOS texts: the template's {{ bos_token }} and {{ eos_token }} render empty (a
    # template that writes its tokens out, as SmolLM2's, is unaffected), and the served prefix is the start
    prompt = Asks(chat_template=str(path)).bind(info).prompt(USER, PREFIX)
    assert prompt == f"<|system|>\nBe fair.\n<|user|>\n{USER}\n<|assistant|>\n{PREFIX}"
