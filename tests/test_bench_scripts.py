"""The benchmark scripts run where the GPU check runs: a python with torch and transformers
(and what they depend on) and nothing else, biasatlas imported from src/.

The isolated interpreter is this venv's python with ``-S`` (no site-packages) and a folder
of links to the distributions torch and transformers need, so a script that imports
scipy, rich, typer or biasatlas' other dependencies fails here as it would there.
"""

from __future__ import annotations

import importlib.metadata as metadata
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
# huggingface-hub's command-line tool pulls these in; transformers itself needs none of them.
CLI_ONLY = {"typer", "click", "rich", "shellingham", "pygments", "markdown-it-py", "mdurl"}


def _requirements(name: str) -> list[str]:
    try:
        requires = metadata.distribution(name).requires or []
    except metadata.PackageNotFoundError:
        return []
    return [re.split(r"[ ;<>=!~\[(]", r, maxsplit=1)[0] for r in requires if "extra ==" not in r]


def _closure(roots: list[str]) -> set[str]:
    seen: set[str] = set()
    stack = list(roots)
    while stack:
        name = stack.pop().lower().replace("_", "-")
        if name in seen or name in CLI_ONLY:
            continue
        try:
            metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        seen.add(name)
        stack.extend(_requirements(name))
    return seen


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory) -> tuple[list[str], dict[str, str]]:
    """(command, environment) of a python that sees torch, transformers and their needs only."""
    folder = tmp_path_factory.mktemp("torch-transformers-only")
    for name in _closure(["torch", "transformers"]):
        dist = metadata.distribution(name)
        for top in {Path(str(f)).parts[0] for f in dist.files or () if not str(f).startswith("..")}:
            source = Path(str(dist.locate_file(top)))
            if source.exists() and not (folder / top).exists():
                (folder / top).symlink_to(source)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["PYTHONPATH"] = str(folder)
    return [sys.executable, "-S"], env


def test_the_bare_python_lacks_what_the_gpu_machine_lacks(bare_python):
    command, env = bare_python
    absent = ("scipy", "rich", "typer", "platformdirs")
    probe = f"import importlib.util as u; print([m for m in {absent!r} if u.find_spec(m)])"
    out = subprocess.run([*command, "-c", probe], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_benchmark_scripts_import_with_torch_and_transformers_only(bare_python):
    command, env = bare_python
    env = {**env, "PYTHONPATH": f"{env['PYTHONPATH']}:{ROOT / 'src'}:{BENCH}"}
    modules = ["measure", "shapes", "bench_crows", "bench_census", "bench_causal_gemma_shape"]
    out = subprocess.run([*command, "-c", f"import {', '.join(modules)}; print('ok')"], env=env,
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]


def test_gemma_shape_is_the_packaged_models(tmp_path):
    """The random model's shape fields are those of the converted gemma-3-270m folder."""
    sys.path.insert(0, str(BENCH))
    try:
        from shapes import GEMMA_3_270M, gemma_config
    finally:
        sys.path.remove(str(BENCH))
    from biasatlas.scorers.packaged import default_models_dir

    folders = sorted(default_models_dir().glob("gemma-3-270m--*/config.json"))
    if not folders:
        pytest.skip("the packaged gemma-3-270m has not been converted on this machine")
    packaged = json.loads(folders[-1].read_text())
    assert {k: packaged[k] for k in GEMMA_3_270M} == GEMMA_3_270M
    config = gemma_config()
    assert config.layer_types == packaged["layer_types"]
    assert (config.vocab_size, config.num_hidden_layers, config.hidden_size) == (262144, 18, 640)


@pytest.mark.slow
def test_gpu_script_runs_in_smoke_mode(bare_python, shared_data):
    """bench/gpu.sh end to end on the CPU with tiny models: every script runs and reports."""
    command, env = bare_python
    env = {**env, "PYTHON": " ".join(command), "BIASATLAS_DATA": str(shared_data)}
    out = subprocess.run(["bash", str(BENCH / "gpu.sh"), "--smoke"], env=env, capture_output=True, text=True,
                         cwd=ROOT, timeout=1500)
    assert out.returncode == 0, (out.stdout[-3000:], out.stderr[-3000:])
    text = out.stdout
    assert text.count("speed-up:") == 2 + 2 + 2 * 2  # each script × 2 dtypes (the causal one: × 2 works)
    assert text.count("fraction") >= 6 and "same classes: 1/1" in text
    assert "gpu.sh: all benchmarks done" in text
