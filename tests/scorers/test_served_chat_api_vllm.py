"""``--served-api chat`` against a real vLLM (tests/vllm_server.py, slow): the server renders SmolLM2's template
from the user message, and the greedy texts equal those of biasatlas's rendering sent to ``/v1/completions``
and of transformers' ``generate`` in process (bench/parity/generation_vs_chat.py has the 30-prompt table)."""

from __future__ import annotations

import os

import pytest

from vllm_server import vllm_server  # noqa: F401 (the fixture)

pytestmark = pytest.mark.slow


def test_chat_completions_completions_and_in_process_write_the_same_texts(vllm_server, shared_data):  # noqa: F811
    pytest.importorskip("torch", reason="the in-process reference needs the torch extra")
    from biasatlas.benchmarks.bbq import BBQ
    from biasatlas.scorers.inprocess.causal_lm import CausalLMScorer
    from biasatlas.scorers.served.completions import ServedScorer
    from biasatlas.scorers.served.chat_api import ServedChatScorer

    os.environ["BIASATLAS_TEST_VLLM_KEY"] = vllm_server.key
    chat = ServedChatScorer(vllm_server.url, api_key_env="BIASATLAS_TEST_VLLM_KEY")
    completions = ServedScorer(vllm_server.url, api_key_env="BIASATLAS_TEST_VLLM_KEY", start_token="empty-context")
    local = CausalLMScorer(str(vllm_server.folder), start_token="empty-context")
    assert chat.describe()["chat_template_check"] == "equal"  # the server's rendering is the folder's template
    bench = BBQ(data=shared_data / "bbq", sample=4, seed=38, answers="generated", chat_template="model",
                max_new_tokens=16)
    items = bench.load()
    asked = [bench.bind(s.info).probes(items) for s in (chat, completions, local)]
    assert all(p.user is not None and p.prompt == p.user for p in asked[0])  # type: ignore[union-attr]
    assert asked[1] == asked[2] and all(p.user is None for p in asked[1])  # type: ignore[union-attr]
    texts = [{pid: a.text for pid, a in s.score(probes).items()}  # type: ignore[union-attr]
             for s, probes in zip((chat, completions, local), asked)]
    assert texts[0] == texts[1] == texts[2] and any(texts[0].values())
    print("\n" + "\n".join(f"{pid}: {t!r}" for pid, t in texts[0].items()))
