"""One smoke test of the Ray Data engine on a local one-CPU Ray instance."""

from __future__ import annotations

import pytest

from biasatlas.mining import MiningConfig, run_pipeline

ray = pytest.importorskip("ray")


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.slow
def test_ray_engine_matches_the_local_engine(tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text("他在学校里认真学习，每天都很早起床。\n其他同学都已经回家了，教室里很安静。\n"
                      "那个男童在公园里玩得很开心。\n", encoding="utf-8")
    local = run_pipeline([corpus], tmp_path / "local", MiningConfig())
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False,
             configure_logging=False)
    try:
        remote = run_pipeline([corpus], tmp_path / "ray", MiningConfig(engine="ray"))
    finally:
        ray.shutdown()
    assert remote.n_candidates == 2
    assert remote.candidates_path.read_bytes() == local.candidates_path.read_bytes()
