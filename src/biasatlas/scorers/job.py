"""A model scorer's unit of work: one engine call (:class:`Job`).

It sits below both the scorer contract (:mod:`.base`, which builds jobs) and the resumable
runner (:mod:`.resume`, which runs them batch by batch), so neither imports the other for it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..probes import Answer


@dataclass(frozen=True)
class Job:
    """One call of a model scorer's engine: the requests it runs together (rows and the
    targets to read), and how their summed log-probabilities become answers.

    ``answers(values)`` gets one value per request, in request order; ``n_probes`` is
    how many probes the job answers (for the progress bar). ``spans`` (each of its probes'
    id and number of requests, in request order) lets the job's probes finish one by
    one (:class:`~.resume.JobTrack`); a job without them finishes whole.
    """

    requests: Sequence[Any]
    answers: Callable[[list[float]], Sequence[Answer]]
    n_probes: int
    spans: Sequence[tuple[str, int]] = ()
