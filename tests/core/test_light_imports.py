"""``import biasatlas`` and the command line's help load no model library: torch and
transformers are imported only where a model is built, so ``--help`` answers at once and the
core works in an install without the ``torch`` extra. Each case runs in a fresh interpreter
and reads its ``sys.modules``."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("torch", "transformers", "pandas", "ray")
PROBE = """
import contextlib, io, json, sys
{body}
print(json.dumps(sorted({{m.split(".")[0] for m in sys.modules}} & set({heavy!r}))))
"""


def _heavy_after(body: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", PROBE.format(body=body, heavy=HEAVY)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout.strip().splitlines()[-1]))


def test_import_biasatlas_loads_no_model_library():
    assert _heavy_after("import biasatlas") == []


@pytest.mark.slow  # a subprocess or the full data: the full suite runs it, the fast loop does not
@pytest.mark.parametrize("argv", [["--help"], ["run", "--help"], ["run", "census", "--help"], ["list"]],
                         ids=" ".join)
def test_the_help_loads_no_model_library(argv):
    body = ("from biasatlas.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    try: main({argv!r})\n"
            "    except SystemExit as exc: assert exc.code == 0, exc.code\n")
    assert _heavy_after(body) == []
