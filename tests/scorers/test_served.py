"""The served scorer against a fake server in this process (tests/served_fake.py): answers equal
sums computed directly from the toy model, tokens placed by offsets, batching and concurrency
that change no answer, the fingerprint in the cache key, a model swapped mid-run refused."""

from __future__ import annotations

import math

import pytest

pytest.importorskip("httpx", reason="the served scorer needs httpx")

from biasatlas.errors import UnknownName  # noqa: E402
from biasatlas.probes import ContinuationProbe, PairProbe, SentenceProbe, SlotProbe  # noqa: E402
from biasatlas.scorers.served.completions import ServedScorer  # noqa: E402
from biasatlas.scorers.served.echo import Untiled  # noqa: E402
from biasatlas.scorers.served.http import ServerError  # noqa: E402
from served_fake import URL, FakeServer, toy_sum, toy_tokens  # noqa: E402

PROBES = [
    SentenceProbe("s1", "The nurse said that she was tired."),
    PairProbe("p1", "He is a nurse.", "She is a nurse."),
    ContinuationProbe("c1", ("The woman ", "The man "), "works as a nurse."),
    SlotProbe("sl1", "The ", " was tired.", ("nurse", "head doctor")),
]


def scorer(fake: FakeServer, **options: object) -> ServedScorer:
    options.setdefault("served_prefix", "<s>")
    return ServedScorer(URL, transport=fake.transport(), sleep=lambda s: None, **options)  # type: ignore[arg-type]


def test_answers_are_the_toy_models_sums_read_by_offset() -> None:
    answers = scorer(FakeServer()).score(PROBES)
    assert math.isclose(answers["s1"].logprob, toy_sum("The nurse said that she was tired.", 0), abs_tol=1e-12)
    assert answers["s1"].n_tokens == 8  # The, nurse, said, that, she, was, tired, "."
    pair = answers["p1"]
    assert (pair.score_a, pair.score_b) == pytest.approx((toy_sum("He is a nurse.", 0), toy_sum("She is a nurse.", 0)))
    # the context's trailing space moves to the continuation: "The woman" + " works as a nurse."
    cont = answers["c1"]
    assert cont.logprobs == pytest.approx((toy_sum("The woman works as a nurse.", len("The woman")),
                                           toy_sum("The man works as a nurse.", len("The man"))))
    assert cont.n_tokens == (5, 5)  # " works", " as", " a", " nurse", "."
    slot = answers["sl1"]
    assert slot.logprobs == pytest.approx((toy_sum("The nurse was tired.", 0),
                                           toy_sum("The head doctor was tired.", 0)))
    assert slot.n_tokens == (1, 2)  # "nurse"; "head", " doctor"


def test_a_server_that_adds_its_own_start_token_needs_no_prefix() -> None:
    answers = scorer(FakeServer(adds_start=True), served_prefix=None).score(PROBES[:1])
    assert answers["s1"].logprob == pytest.approx(toy_sum("The nurse said that she was tired.", 0))


def test_batching_and_concurrency_change_no_answer_and_cut_requests_as_told() -> None:
    one = scorer(FakeServer()).score(PROBES)
    fake = FakeServer()
    cut = scorer(fake, batch_size=2, concurrency=3)
    before = fake.completions
    many = cut.score(PROBES)
    assert dict(many) == dict(one)
    prompts = {"<s>" + t for t in ("The nurse said that she was tired.", "He is a nurse.", "She is a nurse.",
                                   "The woman works as a nurse.", "The man works as a nurse.",
                                   "The nurse was tired.", "The head doctor was tired.")}
    # the canary before and after the score call, and 4 jobs (one per kind): ⌈1/2⌉+⌈2/2⌉+⌈2/2⌉+⌈2/2⌉ requests
    assert fake.completions - before == 2 + 4
    sent = [p for _, _, _, body in fake.seen if body and "prompt" in body for p in body["prompt"]]
    assert prompts <= set(sent)
    assert max(len(body["prompt"]) for _, _, _, body in fake.seen if body and "prompt" in body) <= 2
    assert many.work == {"rows_computed": 7, "batches": 4}
    assert cut.plan(PROBES) == {"rows_computed": 7, "batches": 4}


def test_a_server_that_must_generate_gets_max_tokens_one_and_its_token_is_dropped() -> None:
    fake = FakeServer(max_tokens_zero=False)
    answers = scorer(fake).score(PROBES[:1])
    assert answers["s1"].logprob == pytest.approx(toy_sum("The nurse said that she was tired.", 0))
    assert fake.seen[-1][3]["max_tokens"] == 1


def test_offsets_that_do_not_tile_a_prompt_stop_the_run_naming_the_probe() -> None:
    served = scorer(FakeServer(untile_word="nurse"))
    with pytest.raises(Untiled, match=r"probe s1: http://127\.0\.0\.1:8011/v1 \(model toy\).*offset"):
        served.score(PROBES[:1])


def test_the_fingerprint_is_the_canarys_and_keys_the_cache() -> None:
    a, b, c = scorer(FakeServer()), scorer(FakeServer(model="other")), scorer(FakeServer(salt="retrained"))
    assert a.fingerprint() == b.fingerprint()  # the same weights under another name: the same answers
    assert a.fingerprint() != c.fingerprint()  # another model under the same name: never the same key
    assert a.describe()["canary_fingerprint"] != c.describe()["canary_fingerprint"]
    assert a.fingerprint() != scorer(FakeServer(), served_prefix="<s> ").fingerprint()


def test_a_model_swapped_during_the_run_stops_the_next_score_call() -> None:
    fake = FakeServer()
    served = scorer(fake)
    served.score(PROBES[:1])
    fake.swap_after = fake.completions
    with pytest.raises(ServerError, match="changed during the run.*kept in the score cache"):
        served.score(PROBES[1:2])


def test_provenance_names_the_endpoint_model_root_and_server_version() -> None:
    described = scorer(FakeServer()).describe()
    assert described["endpoint"] == URL and described["served_model"] == "toy"
    assert described["root"] == "/models/toy" and described["server_version"] == "fake-1.0"


def test_the_only_model_is_taken_and_a_wrong_name_is_refused_with_the_served_ones() -> None:
    assert scorer(FakeServer(model="solo")).facts.model == "solo"
    with pytest.raises(UnknownName, match="unknown model at .* 'sola'.*solo"):
        scorer(FakeServer(model="solo"), served_model="sola")


def test_tokens_of_a_split_character_belong_to_the_character() -> None:
    from biasatlas.scorers.served.echo import EchoedPrompt

    # vLLM echoes the byte pieces of " 🔥" as '', '' and then the character (measured on 0.32.0)
    echo = EchoedPrompt("<s>Hot 🔥", ("<s>", "Hot", "", "", " 🔥"), (None, -1.0, -2.0, -3.0, -4.0), (0, 3, 6, 6, 6))
    assert echo.untiled() is None
    assert echo.summed(6) == (-9.0, 3)  # the continuation " 🔥" is its three tokens
    assert echo.summed(3) == (-10.0, 4)


def test_toy_tokens_spell_their_text() -> None:  # the fake's own premise
    assert "".join(toy_tokens("<s>The  nurse, said.")) == "<s>The  nurse, said."


def test_ctrl_c_keeps_the_answers_of_the_requests_already_answered() -> None:
    from biasatlas.scorers.resume import Interrupted

    fake = FakeServer()
    served = scorer(fake, batch_size=1, concurrency=1)
    texts = ["One nurse.", "Two nurses.", "Three nurses.", "Four nurses."]
    fake.interrupt_at = fake.completions + 1 + 3  # the score call's canary, two sentences, then Ctrl-C
    with pytest.raises(Interrupted) as stopped:
        served.score([SentenceProbe(f"s{i}", t) for i, t in enumerate(texts)])
    kept = stopped.value.finished
    assert set(kept) == {"s0", "s1"}
    assert kept["s1"].logprob == pytest.approx(toy_sum("Two nurses.", 0))
