"""A served model through the pipeline and its score cache (issue 46, items 1, 2 and 16), against the fake
server in this process (tests/served_fake.py): every answer checked, not only the canary's; the canary
read again after each chunk, before its answers are kept; and Ctrl-C keeping the finished requests of the
chunk it stopped. Forty CrowS-Pairs pairs are three chunks (16, 16 and 8 probes: pipeline.chunked)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("httpx", reason="the served scorer needs httpx")

from biasatlas.benchmarks.crows_pairs import CrowsPairs  # noqa: E402
from biasatlas.cache import ScoreCache  # noqa: E402
from biasatlas.errors import RunInterrupted  # noqa: E402
from biasatlas.pipeline import chunked, run_benchmark  # noqa: E402
from biasatlas.probes import PairProbe  # noqa: E402
from biasatlas.scorers.served.completions import ServedScorer  # noqa: E402
from biasatlas.scorers.served.http import ServerError  # noqa: E402
from served_fake import URL, FakeServer, toy_sum  # noqa: E402

N = 40


@pytest.fixture
def bench(isolated_run: Path) -> CrowsPairs:
    return CrowsPairs(dataset="en", limit=N)


def scorer(fake: FakeServer, **options: object) -> ServedScorer:
    return ServedScorer(URL, served_prefix="<s>", transport=fake.transport(), sleep=lambda s: None,
                        **options)  # type: ignore[arg-type]


def _pairs(bench: CrowsPairs) -> list[list[PairProbe]]:
    chunks = chunked(bench.probes(bench.load()))
    assert [len(c) for c in chunks] == [16, 16, 8]
    return [list(c) for c in chunks]  # type: ignore[arg-type]


def _prompts(chunk: list[PairProbe]) -> list[str]:
    """The chunk's distinct prompts in the order the served scorer sends them (each pair's two sides)."""
    return list(dict.fromkeys("<s>" + s for p in chunk for s in (p.a, p.b)))


def _sent(fake: FakeServer) -> list[str]:
    return [p for _, url, _, body in fake.seen if url.endswith("/completions") for p in body["prompt"]]


def test_a_server_honest_on_the_canary_only_stops_the_run_and_nothing_is_cached(bench, tmp_path) -> None:
    fake = FakeServer(lie_off_canary=3.0)
    liar = scorer(fake)  # the canary's checks pass: its answers to the canary are the toy model's
    cache = ScoreCache(tmp_path / "scores.sqlite")
    with pytest.raises(ServerError) as caught:
        run_benchmark(bench, liar, cache=cache)
    said = str(caught.value)
    assert said.startswith(f"{URL} (model toy) returned ") and "as the log-probability of token" in said
    assert "finite and at most 0" in said and "\n" not in said
    probes = [p for chunk in _pairs(bench) for p in chunk]
    assert cache.get(liar.fingerprint(), probes) == {}  # not one answer of its kept
    honest = scorer(FakeServer())
    assert honest.fingerprint() == liar.fingerprint()  # the canary alone cannot tell them apart
    run = run_benchmark(bench, honest, cache=cache)
    assert run.timing["cache_hits"] == 0 and run.timing["scored"] == N


def test_a_canary_check_refuses_a_value_above_zero_in_any_of_its_answers() -> None:
    from biasatlas.scorers.served.checks import UntrustedServer

    # positive values only beyond the canary's own words: in the extended canary's last words
    class Extended(FakeServer):
        def _choice(self, index, prompt, generated, salt):  # type: ignore[no-untyped-def]
            choice = super()._choice(index, prompt, generated, salt)
            if prompt.endswith(" Then it reads a few words more."):
                values = choice["logprobs"]["token_logprobs"]
                values[-2 - generated] = 0.5
            return choice

    with pytest.raises(UntrustedServer, match=r"fails the 'finite' check: it returned 0\.5 as the log-prob"):
        scorer(Extended())


def test_the_one_token_reading_checks_every_answer_too() -> None:
    from biasatlas.probes import ContinuationProbe
    from served_fake import toy_ids

    fake = FakeServer(by_id=True, lie_off_canary=10.0)  # every toy value is above -10
    served = ServedScorer(URL, served_prefix="<s>", start_token="always", transport=fake.transport(),
                          sleep=lambda s: None, token_ids=toy_ids)
    assert served.single_token == "logprob_token_ids"  # its trust check reads a word of the canary
    with pytest.raises(ServerError, match=rf"^{URL} \(model toy\) returned .* of token id \d+ after it in "):
        served.score([ContinuationProbe("q", ("Should she be hired? Answer:",), " yes")])


def test_a_model_swapped_inside_a_chunk_keeps_nothing_of_that_chunk(bench, tmp_path) -> None:
    clean = run_benchmark(bench, scorer(FakeServer(), batch_size=8))
    fake = FakeServer()
    swapped = scorer(fake, batch_size=8, concurrency=1)
    built = fake.completions
    # a chunk is 32 prompts, 4 requests of 8, between two canary requests: chunk 1 is requests 1–6 after
    # the construction's, chunk 2 7–12; another model answers from the 10th on (chunk 2's third request)
    fake.swap_after = built + 9
    cache = ScoreCache(tmp_path / "scores.sqlite")
    with pytest.raises(ServerError, match="changed during the run") as caught:
        run_benchmark(bench, swapped, cache=cache)
    first, *_ = _pairs(bench)
    kept = cache.get(swapped.fingerprint(), [p for chunk in _pairs(bench) for p in chunk])
    assert set(kept) == {p.id for p in first}  # chunk 2, half the new model's, is not kept
    assert "none of the chunk it moved in" in str(caught.value)
    assert kept[first[0].id].score_a == pytest.approx(toy_sum(first[0].a, 0))  # type: ignore[union-attr]
    rerun = run_benchmark(bench, scorer(FakeServer(), batch_size=8), cache=cache)
    assert (rerun.timing["cache_hits"], rerun.timing["scored"]) == (16, N - 16)
    assert rerun.records == clean.records


def test_ctrl_c_keeps_the_finished_requests_of_the_chunk_it_stopped(bench, tmp_path) -> None:
    first, second, _ = _pairs(bench)
    fake = FakeServer()
    served = scorer(fake, batch_size=1, concurrency=1)
    built = fake.completions
    # one prompt per request: chunk 1 is its canary, 32 prompts and its canary again (requests 1–34);
    # chunk 2 its canary (35) and then its prompts; Ctrl-C as its 17th prompt is answered
    fake.interrupt_at = built + 35 + 17
    cache = ScoreCache(tmp_path / "scores.sqlite")
    with pytest.raises(RunInterrupted) as stopped:
        run_benchmark(bench, served, cache=cache)
    answered = set(_prompts(second)[:16])
    finished = {p.id for p in second if {"<s>" + p.a, "<s>" + p.b} <= answered}
    assert len(finished) == 8  # the chunk's 16 first prompts are its 8 first pairs' sides
    assert (stopped.value.kept, stopped.value.total) == (16 + 8, N)
    assert set(cache.get(served.fingerprint(), [*first, *second])) == {p.id for p in first} | finished
    again = FakeServer()
    rerun = run_benchmark(bench, scorer(again, batch_size=1, concurrency=1), cache=cache)
    assert (rerun.timing["cache_hits"], rerun.timing["scored"]) == (24, N - 24)
    assert not answered & set(_sent(again))  # no finished request asked (and paid for) twice
    assert rerun.records == run_benchmark(bench, scorer(FakeServer(), batch_size=1)).records
