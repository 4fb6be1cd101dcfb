"""The benchmark contract (DESIGN.md, "Benchmark").

A benchmark loads items (frozen records with stable ids), turns them into probes, and
turns the scorer's answers into a :class:`BenchmarkResult`. It never calls a model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..probes import Answer, Probe


@dataclass(frozen=True)
class BenchmarkResult:
    """Summary numbers (JSON-ready), one record per item, and skipped items with reasons."""

    summary: dict[str, Any]
    records: list[dict[str, Any]]
    skipped: list[dict[str, Any]] = field(default_factory=list)


class Benchmark(Protocol):
    name: str
    VERSION: str

    def load(self) -> Sequence[Any]:
        """Items of the benchmark, each with a stable ``id``."""

    def probes(self, items: Sequence[Any]) -> list[Probe]:
        """The questions to ask the model."""

    def score(self, items: Sequence[Any], answers: Mapping[str, Answer]) -> BenchmarkResult:
        """The published metric from the answers."""

    def config(self) -> dict[str, Any]:
        """Parameters and data provenance (file, sha256) that determine the result."""

    def table(self, summary: Mapping[str, Any]) -> Any:
        """A rich renderable of the paper's table layout for the terminal."""
