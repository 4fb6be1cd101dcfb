"""A probe too long for the model costs its group nothing: it is found while the group's jobs are
built (the tokenizer's work, before anything runs), skipped with its reason, and the other probes
are batched together as a group without it would be (base.scorable_jobs).

On 76950b6 the group was scored again probe by probe (each_alone), every probe batched alone. A
chunk was at most 256 probes then; a small run is one chunk now (issue 47), so one long sentence
in 100 pairs would have run 99 pairs a batch each.
"""

from __future__ import annotations

from biasatlas.errors import UnscorableProbe
from biasatlas.probes import PairProbe
from biasatlas.scorers.job import Job
from test_interrupt_batches import ROWS, Toy, _row


class LongToy(Toy):
    """The planted toy, for which a sentence saying LONG is too long (found as it is encoded)."""

    def _pair_jobs(self, probes):
        for p in probes:
            if "LONG" in p.a:
                raise UnscorableProbe("41 tokens exceed the model's 40")
        return super()._pair_jobs(probes)


def _pairs(n: int) -> list[PairProbe]:
    return [PairProbe(f"p{i}", f"Sentence {'x' * (i % 7)} number {i}.", f"Other {'y' * (i % 5)} one {i}.")
            for i in range(n)]


def test_an_unscorable_probe_is_left_out_and_the_rest_batched_together():
    probes = _pairs(20)
    with_long = [*probes[:9], PairProbe("long", "LONG " * 50, "short"), *probes[9:]]
    toy = LongToy()
    scored = toy.score(with_long)
    assert dict(scored.unscorable) == {"long": "41 tokens exceed the model's 40"}
    alone = Toy()
    assert scored.answers == alone.score(probes).answers  # the same bits: the same batches
    assert toy.batches == alone.batches
    rows = len({s for p in probes for s in (p.a, p.b)})
    assert len(toy.batches) == -(-rows // ROWS)  # 40 sentences, four a batch: 10, not 20 of one pair each
    assert toy.plan(with_long) == {"rows_computed": rows, "batches": len(toy.batches)}


def test_every_probe_unscorable_leaves_nothing_to_run():
    toy = LongToy()
    scored = toy.score([PairProbe(f"long{i}", "LONG", "short") for i in range(3)])
    assert not scored.answers and set(scored.unscorable) == {"long0", "long1", "long2"}
    assert toy.batches == []


def test_the_jobs_are_all_built_before_the_first_runs():
    """A job builder that fails on its second job: no batch of the first has run."""
    class SecondFails(Toy):
        def _pair_jobs(self, probes):
            yield Job([(_row(p.a), (0,)) for p in probes[:1]], lambda values: [], 1)
            raise UnscorableProbe("the second job's probe is too long")

    toy = SecondFails()
    scored = toy.score(_pairs(1))
    assert set(scored.unscorable) == {"p0"} and toy.batches == []
