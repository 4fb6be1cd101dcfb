"""Every ``>>>`` example in the package's docstrings runs, so the documented examples stay true.

Modules are found by their source holding ``>>>``, and only those are imported: the
examples need no optional extra, and collecting the whole package with
``--doctest-modules`` would import torch- and Ray-backed modules for nothing.
"""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "biasatlas"


def _modules_with_examples() -> list[str]:
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if ">>>" in path.read_text(encoding="utf-8"):
            parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


MODULES = _modules_with_examples()


def test_the_package_has_examples():
    assert "biasatlas.textfiles" in MODULES  # the finder works


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name, capsys):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, report=True)
    report = capsys.readouterr().out
    assert result.attempted > 0, f"{name}: '>>>' in the source, but no example found in a docstring"
    assert result.failed == 0, report
