"""Inputs the command line refuses in one line naming the file (issue 46 items 8 and 11).

Each case runs :func:`biasatlas.cli.main` in this process with ``--model fake`` and checks the exit status
(1: a file whose contents cannot be used; 2: a usage mistake), that stderr is the one ``error:`` line naming
the file (and line and field where there is one), and that no traceback or internal error was printed:

- a ``--chat-template FILE`` that is not Jinja, not UTF-8, refused by the sandbox, naming another template,
  naming what is not there, or running on (two nested ``range(100000)`` loops): before, each was an
  ``internal error: <jinja2 exception>`` or a run that never ended;
"""

from __future__ import annotations

from pathlib import Path

import pytest

import biasatlas.cli as cli

NESTED = "{% for i in range(100000) %}\n{% for j in range(100000) %}x{% endfor %}{% endfor %}"


@pytest.fixture()
def tmp(tmp_path, monkeypatch, shared_data) -> Path:
    monkeypatch.setenv("BIASATLAS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("BIASATLAS_DATA_DIR", str(shared_data))
    return tmp_path


def _refused(argv: list[str], capsys) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exited:
        cli.main([*argv, "--model", "fake"])
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" not in err, err
    assert len(err.strip().splitlines()) == 1 and err.startswith("error: "), err
    code = exited.value.code
    return (code if isinstance(code, int) else 0), err.strip().removeprefix("error: ")


def _template(tmp: Path, text: str | bytes) -> Path:
    path = tmp / "chat.jinja"
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


# (case, template, its line, a fragment of the message)
TEMPLATES = [
    ("syntax error", "{% for m in messages %}\n{{ m.content }\n{% endfor %}", 2, "not a Jinja chat template"),
    ("not UTF-8", b"\xff\xfe{\x00{\x00", 1, "not UTF-8 text (byte 0xFF at offset 0)"),
    ("sandbox SecurityError", "{{ messages.__class__.__mro__ }}", 1, "SecurityError: access to attribute '__class__'"),
    ("include", "{% include 'system.jinja' %}", 1, "{% include %} reads another template"),
    ("undefined name", "{{ bos_token }}\n{{ nothing.at.all }}", 2, "UndefinedError: 'nothing' is undefined"),
    ("two nested range(100000) loops", NESTED, 2, "did not finish within 100,000 steps"),
]


@pytest.mark.parametrize("benchmark", [["discrim-eval", "--scenarios", "1"], ["bbq", "--category", "Age"]],
                         ids=["discrim-eval", "bbq"])
@pytest.mark.parametrize(("text", "line", "says"), [c[1:] for c in TEMPLATES], ids=[c[0] for c in TEMPLATES])
def test_a_bad_chat_template_is_one_line_naming_the_file_and_line(tmp, capsys, benchmark, text, line, says):
    path = _template(tmp, text)
    code, said = _refused(["run", *benchmark, "--chat-template", str(path)], capsys)
    assert code == 1
    assert said.startswith(f"file {path}, line {line}: ") and says in said, said
