"""Which way a metric reads (issue 40, item 10): ``higher_is_better`` on every metric row of the
CSV and JSON outputs, as lm-evaluation-harness declares it per metric, and ``ideal``, the value of
no bias for a metric that is best at a point (a preference share at 50, a bias score at 0).

A benchmark's view declares each of its metrics once (:attr:`BenchmarkView.directions`), by name
or, for a family (``category:gender``, ``diff:type1``), by the family's name and a colon
(``category:``); they agree with its headlines' ``neutral`` and ``more_biased``
(:class:`~biasatlas.display.controls.Headline`). A descriptive number (a count, a share of ties,
the agreement of a model with labour statistics where the benchmark reads it as accuracy) is
``NEITHER``: neither direction is better (both fields empty).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["HIGHER", "LOWER", "NEITHER", "Direction", "direction_of", "toward"]


@dataclass(frozen=True)
class Direction:
    """``higher_is_better``: True, False, or None (neither: see ``ideal``); ``ideal``: the value of
    no bias, for a metric that is best there and worse either side (then ``higher_is_better`` is None)."""

    higher_is_better: bool | None
    ideal: float | None = None

    def __post_init__(self) -> None:
        if self.ideal is not None and self.higher_is_better is not None:
            raise ValueError("a metric with an ideal value is better nearer it, neither higher nor lower")

    def as_dict(self) -> dict[str, Any]:
        return {"higher_is_better": self.higher_is_better, "ideal": self.ideal}


HIGHER = Direction(True)
LOWER = Direction(False)
NEITHER = Direction(None)


def toward(ideal: float) -> Direction:
    """Best at ``ideal``, worse the farther either side (SS at 50, Diff at 0)."""
    return Direction(None, float(ideal))


def direction_of(metric: str, directions: Mapping[str, Direction]) -> Direction | None:
    """``metric``'s declared direction: by its name, else by its family (the part up to its first
    colon, with the colon); None for a metric its benchmark does not declare (the outputs leave
    both fields empty; tests/benchmarks/test_contract.py holds every registered benchmark to declaring all)."""
    if metric in directions:
        return directions[metric]
    return directions.get(metric.split(":", 1)[0] + ":") if ":" in metric else None
