"""Where the tests find the project's shared data (DESIGN.md, "Offline stance").

Kept apart from tiny_models.py so that conftest.py can resolve the folder without
importing torch: the torch-free core must stay testable without the torch extra.
"""

from __future__ import annotations

import os
from pathlib import Path

SHARED_DATA_ENV = "BIASATLAS_SHARED_DATA"
REPO_ROOT = Path(__file__).resolve().parent.parent


def shared_data_dir() -> Path:
    """The shared data folder: ``$BIASATLAS_SHARED_DATA``, else ``<repo>/../shared/data``.

    Raises FileNotFoundError naming the folder looked at and how to point elsewhere.
    """
    configured = os.environ.get(SHARED_DATA_ENV)
    path = Path(configured) if configured else REPO_ROOT.parent / "shared" / "data"
    if not path.is_dir():
        raise FileNotFoundError(
            f"shared test data not found at {path}; set {SHARED_DATA_ENV} to the folder "
            "holding crows-pairs-en/, crows-pairs-fr/, census-occupations/ and zh-chbias-gender/"
        )
    return path
