"""A served model's chat template from its own folder (biasatlas.scorers.served.chat), on the fake server
of tests/served_fake.py and a word tokenizer written here: the template, BOS and EOS the folder holds,
the start token a server of a tokenizer that adds none needs (so no --served-prefix), the token-for-token
check against the server's /tokenize (equal, refused when it differs, unchecked without the endpoint),
and the refusal kept where no folder is readable."""

from __future__ import annotations

import pytest

pytest.importorskip("httpx", reason="the served scorer needs httpx")

from biasatlas.benchmarks.chat import MODEL, chat_prompt  # noqa: E402
from biasatlas.errors import UsageError  # noqa: E402
from biasatlas.scorers.served import completions as served  # noqa: E402
from biasatlas.scorers.served.completions import ServedScorer  # noqa: E402
from biasatlas.scorers.served.chat import PROBE_MESSAGE, LocalTokenizer, default_prefix  # noqa: E402
from served_fake import URL, FakeServer  # noqa: E402

TEMPLATE = ("{{ bos_token }}{% for m in messages %}<{{ m['role'] }}> {{ m['content'] }} {{ eos_token }} {% endfor %}"
            "{% if add_generation_prompt %}<assistant> {% endif %}")


class WordTokenizer:
    """A tokenizer as transformers' answers: one id per whitespace-separated word (first seen, next id),
    ``<s>`` put before a text when ``adds_start`` (as Gemma's), else nothing (as SmolLM2's)."""

    chat_template = TEMPLATE
    bos_token, eos_token = "<s>", "</s>"

    def __init__(self, adds_start: bool = False) -> None:
        self.adds_start = adds_start
        self.vocab: dict[str, int] = {"<s>": 0, "</s>": 1}

    def ids(self, text: str) -> list[int]:
        return [self.vocab.setdefault(word, len(self.vocab)) for word in text.split()]

    def __call__(self, text: str, add_special_tokens: bool = True) -> dict[str, list[int]]:
        return {"input_ids": ([0] if self.adds_start and add_special_tokens else []) + self.ids(text)}

    def decode(self, ids: list[int]) -> str:
        words = {i: w for w, i in self.vocab.items()}
        return " ".join(words[i] for i in ids)

    def apply_chat_template(self, messages: list[dict[str, str]], *, chat_template: str,
                            add_generation_prompt: bool, tokenize: bool) -> str:
        assert chat_template == TEMPLATE and add_generation_prompt and not tokenize
        # the template above, written out by hand for one message (an independent rendering)
        return "".join(f"<s><{m['role']}> {m['content']} </s> " for m in messages) + "<assistant> "


def _scorer(fake: FakeServer, monkeypatch: pytest.MonkeyPatch, tokenizer: WordTokenizer | None,
            **options: object) -> ServedScorer:
    local = None if tokenizer is None else LocalTokenizer(tokenizer, "/models/toy")
    monkeypatch.setattr(served, "local_tokenizer", lambda root: local if root == "/models/toy" else None)
    return ServedScorer(URL, transport=fake.transport(), sleep=lambda s: None, **options)  # type: ignore[arg-type]


def _server_ids(tokenizer: WordTokenizer) -> list[int]:
    """What vLLM's /tokenize answers for the probe message rendered by the same template."""
    return tokenizer.ids(f"<s><user> {PROBE_MESSAGE} </s> <assistant>")


def test_the_folders_template_and_start_token_reach_the_scorer_and_the_run(monkeypatch) -> None:
    words = WordTokenizer()
    fake = FakeServer(tokenized=_server_ids(words))
    scorer = _scorer(fake, monkeypatch, words)
    chat = scorer.info.chat
    assert chat is not None and (chat.template, chat.bos_token, chat.eos_token) == (TEMPLATE, "<s>", "</s>")
    # no --served-prefix: the tokenizer puts nothing before a text, so its BOS is sent, as in process
    assert scorer.prefix == "<s>" and chat.start_text == "<s>"  # the default convention, always
    described = scorer.describe()
    assert (described["chat_template_from"], described["chat_template_check"]) == ("/models/toy", "equal")
    # the prompt a benchmark reads: rendered, less the BOS the scorer sends itself
    assert chat_prompt(MODEL, scorer.info, "Hi", '"') == '<user> Hi </s> <assistant> "'


def test_a_server_rendering_another_template_is_refused_naming_the_token(monkeypatch) -> None:
    words = WordTokenizer()
    other = _server_ids(words)
    other[3] = words.ids("Is the sky green?")[-1]
    with pytest.raises(UsageError, match=r"renders its chat template otherwise .*token 3 of"):
        _scorer(FakeServer(tokenized=other), monkeypatch, words)


def test_a_server_without_tokenize_is_recorded_unchecked_and_no_folder_keeps_the_refusal(monkeypatch) -> None:
    scorer = _scorer(FakeServer(), monkeypatch, WordTokenizer())
    assert scorer.describe()["chat_template_check"] == "unchecked" and scorer.info.chat.template == TEMPLATE
    bare = _scorer(FakeServer(root="/elsewhere/toy"), monkeypatch, None, served_prefix="<s>")
    assert bare.info.chat.template is None and bare.describe()["chat_template_from"] is None
    with pytest.raises(UsageError, match="does not say its chat template"):
        chat_prompt(MODEL, bare.info, "Hi", "")


def test_the_default_prefix_is_the_start_token_only_where_the_tokenizer_adds_none() -> None:
    assert default_prefix(LocalTokenizer(WordTokenizer(), "f")) == "<s>"
    assert default_prefix(LocalTokenizer(WordTokenizer(adds_start=True), "f")) == ""
    assert default_prefix(None) == ""
