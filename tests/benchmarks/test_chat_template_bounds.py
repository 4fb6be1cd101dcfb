"""A ``--chat-template FILE`` that is wrong, or that runs on, is one error naming the file and its line (issue 46
items 8 and 11; biasatlas.benchmarks.chat_render).

Each template is asked through :func:`chat_prompt` (what a benchmark's prompt calls) or through the option
itself (:class:`ChatOptions`, which reads, compiles and tries a file as it is set, before a model loads). The
budgets' edges are worked by hand: a step is one loop item or one call (``range()`` included), a size is the
length of a text the template builds or renders.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest

from biasatlas.benchmarks.chat import ChatOptions, chat_prompt
from biasatlas.errors import DataError, MissingInput, UsageError
from biasatlas.probes import ChatTokens, ScorerInfo

INFO = ScorerInfo("causal-lm", "sequence", chat=ChatTokens(None, "<s>", "</s>", "", "tiny-chat"))


@dataclass(frozen=True, kw_only=True)
class Asks(ChatOptions):
    name: ClassVar[str] = "asks"
    VERSION: ClassVar[str] = "1"


def _file(tmp_path: Path, text: str | bytes) -> Path:
    path = tmp_path / "chat.jinja"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def _refusal(path: Path) -> str:
    with pytest.raises(DataError) as refused:
        chat_prompt(str(path), INFO, "Q?", "A: ")
    assert refused.value.exit_code == 1 and "\n" not in str(refused.value)
    return str(refused.value)


# (case, template, line, what the error says after "file …, line N: ")
BROKEN = [
    ("syntax error", "{% for m in messages %}\n{{ m.content }\n{% endfor %}", 2,
     "not a Jinja chat template: unexpected '}'"),
    ("unknown filter", "line one\n{{ messages | shout }}", 2, "not a Jinja chat template: No filter named 'shout'."),
    ("include", "{{ bos_token }}\n{% include 'system.jinja' %}", 2,
     "{% include %} reads another template; a chat template is one file"),
    ("import", "{% import 'macros.jinja' as m %}", 1, "{% import %} reads another template"),
    ("extends", "\n\n{% extends 'base.jinja' %}", 3, "{% extends %} reads another template"),
    ("undefined name", "{% for m in messages %}\n{{ m.content }}\n{{ nothing.at.all }}{% endfor %}", 3,
     "the chat template failed: UndefinedError: 'nothing' is undefined"),
    ("sandbox refusal", "a\n{{ messages.__class__.__mro__ }}", 2,
     "the chat template failed: SecurityError: access to attribute '__class__' of 'list' object is unsafe."),
    ("division by zero", "a\nb\n{{ 1 / 0 }}", 3, "the chat template failed: ZeroDivisionError: division by zero"),
    ("range over the sandbox's", "{% for i in range(100001) %}{% endfor %}", 1,
     "the chat template failed: OverflowError: Range too big."),
    ("recursion without end", "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}\n{{ f(0) }}", 1,
     "the chat template was stopped: it calls itself without end"),
]


@pytest.mark.parametrize(("text", "line", "says"), [c[1:] for c in BROKEN], ids=[c[0] for c in BROKEN])
def test_a_broken_template_is_one_line_naming_the_file_and_line(tmp_path, text, line, says):
    path = _file(tmp_path, text)
    assert _refusal(path).startswith(f"file {path}, line {line}: {says}")


def test_a_template_not_in_utf8_is_refused_by_the_text_file_policy(tmp_path):
    # FF FE: a UTF-16 byte-order mark (Notepad's "Unicode"), then "{{" in UTF-16-LE
    path = _file(tmp_path, b"\xff\xfe{\x00{\x00")
    assert _refusal(path) == f"file {path}, line 1: not UTF-8 text (byte 0xFF at offset 0): save it as UTF-8"
    # a UTF-8 BOM (EF BB BF) is dropped, as for every text file: not rendered into the prompt
    bom = _file(tmp_path, "\ufeff<|user|>{{ messages[0].content }}")
    assert chat_prompt(str(bom), INFO, "Q?", "A: ") == "<|user|>Q?A: "


def test_the_option_refuses_a_bad_file_before_a_model_loads(tmp_path):
    with pytest.raises(MissingInput, match="no such file"):  # missing: a usage mistake, exit 2
        Asks(chat_template=str(tmp_path / "none.jinja"))
    for text, says in (("{{ x }", "not a Jinja chat template"), ("{{ nothing.at }}", "UndefinedError"),
                       ("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
                        "was stopped: it did not finish within 100,000 steps")):
        path = _file(tmp_path, text)
        with pytest.raises(DataError, match=f"^file {path}, line 1: .*{says}"):
            Asks(chat_template=str(path))
    # a template's own refusal of a prompt (raise_exception) is left to the real prompt
    refusing = _file(tmp_path, "{{ raise_exception('no system turn given') }}")
    asks = Asks(chat_template=str(refusing))
    with pytest.raises(UsageError, match="^the chat template refused the prompt: no system turn given$"):
        asks.prompt("Q?", "A: ")


def test_two_nested_loops_of_range_100000_stop(tmp_path):
    # the template: ten billion steps before; stopped at the 100,001st
    path = _file(tmp_path, "{% for i in range(100000) %}\n{% for j in range(100000) %}x{% endfor %}{% endfor %}")
    assert _refusal(path).startswith(f"file {path}, line 2: the chat template was stopped: it did not finish "
                                     "within 100,000 steps (loop items and calls")


def test_the_step_budget_is_loop_items_and_calls(tmp_path):
    # 99 x 1,000: 99 + 99,000 loop items and 1 + 99 calls of range() = 99,199 steps, within 100,000
    within = _file(tmp_path, "{% for i in range(99) %}{% for j in range(1000) %}{% endfor %}{% endfor %}ok")
    assert chat_prompt(str(within), INFO, "Q?", "") == "ok"
    # 1,000 x 1,000: a million steps (rendered in about a second before; nothing bounded it)
    beyond = _file(tmp_path, "{% for i in range(1000) %}{% for j in range(1000) %}{% endfor %}{% endfor %}ok")
    assert "did not finish within 100,000 steps" in _refusal(beyond)
    # 100 x 1,000: 100 + 100,000 loop items, 101 calls: beyond by the inner loops alone
    edge = _file(tmp_path, "{% for i in range(100) %}{% for j in range(1000) %}{% endfor %}{% endfor %}ok")
    assert "did not finish within 100,000 steps" in _refusal(edge)
    # a macro calling itself twice per level: 2^17 - 1 = 131,071 calls
    calls = _file(tmp_path, "{% macro f(n) %}{% if n %}{{ f(n - 1) }}{{ f(n - 1) }}{% endif %}{% endmacro %}"
                            "{{ f(16) }}")
    assert "did not finish within 100,000 steps" in _refusal(calls)
    # a recursive loop's inner levels are counted too: 3 + 3 x 100,000 items
    recursive = _file(tmp_path, "{% for i in range(3) recursive %}{{ loop(range(100000)) if loop.depth == 1 }}"
                                "{% endfor %}")
    assert "did not finish within 100,000 steps" in _refusal(recursive)


def test_the_rendered_text_is_at_most_a_million_characters(tmp_path):
    # 1,000 x 1,000 characters: exactly the bound, rendered; one more is refused
    full = _file(tmp_path, "{% for i in range(1000) %}{{ 'x' * 1000 }}{% endfor %}")
    assert chat_prompt(str(full), INFO, "", "") == "x" * 1_000_000
    over = _file(tmp_path, "{% for i in range(1000) %}{{ 'x' * 1000 }}{% endfor %}y")
    assert _refusal(over) == f"file {over}: the chat template was stopped: it rendered more than 1,000,000 characters"


# (case, template, what it says): each built a text or number of its bound's size in one step, before
SIZES = [
    ("a repeated text", "{{ ('x' * 10000000) | length }}", "it repeats a str 10,000,000 times"),
    ("a doubled text", "{% set ns = namespace(s='x') %}{% for i in range(30) %}{% set ns.s = ns.s ~ ns.s %}"
                       "{% endfor %}{{ ns.s | length }}", "it built a str of 1,048,576 characters"),
    ("a padded text", "{{ 'x' | center(100000000) | length }}", "an argument of 100,000,000 is beyond 1,000,000"),
    ("a % width", "{{ ('%0100000000d' % 1) | length }}", "it formats a value to 100,000,000 characters"),
    ("a format width", "{{ '{:>100000000}'.format(1) | length }}", "it formats a value to 100,000,000 characters"),
    ("a power", "{{ 7 ** 100000 }}", "it raises 7 to the power 100,000"),
]


@pytest.mark.parametrize(("text", "says"), [c[1:] for c in SIZES], ids=[c[0] for c in SIZES])
def test_what_a_template_builds_is_held_to_the_bounds(tmp_path, text, says):
    path = _file(tmp_path, text)
    assert _refusal(path).startswith(f"file {path}, line 1: the chat template was stopped: {says}")


def test_what_real_templates_use_still_renders(tmp_path):
    # loop attributes, an else branch, formats, tojson, slicing and a namespace: as Jinja renders them
    path = _file(tmp_path, "{% set ns = namespace(n=0) %}{% for m in messages %}{% set ns.n = ns.n + 1 %}"
                           "{{ loop.index }}/{{ loop.length }}:{{ m['content'][:2] | tojson }}"
                           "{{ ',' if not loop.last }}{% endfor %}{% for x in [] %}-{% else %}|none|{% endfor %}"
                           "{{ '%03d' % ns.n }}{{ '{:>4}'.format('ab') }}")
    assert chat_prompt(str(path), INFO, "Question?", "") == '1/1:"Qu"|none|001  ab'


#: The constructs of today's chat templates (whitespace control, a namespace, slices, string methods,
#: ``selectattr``, ``tojson``, ``%`` on loop indices, ``is defined``, ``strftime_now``), written for this test.
RICH = (
    "{%- set ns = namespace(system='', turns=0) -%}\n"
    "{%- if messages[0]['role'] == 'system' -%}{%- set ns.system = messages[0]['content'] | trim -%}"
    "{%- set rest = messages[1:] -%}{%- else -%}{%- set rest = messages -%}{%- endif -%}\n"
    "{{- bos_token }}<|system|>{{ ns.system or 'Today is ' ~ strftime_now('%Y') | length ~ ' digits.' }}\n"
    "{%- for m in rest -%}\n"
    "  {%- if (m['role'] == 'user') != (loop.index0 % 2 == 0) -%}{{ raise_exception('roles must alternate') }}"
    "{%- endif -%}\n"
    "  {%- set ns.turns = ns.turns + 1 -%}\n"
    "<|{{ m.role }}|>{{ m.content.split('</think>')[-1].lstrip() }}{% if m.extra is defined %}{{ m.extra | tojson }}"
    "{% endif %}{{ eos_token }}\n"
    "{%- endfor -%}\n"
    "{{- (rest | selectattr('role', 'equalto', 'user') | list | length) }} users, {{ ns.turns }} turns"
    "{%- if add_generation_prompt %}<|assistant|>{% endif -%}")


def test_a_rich_template_renders_as_transformers_renders_it(tiny_gpt2):
    from biasatlas.benchmarks.chat import render

    transformers = pytest.importorskip("transformers")
    tokenizer = transformers.AutoTokenizer.from_pretrained(tiny_gpt2)
    tokenizer.chat_template = RICH
    chats = [[{"role": "user", "content": "Q?"}],
             [{"role": "system", "content": " Be fair. "}, {"role": "user", "content": "<think>x</think> Q1"},
              {"role": "assistant", "content": "A1", "extra": {"k": [1, "é<"]}}, {"role": "user", "content": "Q2"}]]
    for messages in chats:
        ours = render(RICH, messages, bos_token=tokenizer.bos_token, eos_token=tokenizer.eos_token)
        assert ours == tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    with pytest.raises(UsageError, match="roles must alternate"):
        render(RICH, [{"role": "assistant", "content": "A"}])
