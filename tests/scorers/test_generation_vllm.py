"""Generated answers against a real vLLM (tests/vllm_server.py, slow): the same prompts at temperature 0
give the same texts in process (transformers' generate) and served (/v1/completions) on the packaged
SmolLM2 (bench/parity/generation_vs_served.py measures more prompts and says where texts part)."""

from __future__ import annotations

import os

import pytest

from vllm_server import PREFIX, vllm_server  # noqa: F401 (the fixture)

pytestmark = pytest.mark.slow


def test_generated_texts_equal_in_process_and_served(vllm_server, shared_data):  # noqa: F811
    pytest.importorskip("torch", reason="the in-process reference needs the torch extra")
    from biasatlas.benchmarks.bbq import BBQ
    from biasatlas.scorers.inprocess.causal_lm import CausalLMScorer
    from biasatlas.scorers.served.completions import ServedScorer

    bench = BBQ(data=shared_data / "bbq", sample=4, seed=38, answers="generated", max_new_tokens=16)
    probes = bench.probes(bench.load())
    local = CausalLMScorer(str(vllm_server.folder)).score(probes)
    os.environ["BIASATLAS_TEST_VLLM_KEY"] = vllm_server.key
    served = ServedScorer(vllm_server.url, served_prefix=PREFIX, api_key_env="BIASATLAS_TEST_VLLM_KEY").score(probes)
    assert {p: a.text for p, a in served.items()} == {p: a.text for p, a in local.items()}  # type: ignore[union-attr]
    assert any(a.text for a in local.values())  # type: ignore[union-attr]  # not all empty (one may be: "\n\n" first)
