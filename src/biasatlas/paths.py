"""Where biasatlas keeps what it caches: downloaded data, converted models, scores.

One root, ``$BIASATLAS_CACHE_DIR`` if set, else the user cache folder's ``biasatlas``
(``~/.cache/biasatlas`` on Linux), so a single variable moves (or isolates, in tests)
everything at once.
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """The root of every biasatlas cache."""
    root = os.environ.get("BIASATLAS_CACHE_DIR")
    if root:
        return Path(root)
    import platformdirs

    return Path(platformdirs.user_cache_dir("biasatlas"))


def models_dir() -> Path:
    """Packaged models converted once to plain model folders."""
    return cache_dir() / "models"


def scores_path() -> Path:
    """The score cache (SQLite), shared by every run of every benchmark."""
    return cache_dir() / "scores.sqlite"
