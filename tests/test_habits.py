"""The habits CI enforces, run as tests so the README's one test command runs them all.

Each test runs one tool over the repository (configured in ``pyproject.toml``) and fails
with the tool's own report. The tools come with the ``test`` extra that
``scripts/setup.sh --test`` installs. ``scripts/prove_habits.sh`` plants one violation
per tool in a copy of the repository and shows that each of these tests would fail.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(tool: str, *args: str, module: str | None = None) -> None:
    """Run ``tool`` from this interpreter's environment at the repository root; fail with its output."""
    if module is not None:
        if importlib.util.find_spec(module) is None:
            pytest.fail(f"{tool} is not installed: run `bash scripts/setup.sh --test`", pytrace=False)
        command = [sys.executable, "-m", module, *args]
    else:
        script = Path(sys.executable).with_name(tool)
        found = str(script) if script.exists() else shutil.which(tool)
        if found is None:
            pytest.fail(f"{tool} is not installed: run `bash scripts/setup.sh --test`", pytrace=False)
        command = [found, *args]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        pytest.fail(f"`{tool} {' '.join(args)}` exited {done.returncode}:\n{done.stdout}{done.stderr}",
                    pytrace=False)


def test_ruff():
    """Lint rules in [tool.ruff]: pycodestyle, pyflakes, pyupgrade, bugbear, simplify."""
    _run("ruff", "check", "--no-cache", "src", "tests", "scripts", "bench", module="ruff")


def test_mypy():
    """[tool.mypy]: strict for the core modules, a baseline for the rest of the package."""
    _run("mypy", module="mypy")


def test_import_layers():
    """[tool.importlinter]: DESIGN.md's layers, and no command-line code below the CLI."""
    _run("lint-imports", "--no-cache")
