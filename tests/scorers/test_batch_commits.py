"""A model scorer hands on its answers as each batch finishes (``Scorer.score_keeping``'s ``keep``),
for the pipeline to commit then (issue 47): on a CPU after every batch that completes a probe,
each answer once, the very answers the call returns; on a GPU, where a read waits for every
batch queued before it, as each job is read (no wait is added)."""

from __future__ import annotations

from biasatlas.probes import PairProbe
from test_interrupt_batches import ROWS, Toy


def _pairs(n: int) -> list[PairProbe]:
    return [PairProbe(f"p{i}", f"Sentence {'x' * (i % 7)} number {i}.", f"Other {'y' * (i % 5)} one {i}.")
            for i in range(n)]


def _kept_in_calls(toy: Toy, probes, **options) -> tuple[list[list[str]], list[int]]:
    """The ids of each ``keep`` call, and how many batches had run at each."""
    calls: list[list[str]] = []
    ran: list[int] = []

    def keep(answers):
        calls.append([a.id for a in answers])
        ran.append(len(toy.batches))

    scored = toy.score_keeping(probes, keep=keep, **options)
    assert sorted(pid for call in calls for pid in call) == sorted(scored.answers)  # each once, all of them
    return calls, ran


def test_on_a_cpu_each_batch_hands_on_the_probes_it_completed():
    probes = _pairs(12)
    toy = Toy()
    calls, ran = _kept_in_calls(toy, probes)
    ran_rows: set[str] = set()
    given: set[str] = set()
    expected = []  # (the pairs batch k completed, k), for each batch that completed one
    for k, batch in enumerate(toy.batches, start=1):
        ran_rows |= {bytes(r.ids).decode("utf-8") for r in batch}
        finished = {p.id for p in probes if p.a in ran_rows and p.b in ran_rows} - given
        given |= finished
        if finished:
            expected.append((sorted(finished), k))
    assert [(sorted(c), n) for c, n in zip(calls, ran)] == expected
    assert len(calls) > 1 and len(toy.batches) == -(-24 // ROWS)


def test_answered_probes_are_not_handed_on_again():
    probes = _pairs(12)
    whole = Toy().score(probes)
    calls, _ = _kept_in_calls(Toy(), probes, answered={"p0", "p1", "p2"})
    kept = {pid for call in calls for pid in call}
    assert kept and not kept & {"p0", "p1", "p2"}
    assert kept <= set(whole.answers)


def test_on_a_gpu_a_job_hands_on_its_answers_once_read():
    toy = Toy()
    toy.device = "cuda:0"  # only where it reads: the toy computes on the host either way
    calls, ran = _kept_in_calls(toy, _pairs(12))
    assert len(calls) == 1 and ran == [len(toy.batches)]  # the job's one read, after all its batches
