"""The served scorer reads each text after what the in-process causal scorer reads it after (the
``start_token`` conventions, scorers/start.py and scorers/served/start.py): a fake server backed by
the tiny GPT-2 (tokenizing as a server does, echoing per-token log-probabilities with offsets as
vLLM does) against the in-process scorer on the same model object, per convention, per benchmark
default, on a server that adds no start token and on one that adds its own; a convention a server
cannot give is refused before scoring."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("httpx", reason="the served scorer needs httpx")
torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

import httpx  # noqa: E402

from biasatlas.errors import UsageError  # noqa: E402
from biasatlas.probes import ContinuationProbe, PairProbe, SentenceProbe, SlotProbe  # noqa: E402
from biasatlas.scorers.inprocess.causal_lm import CausalLMScorer  # noqa: E402
from biasatlas.scorers.inprocess.inmemory import InMemoryModel  # noqa: E402
from biasatlas.scorers.served.completions import ServedScorer  # noqa: E402
from biasatlas.scorers.start import START_TOKENS  # noqa: E402

URL = "http://127.0.0.1:8012/v1"
START = "<|endoftext|>"  # the tiny GPT-2's BOS (and EOS): the served prefix where the server adds none
PROBES = [
    SentenceProbe("s1", "The nurse said that she was tired."),
    PairProbe("p1", "He is a nurse.", "She is a nurse."),
    ContinuationProbe("c1", ("The woman ", "The man "), "works as a nurse."),
    ContinuationProbe("c2", ("", "The doctor"), " said so."),  # an empty context: a whole sentence
    SlotProbe("sl1", "The ", " was tired.", ("nurse", "head doctor")),
]
# A continuation merged into its context's first token ("u" + "r is here." reads "ur" first): in-process
# reads it after the start token (empty-context) or its first token after the start token alone
# (first-only); served, one more request.
MERGED = ContinuationProbe("m1", ("u",), "r is here.")
# A text that begins with the start token: lm-eval does not read that token (empty-context).
OWN_START = SentenceProbe("b1", START + "The nurse was tired.")


class ModelServer:
    """``/v1/models``, ``/version`` and ``/v1/completions`` over a real causal model: each prompt
    tokenized as a server does (``tokenizer(prompt)``, its special tokens included), every token's
    log-probability from one forward pass, and the tokens' texts and offsets as vLLM echoes them
    (an added start token first, with its own text and no log-probability)."""

    def __init__(self, model: Any, tokenizer: Any) -> None:
        self.model, self.tokenizer, self.prompts = model, tokenizer, []  # type: ignore[var-annotated]

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    def handle(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/models":
            return httpx.Response(200, json={"data": [{"id": "tiny", "root": "/tiny", "owned_by": "test"}]})
        if request.url.path == "/version":
            return httpx.Response(200, json={"version": "model-server"})
        body = json.loads(request.content)
        self.prompts += body["prompt"]
        return httpx.Response(200, json={"choices": [self._choice(i, p) for i, p in enumerate(body["prompt"])]})

    def _choice(self, index: int, prompt: str) -> dict[str, Any]:
        ids = list(self.tokenizer(prompt)["input_ids"])
        with torch.inference_mode():
            logprobs = torch.log_softmax(self.model(torch.tensor([ids])).logits[0].float(), dim=-1)
        values = [None] + [float(logprobs[i - 1, t]) for i, t in enumerate(ids) if i]
        texts, offsets, said = [], [], ""
        for i in range(len(ids)):
            now = self.tokenizer.decode(ids[:i + 1], clean_up_tokenization_spaces=False)
            texts.append(now[len(said):])
            offsets.append(len(said))
            said = now
        return {"index": index, "text": prompt, "finish_reason": "length",
                "logprobs": {"tokens": texts, "token_logprobs": values, "text_offset": offsets}}


@pytest.fixture(scope="module")
def tiny(tiny_gpt2: Path) -> tuple[Any, Any, Any]:
    """The tiny GPT-2, its tokenizer (adds nothing before a text) and the same with ``add_bos_token``
    (adds its BOS, as Gemma's and Llama's do)."""
    model = transformers.AutoModelForCausalLM.from_pretrained(tiny_gpt2).eval()
    plain = transformers.AutoTokenizer.from_pretrained(tiny_gpt2)
    with_bos = transformers.AutoTokenizer.from_pretrained(tiny_gpt2, add_bos_token=True)
    assert plain("a")["input_ids"] == [plain.convert_tokens_to_ids("a")]  # the premises
    assert with_bos("a")["input_ids"] == [with_bos.bos_token_id, with_bos.convert_tokens_to_ids("a")]
    assert plain("ur is here.")["input_ids"][0] != plain("u")["input_ids"][0]  # MERGED merges
    return model, plain, with_bos


def served(tokenizer_model: tuple[Any, Any], prefix: str | None, **options: Any) -> tuple[ServedScorer, ModelServer]:
    model, tokenizer = tokenizer_model
    server = ModelServer(model, tokenizer)
    return ServedScorer(URL, served_prefix=prefix, transport=server.transport(), sleep=lambda s: None,
                        **options), server


def in_process(model: Any, tokenizer: Any, start_token: str) -> CausalLMScorer:
    return CausalLMScorer(InMemoryModel(model, tokenizer), start_token=start_token)  # type: ignore[arg-type]


def numbers(answer: Any) -> list[float]:
    if hasattr(answer, "score_a"):
        return [answer.score_a, answer.score_b]
    return list(answer.logprobs) if hasattr(answer, "logprobs") else [answer.logprob]


def counts(answer: Any) -> tuple[int, ...]:
    if hasattr(answer, "n_tokens_a"):
        return (answer.n_tokens_a, answer.n_tokens_b)
    return tuple(answer.n_tokens) if isinstance(answer.n_tokens, tuple) else (answer.n_tokens,)


def assert_same(ours: Any, theirs: Any) -> None:
    """The same probes, every number within 1e-5 nats (float32 kernels over other batch shapes),
    the same token counts."""
    assert set(ours) == set(theirs)
    for pid, answer in ours.items():
        got, want = numbers(answer), numbers(theirs[pid])
        assert len(got) == len(want) and all(math.isclose(a, b, abs_tol=1e-5) for a, b in zip(got, want)), \
            (pid, got, want)
        assert counts(answer) == counts(theirs[pid]), pid


@pytest.mark.parametrize("start_token", START_TOKENS)
def test_served_reads_as_in_process_under_each_convention(tiny, start_token: str) -> None:
    model, plain, _ = tiny
    scorer, _ = served((model, plain), START, start_token=start_token)
    probes = [*PROBES, MERGED, OWN_START]
    assert_same(scorer.score(probes), in_process(model, plain, start_token).score(probes))


@pytest.mark.parametrize("start_token", ["always", "empty-context"])
def test_a_server_adding_its_own_start_token_reads_as_in_process(tiny, start_token: str) -> None:
    model, _, with_bos = tiny
    scorer, _ = served((model, with_bos), None, start_token=start_token)
    assert scorer.server_adds_start
    probes = [*PROBES, MERGED]
    assert_same(scorer.score(probes), in_process(model, with_bos, start_token).score(probes))


def test_first_only_where_the_server_adds_a_start_token_is_refused_before_scoring(tiny) -> None:
    model, _, with_bos = tiny
    server = ModelServer(model, with_bos)
    with pytest.raises(UsageError) as refused:
        ServedScorer(URL, transport=server.transport(), start_token="first-only")
    message = str(refused.value)
    assert "'first-only'" in message and "--start-token always" in message and "\n" not in message
    assert all("canary" in p or p == "x" for p in server.prompts)  # nothing scored


def test_a_prefix_where_the_server_adds_a_start_token_is_refused(tiny) -> None:
    model, _, with_bos = tiny
    with pytest.raises(UsageError, match="own start token.*leave --served-prefix out"):
        served((model, with_bos), START)


def test_first_only_sends_two_prompts_per_text_and_empty_context_a_context_bare(tiny) -> None:
    model, plain, _ = tiny
    first, server = served((model, plain), START, start_token="first-only")
    sent = len(server.prompts)
    first.score([SentenceProbe("s", "The nurse was tired.")])
    # the score call's canary, then the text alone and the text after the start token, then the canary again
    assert server.prompts[sent + 1:-1] == ["The nurse was tired.", START + "The nurse was tired."]
    lm_eval, server = served((model, plain), START, start_token="empty-context")
    sent = len(server.prompts)
    lm_eval.score([ContinuationProbe("c", ("The woman",), " works.")])
    assert server.prompts[sent + 1:-1] == ["The woman works."]


@pytest.mark.parametrize(("benchmark", "options"), [
    ("crows-pairs", {"dataset": "en", "limit": 3}),
    pytest.param("bbq", {"limit": 2}, marks=pytest.mark.slow),  # ~2 s: BBQ's files
    ("stereoset", {"limit": 2}),
])
def test_each_benchmarks_default_convention_reaches_the_served_scorer(tiny, shared_data: Path, monkeypatch,
                                                                      benchmark: str, options: dict) -> None:
    """The served scorer built from a run's model options for the benchmark (its default start
    token filled in) answers as the in-process scorer under the same default."""
    from biasatlas.registry import load_benchmark
    from biasatlas.request import ModelOptions

    monkeypatch.setenv("BIASATLAS_DATA_DIR", str(shared_data))
    model, plain, _ = tiny
    bench = load_benchmark(benchmark, **options)
    chosen = ModelOptions(model=URL, served_prefix=START).for_benchmark(bench)
    expected = {"crows-pairs": "empty-context", "bbq": "empty-context", "stereoset": "first-only"}[benchmark]
    assert chosen.start_token == expected
    kwargs = chosen._scorer_kwargs()  # what a run hands the scorer (request.ModelOptions.build)
    scorer, _ = served((model, plain), kwargs.pop("served_prefix"), **kwargs)
    assert scorer.describe()["start_token"] == expected
    bench = bench.bind(scorer.info)
    probes = bench.probes(bench.load())
    assert_same(scorer.score(probes), in_process(model, plain, expected).score(probes))


def test_the_convention_is_recorded_and_keys_the_cache(tiny) -> None:
    model, plain, _ = tiny
    scorers = [served((model, plain), START, start_token=s)[0] for s in START_TOKENS]
    assert [s.describe()["start_token"] for s in scorers] == list(START_TOKENS)
    assert len({s.fingerprint() for s in scorers}) == len(START_TOKENS)
    assert len({s.canary.fingerprint for s in scorers}) == 1  # the same model: only the reading differs


def test_a_start_token_in_the_text_is_kept_and_one_the_server_added_before_it_dropped() -> None:
    from biasatlas.scorers.served.echo import EchoedPrompt

    # the text's own "<s>", read from nothing (a server that adds none): kept, it tiles the text
    own = EchoedPrompt("<s>Hi", ("<s>", "Hi"), (None, -1.0), (0, 3)).without_added_start()
    assert own.tokens == ("<s>", "Hi") and own.logprobs == (None, -1.0)
    # a second "<s>" the server put before it (vLLM echoes it with offsets that run on): dropped
    added = EchoedPrompt("<s>Hi", ("<s>", "<s>", "Hi"), (None, -2.0, -1.0), (0, 3, 6)).without_added_start()
    assert added.tokens == ("<s>", "Hi") and added.logprobs == (-2.0, -1.0) and added.offsets == (0, 3)
