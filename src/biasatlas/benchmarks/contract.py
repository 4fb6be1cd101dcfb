"""What a run asks of a benchmark (DESIGN.md, "Benchmark"): the narrow interface the runner calls.

A benchmark loads items (frozen records with stable ids), turns them into probes, and turns the
scorer's answers into a :class:`BenchmarkResult`. It never calls a model. Everything else the
runner needs (its config, its copy bound to a scorer) is derived from its options
(:class:`~biasatlas.benchmarks.options.Options`); the wrappers that decorate a benchmark for a run
(:mod:`.linted`, :mod:`.sensitivity`) answer the same calls.

This module sits below :mod:`.base` (the spec and the view) and :mod:`.sensitivity`, which both
read it, so neither imports the other to name a result.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..probes import Answer, Probe, ScorerInfo
from ..runs.typed import encode


@dataclass(frozen=True)
class BenchmarkResult:
    """The typed summary (a benchmark's ``summary.py`` dataclass; a plain mapping is read as it is),
    one record per item, skipped items with reasons, and ``extra`` summary keys a wrapper adds
    after the benchmark's own (the data lint)."""

    summary: Any
    records: list[dict[str, Any]]
    skipped: list[dict[str, Any]] = field(default_factory=list)
    extra: Mapping[str, Any] = field(default_factory=dict)

    def written(self) -> dict[str, Any]:
        """The summary as summary.json holds it: the typed record encoded, then ``extra``."""
        own = encode(self.summary) if dataclasses.is_dataclass(self.summary) else dict(self.summary)
        return {**own, **self.extra}


class Benchmark(Protocol):
    # read-only members, so that a frozen dataclass (every benchmark) satisfies the protocol
    @property
    def name(self) -> str: ...

    @property
    def VERSION(self) -> str: ...  # noqa: N802 - the benchmarks' constant, recorded in every summary

    @property
    def COUNTS_WORK(self) -> bool: ...  # noqa: N802 - its summary records the scorer's planned work

    def load(self) -> Sequence[Any]:
        """Items of the benchmark, each with a stable ``id``."""

    def probes(self, items: Sequence[Any]) -> Sequence[Probe]:
        """The questions to ask the model (a list of one probe kind is fine: Sequence is covariant)."""

    def score(self, items: Sequence[Any], answers: Mapping[str, Answer]) -> BenchmarkResult:
        """The published metric from the answers."""

    def config(self) -> dict[str, Any]:
        """Parameters and data provenance (file, sha256) that determine the result (derived: Options.config)."""

    def bind(self, info: ScorerInfo) -> Any:
        """This benchmark set up for a scorer whose answers mean what ``info`` says (derived:
        Options.bind); raises :class:`~biasatlas.errors.UnsupportedProbe` for a scorer it cannot read."""


def with_work(summary: Mapping[str, Any], counters: Mapping[str, int]) -> dict[str, Any]:
    """``summary`` with the scorer's planned forward passes (rows = model inputs), batches and encoder
    passes, and the passes per probe. The pipeline passes the planned counts (what an uncached run
    computes), so a run answered from the score cache reports the same numbers."""
    rows = counters.get("rows_computed")
    per_probe = rows / summary["n_probes"] if rows is not None and summary.get("n_probes") else None
    return {**summary, "n_forward_passes": rows, "n_batches": counters.get("batches"),
            "n_encoder_passes": counters.get("encoder_rows"), "forward_passes_per_probe": per_probe}
