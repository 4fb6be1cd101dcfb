"""What each probe asks a served model, and how the values read back become its answer.

The job builders of :class:`.completions.ServedScorer`, apart from the requests and the canary (what talks to
the server) so that each file holds one job: a probe's texts become requests under the start-token
convention (:func:`.start.reading`: the prompts each text is read from, and from which character);
a continuation of exactly one token after its context becomes a token id read after the context alone,
where the server is trusted with ``logprob_token_ids`` (:mod:`.tokens`); each job's values, one per
request, are summed per reading and made into the probe kind's answer, with the token counts the engine
kept while reading them (``_counts``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from functools import partial
from typing import Any

from ...probes import ContinuationProbe, PairAnswer, PairProbe, SentenceAnswer, SentenceProbe, SlotAnswer, SlotProbe
from ..base import ModelScorer
from ..batching import chunks
from ..job import Job
from .start import Reading, reading
from .tokens import Encode, one_token
from ..spans import split_continuation
from ..start import StartToken


class ServedJobs(ModelScorer):
    """The job builders of a served scorer (module docstring); the scorer sets what they read."""

    start_token: StartToken
    prefix: str
    single_token: str  # "logprob_token_ids" where one-token options are read by id (served_tokens.Reading)
    encode: Encode | None
    _owner: dict[Any, str]  # a request → the first probe that asked it (for errors)
    _counts: dict[Any, int]  # a request → the tokens it read (kept by the engine as it reads)

    def _reading(self, probe_id: str, text: str, start: int = 0, count: tuple[int, int] | None = None,
                 *, context: bool = False) -> Reading:
        """The requests reading ``text`` from character ``start`` (of the text) under the start-token
        convention (:func:`.start.reading`); ``context``: ``text`` begins with a non-empty one."""
        asks = reading(self.start_token, self.prefix, text, start, count, context=context)
        for ask in asks:
            self._owner.setdefault(ask.prompt, probe_id)
        return asks

    def _pair_jobs(self, probes: list[PairProbe]) -> Iterator[Job]:
        for chunk in chunks(probes, 256):
            plans = [[self._reading(p.id, p.a), self._reading(p.id, p.b)] for p in chunk]
            yield self._job(chunk, plans, partial(self._pair_answers, chunk, plans))

    def _sentence_jobs(self, probes: list[SentenceProbe]) -> Iterator[Job]:
        plans = [[self._reading(p.id, p.text)] for p in probes]
        yield self._job(probes, plans, partial(self._sentence_answers, probes, plans))

    def _slot_jobs(self, probes: list[SlotProbe]) -> Iterator[Job]:
        for chunk in chunks(probes, 256):
            plans = [[self._reading(p.id, p.left + f + p.right, 0, (len(p.left), len(p.left) + len(f)))
                      for f in p.fillers] for p in chunk]
            yield self._job(chunk, plans, partial(self._option_answers, chunk, plans))

    def _continuation_jobs(self, probes: list[ContinuationProbe]) -> Iterator[Job]:
        for chunk in chunks(probes, 256):
            plans = []
            for p in chunk:
                split = [split_continuation(c, p.continuation) for c in p.contexts]
                plans.append([self._one_token(p.id, self._reading(p.id, c + rest, len(c), context=bool(c)))
                              for c, rest in split])
            yield self._job(chunk, plans, partial(self._option_answers, chunk, plans))

    def _one_token(self, probe_id: str, asks: Reading) -> Reading:
        """``asks`` as one token id after its context where it is exactly that and the server is trusted
        with ``logprob_token_ids`` (:func:`.tokens.one_token`); else as they are (echo)."""
        if self.single_token != "logprob_token_ids" or len(asks) != 1 or self.encode is None:
            return asks
        token = one_token(asks[0], self.encode)
        if token is None:
            return asks
        self._owner.setdefault(token, probe_id)
        return (token,)  # type: ignore[return-value]  # a TokenAsk reads as an Ask does

    @staticmethod
    def _job(chunk: Sequence[Any], plans: list[list[Reading]], answers: Any) -> Job:
        """One job for ``chunk``: every request of each probe's readings, in order; ``answers``
        gets one value per reading, the sum of its requests' values."""
        readings = [r for plan in plans for r in plan]

        def summed(values: list[float]) -> Any:
            got = iter(values)
            return answers([math.fsum(next(got) for _ in r) for r in readings])

        return Job([a for r in readings for a in r], summed, len(chunk),
                   [(p.id, sum(map(len, plan))) for p, plan in zip(chunk, plans)])

    def _pair_answers(self, chunk: list[PairProbe], plans: list[list[Reading]],
                      values: list[float]) -> list[PairAnswer]:
        got = iter(values)
        return [PairAnswer(p.id, next(got), next(got), self._counts.get(a[0], 0), self._counts.get(b[0], 0))
                for p, (a, b) in zip(chunk, plans)]

    def _sentence_answers(self, probes: list[SentenceProbe], plans: list[list[Reading]],
                          values: list[float]) -> list[SentenceAnswer]:
        return [SentenceAnswer(p.id, v, self._counts.get(r[0], 0)) for p, v, (r,) in zip(probes, values, plans)]

    def _option_answers(self, chunk: list[Any], plans: list[list[Reading]], values: list[float]) -> list[SlotAnswer]:
        got = iter(values)
        return [SlotAnswer(p.id, tuple(next(got) for _ in plan), tuple(self._counts.get(r[0], 0) for r in plan))
                for p, plan in zip(chunk, plans)]
