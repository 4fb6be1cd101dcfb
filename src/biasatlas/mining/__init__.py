"""Mining gender-neutral candidate sentences from a raw Chinese corpus (SlguSet-style;
Zhao, Du, Zhu & Liu, CCL 2021). See ``docs/mining.md``.

    from biasatlas.mining import MiningConfig, run_pipeline
    report = run_pipeline(["corpus.txt"], "out/", MiningConfig(workers=2))
"""

from biasatlas.mining.lexicon import DEFAULT_PAIRS, KeywordPair, load_pairs
from biasatlas.mining.pipeline import MiningConfig, MiningReport, run_pipeline
from biasatlas.mining.records import Candidate, read_candidates

__all__ = ["DEFAULT_PAIRS", "Candidate", "KeywordPair", "MiningConfig", "MiningReport",
           "load_pairs", "read_candidates", "run_pipeline"]
