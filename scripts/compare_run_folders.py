"""Compare every run folder under two pytest base folders, byte for byte.

A refactor that promises "outputs stay identical" is checked with this: run the suite
before (``pytest --basetemp=/tmp/before``) and after (``--basetemp=/tmp/after``), then::

    python scripts/compare_run_folders.py /tmp/before /tmp/after

A run folder is any folder holding ``summary.json``; folders are matched by their path
below the base folder (pytest names them after the test). Every file is compared except
``timing.json`` (seconds and cache hits, which differ between equal runs by design) and
the empty lock file, and the code's commit stamp (``biasatlas_commit``,
``biasatlas_modified``) is masked. Configs record input files and model folders by absolute path, so
any pytest base folder's path (``/tmp/pytest-of-USER/pytest-N``, or the given folders
after a copy) is replaced by ``<base>`` first. Exit 0 when every run folder of ``before``
exists in ``after`` with identical bytes, 1 otherwise.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

VOLATILE = {"timing.json", ".biasatlas.lock"}
PYTEST_BASE = re.compile(rb"/tmp/pytest-of-[^/]+/pytest-\d+")
#: The code's own commit and whether its tree was modified (summary.json's provenance): they name
#: the code that wrote a folder, which a refactor changes by definition, never what it computed.
CODE_STAMP = re.compile(rb'("biasatlas_(?:commit|modified)": )("[^"]*"|true|false|null)')


def run_folders(base: Path) -> dict[str, Path]:
    return {str(p.parent.relative_to(base)): p.parent for p in base.rglob("summary.json")}


def contents(folder: Path, base: Path) -> dict[str, bytes]:
    """The folder's files (not sub-folders) with the base path masked."""
    def masked(data: bytes) -> bytes:
        for root in (str(base.resolve()).encode(), str(base).encode()):
            data = data.replace(root, b"<base>")
        return CODE_STAMP.sub(rb"\1<code>", PYTEST_BASE.sub(b"<base>", data))

    return {p.name: masked(p.read_bytes())
            for p in sorted(folder.iterdir()) if p.is_file() and p.name not in VOLATILE}


def main(before: Path, after: Path) -> int:
    old, new = run_folders(before), run_folders(after)
    missing = sorted(set(old) - set(new))
    differing = [(rel, name) for rel in sorted(set(old) & set(new))
                 for a, b in [(contents(old[rel], before), contents(new[rel], after))]
                 for name in sorted(set(a) | set(b)) if a.get(name) != b.get(name)]
    print(f"run folders: {len(old)} before, {len(new)} after, {len(set(old) & set(new))} matched")
    for rel in missing:
        print(f"missing after: {rel}")
    for rel, name in differing:
        print(f"differs: {rel}/{name}")
    identical = len(set(old) & set(new)) - len({rel for rel, _ in differing})
    print(f"identical: {identical}; differing: {len({rel for rel, _ in differing})}; missing: {len(missing)}")
    return 1 if missing or differing else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: compare_run_folders.py BEFORE AFTER")
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2])))
