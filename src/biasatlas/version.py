"""The package version, in a module of its own at the bottom of the layers, so that the
pipeline's provenance and the report's footer read it without importing the package root
(whose ``evaluate`` comes from :mod:`biasatlas.api`, above both).

Every commit between two releases calls itself ``__version__``; a run records, beside it, the
git commit of the source tree it ran from (:func:`source_commit`, as lm-evaluation-harness
records ``git_hash``), so a paper can cite the exact code.
"""

import subprocess
from functools import cache
from pathlib import Path

__version__ = "0.1.0"


@cache
def source_commit() -> dict[str, object]:
    """``{"biasatlas_commit": <40 hex digits>, "biasatlas_modified": <bool>}`` when this package
    runs from a git checkout (``modified``: tracked files differ from that commit), ``{}`` when it
    runs from an installed wheel or without git. Read once per process: a run's summary must not
    change between its chunks."""
    return commit_of(Path(__file__).resolve().parents[2])


def commit_of(root: Path) -> dict[str, object]:
    """:func:`source_commit` of the checkout at ``root`` (``{}`` where it is none)."""
    if not (root / ".git").exists():  # a checkout's .git (a folder, or a file in a worktree)
        return {}
    try:
        head = _git(root, "rev-parse", "HEAD")
        changed = _git(root, "status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return {}
    return {"biasatlas_commit": head, "biasatlas_modified": bool(changed)}


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=10, check=True)
    return done.stdout.strip()
