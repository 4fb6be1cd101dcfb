"""Benchmarks are found through the ``biasatlas.benchmarks`` entry points, biasatlas's own as
any other package's: a benchmark shipped in a package of its own, once installed, is listed,
run (``biasatlas run NAME``), put in a suite, reported and compared with nothing changed in
biasatlas.

The outside package is a copy of tests/toy_benchmark.py under another name, installed
offline (``pip install --no-deps --no-build-isolation --no-index --target``) into a
temporary folder that the commands then find on ``PYTHONPATH``.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from biasatlas import registry

TOY = Path(__file__).resolve().parents[1] / "toy_benchmark.py"
NAME = "ext-pronouns"
REPO = Path(__file__).resolve().parents[2]


def _declared_in_pyproject() -> dict[str, str]:
    """biasatlas's own benchmarks as its pyproject.toml declares them: name → module."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return dict(project["entry-points"][registry.ENTRY_POINTS])


def _dist_info(folder: Path, project: str, entries: dict[str, str]) -> None:
    """A hand-written installed distribution: METADATA and entry_points.txt, as pip leaves them."""
    info = folder / f"{project.replace('-', '_')}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project}\nVersion: 0.1\n", encoding="utf-8")
    lines = "".join(f"{name} = {module}\n" for name, module in entries.items())
    (info / "entry_points.txt").write_text(f"[biasatlas.benchmarks]\n{lines}", encoding="utf-8")


def test_installed_packages_add_benchmarks_after_biasatlas_own(tmp_path, monkeypatch):
    _dist_info(tmp_path, "zz-bench", {"b-bench": "zz.b", "census": "zz.fake_census"})
    _dist_info(tmp_path, "aa-bench", {"a-bench": "aa.a"})
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    found = registry.discover_benchmarks()
    # biasatlas's own: FIRST in the leaderboards' order, then the later ones by name; then the other
    # packages' by name; "census" stays biasatlas's
    own = set(_declared_in_pyproject())
    assert list(found) == [*registry.FIRST, *sorted(own - set(registry.FIRST)), "a-bench", "b-bench"]
    assert found["census"] == "biasatlas.benchmarks.census" and found["a-bench"] == "aa.a"


def test_the_built_in_benchmarks_come_through_the_entry_points():
    from importlib.metadata import entry_points

    declared = {ep.name: ep.module for ep in entry_points(group=registry.ENTRY_POINTS)
                if ep.dist is not None and ep.dist.metadata["Name"] == "biasatlas"}
    assert declared == registry.BENCHMARKS  # nothing registered any other way
    assert declared == _declared_in_pyproject()  # the installed metadata is this tree's (else: pip install -e .)
    assert set(registry.FIRST) <= set(declared)


def test_every_spec_biasatlas_defines_is_declared_under_its_name():
    """Every :class:`BenchmarkSpec` a ``spec.py`` under benchmarks/ defines (seat's defines two: seat and
    weat) has its entry-point line, and the module that line names exports that very spec."""
    from biasatlas.benchmarks.base import BenchmarkSpec

    declared = _declared_in_pyproject()
    defined = {}
    for path in sorted((REPO / "src" / "biasatlas" / "benchmarks").glob("*/spec.py")):
        module = importlib.import_module(f"biasatlas.benchmarks.{path.parent.name}.spec")
        defined |= {spec.name: spec for spec in vars(module).values() if isinstance(spec, BenchmarkSpec)}
    assert defined and set(defined) == set(declared)
    for name, spec in defined.items():
        assert registry.benchmark_spec(name) is spec


def test_no_metadata_is_a_clear_error(monkeypatch):
    monkeypatch.setattr(registry, "BENCHMARKS", {})
    with pytest.raises(Exception, match="installed metadata .* is missing"):
        registry.benchmark_spec("census")


# -- a real package, installed ----------------------------------------------------------------
@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The toy, renamed, as a package declaring its entry point, pip-installed into a folder."""
    source = tmp_path_factory.mktemp("ext-source")
    (source / "ext_toy").mkdir()
    code = TOY.read_text(encoding="utf-8").replace('NAME = "toy-pronouns"', f'NAME = "{NAME}"')
    assert f'NAME = "{NAME}"' in code
    (source / "ext_toy" / "__init__.py").write_text(code, encoding="utf-8")
    (source / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n\n'
        '[project]\nname = "ext-toy"\nversion = "0.1"\n\n'
        f'[project.entry-points."biasatlas.benchmarks"]\n{NAME} = "ext_toy"\n\n'
        '[tool.setuptools]\npackages = ["ext_toy"]\n', encoding="utf-8")
    target = tmp_path_factory.mktemp("ext-target")
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index",
                    "--target", str(target), str(source)], check=True, capture_output=True, timeout=300)
    assert (target / "ext_toy" / "__init__.py").is_file()
    return target


def _biasatlas(target: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(target), os.environ.get("PYTHONPATH")])),
           "BIASATLAS_CACHE_DIR": str(cwd / "cache")}
    done = subprocess.run([sys.executable, "-m", "biasatlas", *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    return done


@pytest.mark.slow
def test_an_installed_package_benchmark_runs_end_to_end(installed, tmp_path):
    listed = _biasatlas(installed, tmp_path, "list")
    assert NAME in listed.stdout
    ran = _biasatlas(installed, tmp_path, "run", NAME, "--model", "fake", "--out", "single")
    # the table its view gives the report, printed by `run`
    assert "Toy pronoun preference" in ran.stdout and (tmp_path / "single" / "summary.json").is_file()
    suite = tmp_path / "suite.toml"
    suite.write_text(f'[[benchmark]]\nname = "{NAME}"\n\n[[model]]\nid = "fake"\n\n[[model]]\nid = "fake"\n'
                     'label = "again"\n', encoding="utf-8")
    _biasatlas(installed, tmp_path, "suite", str(suite), "--out", "grid")
    cell = tmp_path / "grid" / f"{NAME}__fake"
    summary = json.loads((cell / "summary.json").read_text(encoding="utf-8"))
    assert summary["benchmark"] == NAME and summary["n"] == 8  # the toy's eight sentences
    assert "Toy leaderboard" in (tmp_path / "grid" / "leaderboard.md").read_text(encoding="utf-8")  # its own view
    _biasatlas(installed, tmp_path, "report", str(cell), "--out", "report.md")
    assert "Toy pronoun preference" in (tmp_path / "report.md").read_text(encoding="utf-8")
    compared = _biasatlas(installed, tmp_path, "compare", str(cell), str(tmp_path / "grid" / f"{NAME}__again"))
    assert "Wilcoxon" in compared.stdout  # the toy's own paired test
