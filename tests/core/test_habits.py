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

ROOT = Path(__file__).resolve().parents[2]


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


# -- the shape of src/ (DESIGN.md: layers, no circles, modules under ~400 lines) ------------------
SRC = ROOT / "src"
PACKAGE = SRC / "biasatlas"

#: Modules over the line limit that another change of issue 35 is still splitting; the
#: integrator removes each entry once its split lands (the test fails on an entry that fits).
OVER_LIMIT_ALLOWED: dict[str, str] = {}
MAX_LINES = 400

#: Import circles (incl. TYPE_CHECKING and function-level imports) that another change of
#: issue 35 is still removing; the integrator removes each entry once it is gone (the test fails
#: on an entry that no longer exists, so the list only shrinks).
CIRCLES_ALLOWED: dict[frozenset[str], str] = {}


def _modules() -> dict[str, Path]:
    """Every module of src/biasatlas by dotted name (a package by its own name)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _layered() -> set[str]:
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    # the house's contract; a package's own layers contract (suite/, sensitivity/ …) names containers
    (contract,) = [c for c in config["tool"]["importlinter"]["contracts"]
                   if c["type"] == "layers" and not c.get("containers")]
    return {name.strip() for layer in contract["layers"] for name in layer.split("|")}


def _graph():
    grimp = pytest.importorskip("grimp")  # import-linter's own graph builder (the `test` extra)
    # TYPE_CHECKING imports and imports inside functions are edges too, as import-linter counts them
    return grimp.build_graph("biasatlas", cache_dir=None)


def test_every_module_sits_in_a_layer():
    """A module the layer contract does not name (nor a package above it) is checked by nothing:
    suite_sensitivity.py (now suite/sensitivity.py) sat outside every layer and imported upward unseen (issue 35)."""
    layered = _layered()
    graph = _graph()
    modules = _modules()
    unlayered = []
    for name, path in modules.items():
        if name == "biasatlas":  # the contract's root package: it holds the layers, it cannot be one
            continue
        if any(name == layer or name.startswith(layer + ".") for layer in layered):
            continue
        if path.name == "__init__.py" and not graph.find_modules_directly_imported_by(name):
            continue  # a package spanning layers (runs/): its __init__ imports nothing, so nothing runs up
        unlayered.append(name)
    assert not unlayered, f"modules in no [tool.importlinter] layer (add each to pyproject.toml): {unlayered}"


def _circles(graph) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.find_modules_directly_imported_by(node):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.add(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(frozenset(component))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return found


def test_no_import_circles():
    """No two modules import each other, not even through an ``if TYPE_CHECKING:`` import or one
    inside a function: a circle closed that way hides which module sits below the other, and
    the fix is to move what both need down a layer (issue 35)."""
    circles = _circles(_graph())
    new = [sorted(c) for c in circles if c not in CIRCLES_ALLOWED]
    assert not new, f"import circles (move what both sides need into a module below both): {new}"
    gone = [sorted(c) for c in CIRCLES_ALLOWED if c not in circles]
    assert not gone, f"these circles are gone: remove them from CIRCLES_ALLOWED: {gone}"


def test_modules_stay_under_the_line_limit():
    """DESIGN.md: no module over ~400 lines; a longer one is split by job into named modules."""
    lines = {name: len(path.read_text(encoding="utf-8").splitlines()) for name, path in _modules().items()}
    over = {name: n for name, n in lines.items() if n > MAX_LINES and name not in OVER_LIMIT_ALLOWED}
    assert not over, f"modules over {MAX_LINES} lines (split each by job): {over}"
    fits = [name for name in OVER_LIMIT_ALLOWED if lines.get(name, 0) <= MAX_LINES]
    assert not fits, f"these modules fit now: remove them from OVER_LIMIT_ALLOWED: {fits}"
