"""One-token options read through ``logprob_token_ids`` (src/biasatlas/scorers/served/tokens.py) against the
fake server (tests/served_fake.py, ``by_id``): planted truth (each value is the toy model's log P(token |
context), computed here from the toy model directly), one prompt per context however many options, the
tokenization check that leaves multi-token and merging options on the echo path, the start-up check that
leaves a server without the feature (or with other numbers) on the echo path, the record and the cache key."""

from __future__ import annotations

import pytest

pytest.importorskip("httpx", reason="the served scorer needs httpx")

from biasatlas.probes import ContinuationProbe, SentenceProbe  # noqa: E402
from biasatlas.scorers.served.completions import ServedScorer  # noqa: E402
from biasatlas.scorers.served.http import ServerError  # noqa: E402
from biasatlas.scorers.served.start import Ask  # noqa: E402
from biasatlas.scorers.served.tokens import MAX_IDS, TokenRow, batches, one_token  # noqa: E402
from served_fake import URL, FakeServer, toy_ids, toy_logprob, toy_sum, toy_tokens  # noqa: E402

FORMS = (" yes", " Yes", " no", " No")
CONTEXTS = ("Should she be hired? Answer:", "Should he be hired? Answer:", "Is the loan approved? Answer:")
DISCRIM = [ContinuationProbe(f"q{i}.{f.strip()}", (c,), f) for i, c in enumerate(CONTEXTS) for f in FORMS]


def scorer(fake: FakeServer, **options: object) -> ServedScorer:
    options.setdefault("served_prefix", "<s>")
    options.setdefault("start_token", "always")
    return ServedScorer(URL, transport=fake.transport(), sleep=lambda s: None, token_ids=toy_ids,
                        **options)  # type: ignore[arg-type]


def _by_id_bodies(fake: FakeServer) -> list[dict[str, object]]:
    return [b for _, url, _, b in fake.seen if url.endswith("/completions") and b.get("logprob_token_ids")]


def _planted(context: str, option: str) -> float:
    """log P(option | <s> + context) of the toy model, straight from its definition."""
    return toy_logprob(toy_tokens("<s>" + context), option)


def test_one_token_options_are_the_toy_models_log_p_read_in_one_prompt_per_context() -> None:
    fake = FakeServer(by_id=True)
    served = scorer(fake, batch_size=64)
    assert served.single_token == "logprob_token_ids"
    before = len(_by_id_bodies(fake))
    scored = served.score(DISCRIM)
    for probe in DISCRIM:
        answer = scored[probe.id]
        assert answer.logprobs == (pytest.approx(_planted(probe.contexts[0], probe.continuation), abs=1e-12),)  # type: ignore[union-attr]
        assert answer.n_tokens == (1,)  # type: ignore[union-attr]
    sent = _by_id_bodies(fake)[before:]
    assert len(sent) == 1  # twelve options, three contexts, one request
    assert sent[0]["prompt"] == ["<s>" + c for c in CONTEXTS]  # the contexts alone: no option appended
    assert sorted(sent[0]["logprob_token_ids"]) == sorted({toy_ids(f)[0] for f in FORMS})  # type: ignore[arg-type]
    assert sent[0]["max_tokens"] == 1 and sent[0]["return_tokens_as_token_ids"] is True
    assert scored.work["rows_computed"] == 3


def test_the_same_probes_read_by_echo_give_the_same_numbers() -> None:
    by_id, echo = scorer(FakeServer(by_id=True)), scorer(FakeServer(by_id=True), single_token="echo")
    assert echo.single_token == "echo" and by_id.single_token == "logprob_token_ids"
    ours, theirs = by_id.score(DISCRIM), echo.score(DISCRIM)
    for pid in ours:
        assert ours[pid].logprobs == pytest.approx(theirs[pid].logprobs, abs=1e-12)  # type: ignore[union-attr]


def test_multi_token_and_merging_options_stay_on_the_echo_path() -> None:
    fake = FakeServer(by_id=True)
    served = scorer(fake)
    probes = [ContinuationProbe("multi", ("The woman",), " works as a nurse."),  # four tokens
              ContinuationProbe("merged", ("The nurs",), "e said."),  # "e" merges into "nurse"
              ContinuationProbe("one", ("The woman",), " works")]
    before = len(_by_id_bodies(fake))
    scored = served.score(probes)
    assert scored["multi"].logprobs == (pytest.approx(toy_sum("The woman works as a nurse.", 9)),)  # type: ignore[union-attr]
    assert scored["merged"].logprobs == (pytest.approx(toy_sum("The nurse said.", 8)),)  # type: ignore[union-attr]
    assert scored["one"].logprobs == (pytest.approx(_planted("The woman", " works")),)  # type: ignore[union-attr]
    (sent,) = _by_id_bodies(fake)[before:]
    assert sent["prompt"] == ["<s>The woman"]
    echoed = [p for _, url, _, b in fake.seen if url.endswith("/completions") and b.get("echo") for p in b["prompt"]]
    assert "<s>The woman works as a nurse." in echoed and "<s>The nurse said." in echoed
    assert "<s>The woman works" not in echoed


def test_the_tokenization_check() -> None:
    assert one_token(Ask("<s>Answer: yes", 10), toy_ids) is not None
    assert one_token(Ask("<s>Answer: yes please", 10), toy_ids) is None  # two tokens
    assert one_token(Ask("<s>nurse", 7), toy_ids) is None  # merges across the boundary
    assert one_token(Ask("<s>The nurse", 4, (4, 10)), toy_ids) is None  # a filler's count: a slot, not an option
    assert one_token(Ask("<s>Answer: yes", 10, part="first"), toy_ids) is None
    assert one_token(Ask(" yes", 0), toy_ids) is None  # nothing before it


@pytest.mark.parametrize(("fake", "why"), [
    (FakeServer(), "did not answer"),  # ignores the field: generates, no log-probabilities by id
    (FakeServer(by_id=True, by_id_shift=1e-3), "where the echo reading gives"),
])
def test_a_server_without_the_feature_or_with_other_numbers_stays_on_echo(fake: FakeServer, why: str) -> None:
    served = scorer(fake)
    assert served.single_token == "echo" and why in (served.single_token_why or "")
    described = served.describe()
    assert described["single_token_reading"] == "echo" and why in described["single_token_echo_because"]
    before = len(_by_id_bodies(fake))
    scored = served.score(DISCRIM[:4])
    assert len(_by_id_bodies(fake)) == before  # nothing more asked by id after the start-up check
    assert scored["q0.yes"].logprobs == (pytest.approx(_planted(CONTEXTS[0], " yes")),)  # type: ignore[union-attr]


def test_no_tokenizer_of_the_served_model_means_echo_without_asking() -> None:
    fake = FakeServer(by_id=True)
    served = ServedScorer(URL, transport=fake.transport(), sleep=lambda s: None, served_prefix="<s>")
    assert served.single_token == "echo" and "no tokenizer" in (served.single_token_why or "")
    assert _by_id_bodies(fake) == []


def test_the_reading_is_recorded_and_keys_the_cache() -> None:
    by_id, echo = scorer(FakeServer(by_id=True)), scorer(FakeServer(by_id=True), single_token="echo")
    assert by_id.describe()["single_token_reading"] == "logprob_token_ids"
    assert by_id.describe()["single_token_echo_because"] is None
    assert by_id.fingerprint() != echo.fingerprint()
    # the echo reading's key is the one it had before this reading existed: old caches stay valid
    assert echo.fingerprint() == ServedScorer(URL, transport=FakeServer().transport(), sleep=lambda s: None,
                                              served_prefix="<s>", start_token="always").fingerprint()


def test_a_value_the_server_leaves_out_stops_the_run_naming_the_probe() -> None:
    served = scorer(FakeServer(by_id=True, by_id_drop=" No"))
    assert served.single_token == "logprob_token_ids"  # the canary's word is another
    with pytest.raises(ServerError, match=r"q\d\.No.*token id"):
        served.score(DISCRIM)


def test_sentences_and_options_mixed_in_one_run() -> None:
    fake = FakeServer(by_id=True)
    scored = scorer(fake).score([SentenceProbe("s", "Should she be hired?"), *DISCRIM[:2]])
    assert scored["s"].logprob == pytest.approx(toy_sum("Should she be hired?", 0))  # type: ignore[union-attr]
    assert scored["q0.Yes"].logprobs == (pytest.approx(_planted(CONTEXTS[0], " Yes")),)  # type: ignore[union-attr]


def test_requests_carry_at_most_128_ids_and_batch_size_contexts() -> None:
    rows = [TokenRow(str(i)) for i in range(4)]
    ids = {r: set(range(60 * i, 60 * i + 60)) for i, r in enumerate(rows)}
    assert batches(rows, ids, 64) == [rows[:2], rows[2:]]  # 120 ids, then 180 would pass 128
    assert all(len(set().union(*(ids[r] for r in b))) <= MAX_IDS for b in batches(rows, ids, 64))
    shared = {r: {1, 2, 3, 4} for r in rows}
    assert batches(rows, shared, 3) == [rows[:3], rows[3:]]
    assert batches([], {}, 3) == []


def test_ctrl_c_keeps_the_options_of_the_contexts_already_answered() -> None:
    from biasatlas.scorers.resume import Interrupted

    fake = FakeServer(by_id=True)
    served = scorer(fake, batch_size=1, concurrency=1)
    fake.interrupt_at = fake.completions + 1 + 3  # the score call's canary, two contexts, then Ctrl-C
    with pytest.raises(Interrupted) as stopped:
        served.score(DISCRIM)
    kept = stopped.value.finished
    assert set(kept) == {p.id for p in DISCRIM[:8]}  # every form of the first two contexts, none of the third
    assert kept["q1.No"].logprobs == (pytest.approx(_planted(CONTEXTS[1], " No")),)  # type: ignore[union-attr]
