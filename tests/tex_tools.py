"""pdflatex and bibtex for the tests that compile the report's LaTeX and BibTeX.

``scripts/setup.sh --test`` installs them (``scripts/ci-tex-deps.sh``), so a test that
needs them fails when they are missing, as the browser test does, rather than skipping
unseen in CI; ``BIASATLAS_SKIP_TEX=1`` turns that into a skip on a machine where they
cannot be installed.
"""

from __future__ import annotations

import os
import shutil

import pytest


def require_tex() -> None:
    missing = [tool for tool in ("pdflatex", "bibtex") if shutil.which(tool) is None]
    if missing:
        message = f"needs {' and '.join(missing)}: run scripts/ci-tex-deps.sh"
        if os.environ.get("BIASATLAS_SKIP_TEX") == "1":
            pytest.skip(message)
        pytest.fail(message, pytrace=False)
