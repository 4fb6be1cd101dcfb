"""Measure how far a token's log-probability moves when the network runs in a lower precision.

The scorers upcast logits to float32 before the log-softmax, so the only error left in a
token's log-probability is the network's own arithmetic in the dtype it runs in. This
script measures it, per token, as |log p(dtype) − log p(reference)| where the reference is
float32 in batches of ``--batch-size`` rows, for

* ``bfloat16`` and ``float16``: the same batches, weights and activations in that dtype;
* ``float32-one-by-one``: float32 again, one sentence per forward pass (float32's own
  noise: padding and batch composition change which kernels and blockings run).

Models: the packaged causal ``smollm2-135m`` (a real trained model), and random masked and
causal models shaped like ``tests/tiny_models.py`` (BERT and GPT-2, hidden 32, 2 layers) plus
a wider random BERT (hidden 256, 4 layers), with the tests' trained tokenizers. Masked
models are read as the ``nangia`` scorer reads them: one token masked per row. Sentences:
CrowS-Pairs (English, revised) and census US sentences (the paper's templates).

Prints, per model and dtype, the max and 99.9th percentile of the per-token error in nats;
``biasatlas.probes.TOKEN_LOGPROB_ERROR`` is built from these (max over the models, × 4).

    .venv/bin/python bench/parity/precision_vs_float32.py [--sentences 200] [--threads 2]
"""

from __future__ import annotations

import argparse
import csv
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))  # the tests' tiny model builders and tokenizers

DTYPES = {"bfloat16": torch.bfloat16, "float16": torch.float16}


def sentences(data: Path, n: int) -> list[str]:
    """Half CrowS-Pairs (sent_more and sent_less alternately), half census US sentences."""
    from biasatlas.benchmarks.census import Census

    with (data / "crows-pairs-en" / "crows_pairs_EN_revised.csv").open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    crows = [s for r in rows[: n // 4] for s in (r["sent_more"], r["sent_less"])][: n // 2]
    plan = Census(country="us", sample=20, seed=0).plan
    census = [p.left + p.fillers[0] + p.right for p in plan.probes][:: max(1, len(plan.probes) // (n - len(crows)))]
    return crows + census[: n - len(crows)]


def causal_logprobs(model: torch.nn.Module, ids: list[list[int]], batch: int) -> list[np.ndarray]:
    """log P(token_t | tokens_<t) for t ≥ 1 of each sequence, logits upcast to float32."""
    out: list[np.ndarray] = []
    for start in range(0, len(ids), batch):
        chunk = ids[start:start + batch]
        width = max(map(len, chunk))
        x = torch.tensor([s + [0] * (width - len(s)) for s in chunk])
        mask = torch.tensor([[1] * len(s) + [0] * (width - len(s)) for s in chunk])
        with torch.no_grad():
            logits = model(input_ids=x, attention_mask=mask).logits.float()
        logp = torch.log_softmax(logits[:, :-1], dim=-1).gather(-1, x[:, 1:, None])[..., 0]
        out += [logp[i, : len(s) - 1].numpy() for i, s in enumerate(chunk)]
    return out


def masked_logprobs(model: torch.nn.Module, ids: list[list[int]], batch: int, mask_id: int) -> list[np.ndarray]:
    """log P(token_t | sentence with t masked) for every non-special t (the ``nangia`` reading),
    ``batch`` masked copies per forward pass (1: one sentence's copies per pass)."""
    rows = [(k, t) for k, s in enumerate(ids) for t in range(1, len(s) - 1)]
    values = np.zeros(len(rows), dtype=np.float64)
    # batch 1 means one sentence per forward pass: its masked copies, and nothing else
    starts = [i for i, (_, t) in enumerate(rows) if t == 1] if batch == 1 else list(range(0, len(rows), batch))
    for start, end in zip(starts, [*starts[1:], len(rows)], strict=True):
        chunk = rows[start:end]
        width = max(len(ids[k]) for k, _ in chunk)
        x = torch.tensor([ids[k] + [0] * (width - len(ids[k])) for k, _ in chunk])
        mask = torch.tensor([[1] * len(ids[k]) + [0] * (width - len(ids[k])) for k, _ in chunk])
        pos = torch.tensor([t for _, t in chunk])
        target = x[torch.arange(len(chunk)), pos].clone()
        x[torch.arange(len(chunk)), pos] = mask_id
        with torch.no_grad():
            logits = model(input_ids=x, attention_mask=mask).logits[torch.arange(len(chunk)), pos].float()
        values[start:end] = torch.log_softmax(logits, -1).gather(-1, target[:, None])[:, 0].numpy()
    out, at = [], 0
    for s in ids:
        out.append(values[at:at + len(s) - 2])
        at += len(s) - 2
    return out


def measure(name: str, folder: Path, masked: bool, texts: list[str], batch: int) -> dict[str, np.ndarray]:
    """Per-token errors against float32 batched, for each dtype and for float32 one by one."""
    from transformers import AutoModelForCausalLM, AutoModelForMaskedLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(folder)
    loader = AutoModelForMaskedLM if masked else AutoModelForCausalLM
    ids = [tok(t, add_special_tokens=masked)["input_ids"][:128] for t in texts]
    if not masked and tok.bos_token_id is not None:  # score the first token too, given BOS
        ids = [[tok.bos_token_id] + s for s in ids]
    run: Callable[[torch.nn.Module, int], list[np.ndarray]] = (
        (lambda m, b: masked_logprobs(m, ids, b, tok.mask_token_id)) if masked
        else (lambda m, b: causal_logprobs(m, ids, b)))
    model = loader.from_pretrained(folder, dtype=torch.float32).eval()
    started = time.perf_counter()
    reference = np.concatenate(run(model, batch))
    times = {"float32": time.perf_counter() - started}
    errors = {"float32-one-by-one": np.abs(np.concatenate(run(model, 1)) - reference)}
    times["float32-one-by-one"] = time.perf_counter() - started - sum(times.values())
    for dtype, torch_dtype in DTYPES.items():
        try:
            low = loader.from_pretrained(folder, dtype=torch_dtype).eval()
            errors[dtype] = np.abs(np.concatenate(run(low, batch)) - reference)
        except (RuntimeError, NotImplementedError) as exc:  # an op without a CPU kernel in that dtype
            print(f"  {name}: {dtype} failed on this CPU: {exc}", flush=True)
        times[dtype] = time.perf_counter() - started - sum(times.values())
    print(f"  {name}: {len(reference)} tokens; seconds " + ", ".join(f"{k} {v:.1f}" for k, v in times.items()),
          flush=True)
    return errors


def tiny_models(out: Path) -> list[tuple[str, Path, bool]]:
    """The tests' tiny BERT and GPT-2, and a wider random BERT on the same tokenizer."""
    from tiny_models import _seeded, build_bert, build_gpt2
    from tiny_tokenizers import MAX_TOKENS, bert_tokenizer
    from transformers import BertConfig, BertForMaskedLM

    from shared_data import shared_data_dir

    tok = bert_tokenizer(shared_data_dir(), True)
    wide = BertConfig(vocab_size=len(tok), hidden_size=256, num_hidden_layers=4, num_attention_heads=4,
                      intermediate_size=1024, max_position_embeddings=MAX_TOKENS, pad_token_id=0)
    return [("tiny-bert (random, masked)", build_bert(out / "bert"), True),
            ("tiny-gpt2 (random, causal)", build_gpt2(out / "gpt2"), False),
            ("bert-256x4 (random, masked)", _seeded(BertForMaskedLM, wide, tok, out / "wide"), True)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sentences", type=int, default=200)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--skip-packaged", action="store_true", help="tiny models only")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    from biasatlas.scorers.inprocess.packaged import resolve_packaged_model
    from shared_data import shared_data_dir

    texts = sentences(shared_data_dir(), args.sentences)
    with tempfile.TemporaryDirectory() as tmp:
        models = tiny_models(Path(tmp))
        if not args.skip_packaged:
            models.append(("smollm2-135m (trained, causal)", resolve_packaged_model("smollm2-135m"), False))
        results = {name: measure(name, folder, masked, texts, args.batch_size) for name, folder, masked in models}
    print(f"\n{len(texts)} sentences; |log p(dtype) - log p(float32, batch {args.batch_size})| per token, nats")
    print(f"{'model':32} {'dtype':20} {'max':>10} {'p99.9':>10} {'median':>10}")
    worst: dict[str, float] = {}
    for name, errors in results.items():
        for dtype, err in errors.items():
            worst[dtype] = max(worst.get(dtype, 0.0), float(err.max()))
            print(f"{name:32} {dtype:20} {err.max():10.3g} {np.percentile(err, 99.9):10.3g} "
                  f"{np.median(err):10.3g}")
    print("\nmax over models:", {k: f"{v:.3g}" for k, v in worst.items()})
    print("TOKEN_LOGPROB_ERROR (max x 4, rounded up to one significant digit):",
          {("float32" if k == "float32-one-by-one" else k): round_up(SAFETY * v) for k, v in worst.items()})


#: Models other than those measured (deeper, wider vocabularies, other kernels and devices)
#: may err more than the worst one here: the table takes four times the measured maximum.
SAFETY = 4.0


def round_up(value: float) -> float:
    """``value`` rounded up to one significant digit (2.164 → 3, 1.09e-4 → 2e-4)."""
    import math

    scale = 10.0 ** math.floor(math.log10(value))
    return float(f"{math.ceil(value / scale - 1e-9) * scale:.1g}")


if __name__ == "__main__":
    main()
