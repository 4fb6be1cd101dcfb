"""The served model's own chat template against a real vLLM (tests/vllm_server.py, slow): read from the
served folder (vLLM's root), it is the in-process scorer's template, BOS and EOS, the server's /tokenize
renders it to the same token ids, the start-token prefix needs no --served-prefix, and DiscrimEval
through ``--chat-template model`` reads the same prompts to the same log-probabilities served and in
process (docs/benchmarks/discrim-eval.md has the 24-prompt and two-scenario numbers)."""

from __future__ import annotations

import os

import pytest

from vllm_server import PREFIX, vllm_server  # noqa: F401 (the fixture)

pytestmark = pytest.mark.slow


def _served(server):
    from biasatlas.scorers.served.completions import ServedScorer

    os.environ["BIASATLAS_TEST_VLLM_KEY"] = server.key
    return ServedScorer(server.url, api_key_env="BIASATLAS_TEST_VLLM_KEY", start_token="empty-context")


def test_the_served_folders_template_is_the_in_process_one_and_the_servers(vllm_server):  # noqa: F811
    pytest.importorskip("torch", reason="the in-process reference needs the torch extra")
    from biasatlas.scorers.inprocess.causal_lm import CausalLMScorer

    served = _served(vllm_server)
    local = CausalLMScorer(str(vllm_server.folder), start_token="empty-context")
    ours, theirs = served.info.chat, local.info.chat
    assert ours is not None and theirs is not None and ours.template is not None
    assert (ours.template, ours.bos_token, ours.eos_token, ours.start_text) == \
        (theirs.template, theirs.bos_token, theirs.eos_token, theirs.start_text)
    assert served.prefix == PREFIX  # SmolLM2's BOS, read from its tokenizer: no --served-prefix given
    described = served.describe()
    assert described["chat_template_check"] == "equal"  # the server's /tokenize of the probe message
    assert described["chat_template_from"] == str(vllm_server.folder)


@pytest.mark.parametrize("chat_template", ["model", "none"])
def test_discrim_eval_served_equals_in_process(vllm_server, shared_data, monkeypatch, chat_template):  # noqa: F811
    """Six seeded prompts, four answer forms each: the same rendered prompts, |Δ log P| ≤ 1e-3 per form
    (the served scorer's bound; measured 3.5e-5 on 24 prompts)."""
    pytest.importorskip("torch", reason="the in-process reference needs the torch extra")
    from biasatlas.registry import load_benchmark
    from biasatlas.scorers.inprocess.causal_lm import CausalLMScorer

    monkeypatch.setenv("BIASATLAS_DATA_DIR", str(shared_data))
    served = _served(vllm_server)
    local = CausalLMScorer(str(vllm_server.folder), start_token="empty-context")
    bench = load_benchmark("discrim-eval", sample=6, seed=0, chat_template=chat_template)
    items = bench.load()
    probes = bench.bind(served.info).probes(items)
    assert probes == bench.bind(local.info).probes(items)  # the template renders alike on both
    ours, theirs = served.score(probes), local.score(probes)
    assert set(ours) == set(theirs) == {p.id for p in probes}
    worst = max(abs(a - b) for pid in ours for a, b in zip(ours[pid].logprobs, theirs[pid].logprobs))  # type: ignore[union-attr]
    assert worst <= 1e-3
    print(f"\ndiscrim-eval ({chat_template}): {len(probes)} probes, max |delta log P| {worst:.2g}")


def test_generated_texts_through_the_template_equal_in_process_and_served(vllm_server, shared_data):  # noqa: F811
    """BBQ's generated reading (lm-eval's ``bbq_generate`` prompt) of 4 seeded items, rendered through the
    model's template by biasatlas and sent to ``/v1/completions`` as text: the same greedy texts as
    transformers' ``generate`` in process, and the same rendered prompts (under ``empty-context``, where
    neither scorer reads a start token of its own before SmolLM2's template)."""
    pytest.importorskip("torch", reason="the in-process reference needs the torch extra")
    from dataclasses import replace

    from biasatlas.benchmarks.bbq import BBQ
    from biasatlas.benchmarks.chat import MODEL, chat_prompt
    from biasatlas.scorers.inprocess.causal_lm import CausalLMScorer

    served = _served(vllm_server)
    local = CausalLMScorer(str(vllm_server.folder), start_token="empty-context")
    bench = BBQ(data=shared_data / "bbq", sample=4, seed=38, answers="generated", max_new_tokens=16)
    plain = bench.probes(bench.load())
    ours = [replace(p, prompt=chat_prompt(MODEL, served.info, p.prompt, "")) for p in plain]  # type: ignore[union-attr]
    theirs = [replace(p, prompt=chat_prompt(MODEL, local.info, p.prompt, "")) for p in plain]  # type: ignore[union-attr]
    assert ours == theirs and all(p.prompt.startswith("<|im_start|>system") for p in ours)
    texts = {p: a.text for p, a in served.score(ours).items()}  # type: ignore[union-attr]
    assert texts == {p: a.text for p, a in local.score(theirs).items()}  # type: ignore[union-attr]
    assert any(texts.values())
    print("\n" + "\n".join(f"{p}: {t!r}" for p, t in texts.items()))
