"""The formats of what a run folder records, and how a folder of an older one reads today.

Format 1: the owner file (``.biasatlas-run.json``, :func:`biasatlas.runs.folder.claim_run_folder`)
holds the recorded request and no ``format_version``; a benchmark's config keys carry their
names of then (census recorded its method as ``variant``). Format 2: the owner file holds
``format_version: 2`` beside the request, and the configs use today's names. A benchmark
declares the keys it renamed (``BenchmarkSpec.renamed_config``, as (old, new) pairs), so
that a rerun into a format-1 folder is still its own rerun and a report reads an old
``config.json`` under the new names; nothing here names a benchmark.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: The owner file's format written now (module docstring).
FORMAT_VERSION = 2
#: A benchmark's renamed config keys, as (name in format 1, name now).
Renames = tuple[tuple[str, str], ...]


def renamed_config(bench: Mapping[str, Any], renames: Renames) -> dict[str, Any]:
    """A benchmark's recorded config with each key of ``renames`` under its new name, in its
    place. A config that already has the new name keeps both as they are: it was written
    after the rename, and its old key (if any) means something else."""
    new = dict(renames)
    return {(new[k] if k in new and new[k] not in bench else k): v for k, v in bench.items()}
