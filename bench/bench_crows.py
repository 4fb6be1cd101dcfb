"""Speed of the CrowS-Pairs masked-LM engine against a one-mask-per-forward reference.

Prints, in one run, on a BERT-base-sized model (12 layers, hidden 768, 30,522-token
vocabulary; random weights: timing does not depend on them) and real CrowS-Pairs rows:
pairs/s for ours and for the straightforward reference (nyu-mll ``metric.py``: one masked
copy per forward pass, full vocabulary projection at every position), their ratio, whether
both give the same outcomes, and the useful FLOP/s we reach — encoder over every masked
copy plus vocabulary projection at the masked positions only — as a fraction of this
machine's measured float32 matmul throughput.

    python bench/bench_crows.py [--pairs 48] [--batch-size 64] [--device cpu]
"""

from __future__ import annotations

import argparse
import csv
import difflib
import tempfile
import time
from pathlib import Path

import torch
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers
from transformers import BertConfig, BertForMaskedLM, BertTokenizerFast

from biasatlas.benchmarks.crows_pairs import read_pairs
from biasatlas.probes import PairProbe
from biasatlas.scorers.masked_lm import MaskedLMScorer

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "crows-pairs-en" / "crows_pairs_anonymized.csv"


def build_model(folder: Path, sentences: list[str]) -> None:
    """A BERT-base-sized MLM with a WordPiece tokenizer trained here on the sentences."""
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.train_from_iterator(sentences, trainers.WordPieceTrainer(
        vocab_size=30522, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]))
    fast = BertTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]",
                             cls_token="[CLS]", sep_token="[SEP]", mask_token="[MASK]")
    # The post-processor adds [CLS] … [SEP] like the real bert-base tokenizer.
    from tokenizers.processors import TemplateProcessing

    tok.post_processor = TemplateProcessing(single="[CLS] $A [SEP]", special_tokens=[
        ("[CLS]", tok.token_to_id("[CLS]")), ("[SEP]", tok.token_to_id("[SEP]"))])
    fast = BertTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]",
                             cls_token="[CLS]", sep_token="[SEP]", mask_token="[MASK]")
    torch.manual_seed(0)
    model = BertForMaskedLM(BertConfig(vocab_size=30522))  # bert-base: 12 × 768, 3072 FFN
    model.save_pretrained(folder)
    fast.save_pretrained(folder)


def reference_scores(model, tokenizer, sent1: str, sent2: str) -> tuple[float, float]:
    """nyu-mll metric.py, literally: one masked copy per forward pass, batch size 1."""
    ids = [tokenizer.encode(s, return_tensors="pt")[0] for s in (sent1, sent2)]
    ops = difflib.SequenceMatcher(None, [str(x) for x in ids[0].tolist()],
                                  [str(x) for x in ids[1].tolist()]).get_opcodes()
    spans = ([i for o in ops if o[0] == "equal" for i in range(o[1], o[2])],
             [i for o in ops if o[0] == "equal" for i in range(o[3], o[4])])
    scores = [0.0, 0.0]
    for side in (0, 1):
        for pos in spans[side][1:-1]:
            masked = ids[side].clone()
            masked[pos] = tokenizer.mask_token_id
            with torch.inference_mode():
                logits = model(masked.unsqueeze(0)).logits[0, pos]
            scores[side] += float(torch.log_softmax(logits, -1)[ids[side][pos]])
    return scores[0], scores[1]


def outcome(a: float, b: float) -> str:
    a, b = round(a, 3), round(b, 3)
    return "tie" if a == b else ("a" if a > b else "b")


def useful_flops(rows, config) -> float:
    """Encoder FLOPs over every masked copy + MLM head at its masked positions only.

    Per layer and token: QKV+output projections 8·H², FFN 4·H·I (multiply-adds ×2 → FLOPs
    counted as 2 per MAC), attention scores and mixing 4·L·H. Head per masked position:
    transform 2·H² + decoder 2·H·V.
    """
    h, i, v, n = config.hidden_size, config.intermediate_size, config.vocab_size, config.num_hidden_layers
    total = 0.0
    for row in rows:
        length = len(row.ids)
        per_token = 8 * h * h + 4 * h * i + 4 * length * h
        total += n * length * per_token + len(row.positions) * (2 * h * h + 2 * h * v)
    return total


def matmul_peak(device: str, size: int = 2048, repeats: int = 10) -> float:
    a = torch.randn(size, size, device=device)
    b = torch.randn(size, size, device=device)
    for _ in range(2):
        a @ b
    start = time.perf_counter()
    for _ in range(repeats):
        a @ b
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    return 2 * size**3 * repeats / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=48)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    pairs = read_pairs(args.data)
    with open(args.data, encoding="utf-8") as handle:
        corpus = [r[k] for r in csv.DictReader(handle) for k in ("sent_more", "sent_less")]
    probes = [PairProbe(p.id, p.sent_more, p.sent_less) for p in pairs[: args.pairs]]
    with tempfile.TemporaryDirectory() as tmp:
        build_model(Path(tmp), corpus)
        ours = MaskedLMScorer(tmp, batch_size=args.batch_size, device=args.device)
        ours.score(probes[:2])  # warm-up
        ours.counters.clear()
        start = time.perf_counter()
        fast = ours.score(probes)
        t_ours = time.perf_counter() - start
        rows = [r for p in probes for side in ours._pair_plan(p) for r, _ in side]
        model, tokenizer = ours.model, ours.tokenizer
        start = time.perf_counter()
        slow = {p.id: reference_scores(model, tokenizer, p.a, p.b) for p in probes}
        t_ref = time.perf_counter() - start
    same = all(outcome(fast[p.id].score_a, fast[p.id].score_b) == outcome(*slow[p.id]) for p in probes)
    max_diff = max(max(abs(fast[p.id].score_a - slow[p.id][0]), abs(fast[p.id].score_b - slow[p.id][1]))
                   for p in probes)
    flops = useful_flops(rows, model.config)
    peak = matmul_peak(args.device)
    print(f"pairs: {len(probes)} real CrowS-Pairs rows, masked copies: {len(rows)}, "
          f"threads: {torch.get_num_threads()}, device: {args.device}")
    print(f"ours:      {len(probes) / t_ours:8.2f} pairs/s ({t_ours:.1f} s, batch {args.batch_size})")
    print(f"reference: {len(probes) / t_ref:8.2f} pairs/s ({t_ref:.1f} s, one mask per forward)")
    print(f"speed-up:  {t_ref / t_ours:8.2f}x")
    print(f"same outcomes: {same} (max |score difference| {max_diff:.2e})")
    print(f"useful FLOP/s: {flops / t_ours / 1e9:.1f} GFLOP/s; matmul peak {peak / 1e9:.1f} GFLOP/s; "
          f"fraction {flops / t_ours / peak:.1%}")
    print(f"reference useful FLOP/s fraction: {flops / t_ref / peak:.1%}")


if __name__ == "__main__":
    main()
