"""``--help`` shows what to type, never the Python type behind it (issue: "no Python types in
placeholders"): typer's own would read ``<str>``, ``<int range>``, ``<list[str]>``, ``<bool>``."""

from __future__ import annotations

import io
import os
import re
from contextlib import redirect_stdout
from unittest.mock import patch

import pytest

from biasatlas.cli import main
from biasatlas.cli.run import build_command

#: Python's own type words, as typer would print them in a placeholder.
PYTHON_TYPES = re.compile(r"<[^>]*\b(str|int|float|bool|list|Path|tuple)\b[^>]*>")


def _help(*words: str) -> str:
    # through main(), the command line's one entry point, which sets the placeholders
    with (patch.dict(os.environ, {"COLUMNS": "200"}), redirect_stdout(io.StringIO()) as out,
          pytest.raises(SystemExit) as done):
        main([*words, "--help"])
    assert done.value.code == 0, out.getvalue()
    return out.getvalue()


@pytest.mark.parametrize("words", [(), ("report",), ("compare",), ("suite",), ("mine",), ("zh-analyze",),
                                   ("run", "census"), ("run", "crows-pairs"), ("run", "zh-neutral"),
                                   ("run", "stereoset")])
def test_no_placeholder_names_a_python_type(words):
    text = _help(*words)
    assert "--help" in text
    assert PYTHON_TYPES.findall(text) == []


def test_placeholders_say_what_to_type():
    text = _help("run", "crows-pairs")
    for flag, placeholder in [("--limit", "<N>"), ("--model", "<name|folder>"), ("--columns", "<field=column>..."),
                              ("--bias-type", "<category>..."), ("--out", "<folder>"),
                              ("--dtype", "<float32|float16|bfloat16|fp32|fp16|bf16>")]:
        line = next(line for line in text.splitlines() if f" {flag} " in line)
        assert placeholder in line, line
    switch = next(line for line in text.splitlines() if " --force " in line)
    assert "<" not in switch  # a switch takes no value: no placeholder at all


def test_a_run_command_built_alone_has_them_too():
    command = build_command("census")
    language = next(p for p in command.params if p.name == "language")
    assert language.metavar == "<language>"
