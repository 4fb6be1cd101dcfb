"""WinoBias's two readings against straightforward references, on tiny models.

The masked reference is Winogender's (tests/benchmarks/winogender/test_winogender_readings.py): the pronoun's pieces,
found by their character offsets in the filled-in sentence, masked together in one forward. The
causal reference is the sentence's Σ log P(token | tokens before) after the start token.
"""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from biasatlas.benchmarks.winobias import WinoBias  # noqa: E402
from biasatlas.benchmarks.winogender.data import Slotted  # noqa: E402
from biasatlas.pipeline import run_benchmark  # noqa: E402
from biasatlas.registry import load_scorer  # noqa: E402
from reference_impls import masked_span_logprob  # noqa: E402


def _run(model: Path, scorer: str, shared_data: Path):
    bench = WinoBias(data=shared_data / "winobias", split="dev", limit=6, n_resamples=20)
    return run_benchmark(bench, load_scorer(str(model), scorer)), {p.id: p for p in bench.load()}


def test_masked_reading_is_the_pronoun_probability_at_the_slot(tiny_roberta: Path, shared_data: Path) -> None:
    run, pairs = _run(tiny_roberta, "masked-lm", shared_data)
    model = transformers.AutoModelForMaskedLM.from_pretrained(tiny_roberta).eval()
    tok = transformers.AutoTokenizer.from_pretrained(tiny_roberta)
    assert run.summary["reading"] == "masked-pronoun" and len(run.records) == 12
    for r in run.records:
        slot = pairs[r["id"]].slot
        assert slot is not None
        left, pro, anti, right = slot
        for version, pronoun in (("pro", pro), ("anti", anti)):
            reference = masked_span_logprob(model, tok, Slotted(r["id"], left, pronoun, right))
            assert r[f"logprob_{version}"] == pytest.approx(reference, abs=2e-4)


def test_causal_reading_is_the_sentence_log_likelihood(tiny_gpt2: Path, shared_data: Path) -> None:
    run, pairs = _run(tiny_gpt2, "causal-lm", shared_data)
    model = transformers.AutoModelForCausalLM.from_pretrained(tiny_gpt2).eval()
    tok = transformers.AutoTokenizer.from_pretrained(tiny_gpt2)
    assert run.summary["reading"] == "sentence-likelihood"
    for r in run.records:
        for version in ("pro", "anti"):
            ids = [tok.bos_token_id, *tok(getattr(pairs[r["id"]], version), add_special_tokens=False)["input_ids"]]
            with torch.no_grad():
                logp = torch.log_softmax(model(torch.tensor([ids])).logits[0].float(), dim=-1)
            reference = sum(float(logp[i - 1, ids[i]]) for i in range(1, len(ids)))
            assert r[f"logprob_{version}"] == pytest.approx(reference, abs=2e-4)


def test_a_data_folder_missing_one_file_names_it(tmp_path):
    # --data names a folder: each file must be there (fetch.locate_all, shared with Winogender)
    from biasatlas.benchmarks.winobias import WinoBias
    from biasatlas.benchmarks.winogender import Winogender
    from biasatlas.errors import MissingInput

    (tmp_path / "male_occupations.txt").write_text("carpenter\n", encoding="utf-8")
    with pytest.raises(MissingInput, match="female_occupations.txt.*holding the WinoBias files"):
        WinoBias(data=tmp_path).paths()
    with pytest.raises(MissingInput, match="holding the authors' three files"):
        Winogender(data=tmp_path).paths()
