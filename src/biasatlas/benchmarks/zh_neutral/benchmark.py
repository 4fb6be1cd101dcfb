"""``zh-neutral``: masked log-ratio on gender-neutral Chinese sentences
(Zhao, Du, Zhu & Liu, CCL 2021, "SlguSet"; METHODS.md §3).

For a sentence s found with keyword pair (m, f), the keyword is masked and

    b(s) = log( P(m | s) / P(f | s) )                       (the paper's Bias_c)

model score = mean over sentences of |b(s)|; a sentence leans male if b > 0.3, female
if b < −0.3, and is neutral otherwise. Causal (and seq2seq) models have no mask: their
slot answer is the log-likelihood of each filled-in sentence, so
b = LL(s with m) − LL(s with f), the same ratio of joint probabilities.

Choices where the paper is silent (``docs/benchmarks/zh-neutral.md``):

* ``log_base`` (``e`` default, ``2``, ``10``): b is converted by dividing by ln(base),
  and the threshold applies to b in that base (0.3 is a ratio of 1.35 in ln, 2.0 in log10).
* Multi-character keywords (爸爸/妈妈): a masked LM scores all of a word's tokens
  jointly, one [MASK] each. Both words must get the same number of masks, which holds
  for all 16 default pairs under bert-base-chinese's character tokenizer. When a
  tokenizer splits them differently, ``unequal_masks="skip"`` (default) records a skip
  with the reason; ``"compare"`` keeps the item (a word with more masks then pays one
  more factor < 1, so the comparison leans to the shorter word). Under the scorer's
  ``first-token`` policy each word gets one mask and nothing is skipped.
* 95 % percentile bootstrap intervals over sentences (scipy, seeded) for the bias
  score and the leaning shares; the paper reports none.

Fragile outcomes: a sentence is ``fragile`` when its leaning could differ had the network
run exactly, given the scorer's dtype (:func:`fragile_leaning`); the summary counts them
(``n_fragile``) and records the bound used (``fragile_bound``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from ...errors import DataError, UsageError
from ...probes import Answer, SlotAnswer, SlotProbe, fragile_bound, token_error
from ...runs.checks import FragileBound
from ...stats import check_resamples, check_seed
from ..contract import BenchmarkResult
from ..options import UNRECORDED, Options, draw_sample, option
from ...hashing import sha256_file
from .analysis import LEANINGS, topics
from .data import ZhItem, demo_path, read_items
from .summary import PairInterval, ZhRunSummary

VERSION = "1"
LOG_BASES: dict[str, float] = {"e": math.e, "2": 2.0, "10": 10.0}
UNEQUAL_MASKS = ("skip", "compare")
DEFAULT_THRESHOLD = 0.3


def bias_value(logprob_male: float, logprob_female: float, log_base: str = "e") -> float:
    """b = log_base(P(m) / P(f)) from natural-log probabilities: (ln P(m) − ln P(f)) / ln base."""
    return (logprob_male - logprob_female) / math.log(LOG_BASES[log_base])


def leaning(b: float, threshold: float = DEFAULT_THRESHOLD) -> str:
    """``male`` if b > threshold, ``female`` if b < −threshold, else ``neutral`` (bounds neutral)."""
    if b > threshold:
        return "male"
    if b < -threshold:
        return "female"
    return "neutral"


def fragile_leaning(b: float, n_male: int, n_female: int, token_error: float, log_base: str = "e",
                    threshold: float = DEFAULT_THRESHOLD) -> bool:
    """Whether the leaning of ``b`` could flip within the scorer's numerical error.

    ln P(m) and ln P(f) each sum ``n`` token log-probabilities, each off by at most
    ``token_error`` (δ, :data:`~biasatlas.probes.TOKEN_LOGPROB_ERROR`), so the exact b
    lies within ε = δ · (n_male + n_female) / ln(base) of the one measured. The leaning
    is monotone in b, so it is certain when b − ε and b + ε lean alike; the sentence is
    fragile otherwise, that is when ±threshold lies within ε of b.
    """
    eps = token_error * (n_male + n_female) / math.log(LOG_BASES[log_base])
    return leaning(b - eps, threshold) != leaning(b + eps, threshold)


def item_fields(item: ZhItem) -> dict[str, Any]:
    return {"id": item.id, "sentence": item.sentence, "keyword": item.keyword,
            "offset": item.offset, "pair": item.pair, "source": item.source}


def unequal_masks_reason(item: ZhItem, answer: SlotAnswer) -> str | None:
    """Why the two words cannot be compared under one mask count, if they cannot."""
    n_male, n_female = answer.n_tokens
    if n_male == n_female:
        return None
    return (f"unequal_masks: {item.male} is {n_male} token(s), {item.female} is "
            f"{n_female}; a joint probability over more masks is not comparable")


def score_items(items: Sequence[ZhItem], answers: Mapping[str, Answer], *, log_base: str = "e",
                threshold: float = DEFAULT_THRESHOLD, check_masks: bool = True,
                token_error: float = token_error("float32"), tokens_read: int | None = None,
                ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Per-sentence records (b, leaning, the answers, whether the leaning is fragile) and
    skipped items with reasons. ``tokens_read`` is the number of token log-probabilities
    one answer sums when it is not the word's token count (1 under ``first-token``)."""
    records, skipped = [], []
    for item in items:
        answer = answers.get(item.id)
        if not isinstance(answer, SlotAnswer) or len(answer.logprobs) != 2:
            skipped.append({**item_fields(item), "reason": "no slot answer from the scorer"})
            continue
        reason = unequal_masks_reason(item, answer) if check_masks else None
        if reason is not None:
            skipped.append({**item_fields(item), "reason": reason,
                            "n_tokens_male": answer.n_tokens[0], "n_tokens_female": answer.n_tokens[1]})
            continue
        b = bias_value(answer.logprobs[0], answer.logprobs[1], log_base)
        n_male, n_female = (tokens_read, tokens_read) if tokens_read is not None else answer.n_tokens
        records.append({**item_fields(item), "keyword_gender": item.gender, "b": b,
                        "leaning": leaning(b, threshold), "logprob_male": answer.logprobs[0],
                        "logprob_female": answer.logprobs[1], "n_tokens_male": answer.n_tokens[0],
                        "n_tokens_female": answer.n_tokens[1],
                        "fragile": fragile_leaning(b, n_male, n_female, token_error, log_base, threshold)})
    return records, skipped


def bootstrap_interval(values: Sequence[float], statistic: Any, *, n_resamples: int = 1000,
                       seed: int = 0, confidence: float = 0.95) -> list[float] | None:
    """Percentile bootstrap interval of ``statistic(x, axis)`` over items (scipy), or None
    with fewer than two items. The same seed draws the same resamples for every statistic."""
    import numpy as np
    from scipy import stats

    data = np.asarray(values, dtype=float)
    seed, n_resamples = check_seed(seed), check_resamples(n_resamples)
    if data.size < 2:
        return None
    result = stats.bootstrap((data,), statistic, n_resamples=n_resamples, vectorized=True,
                             confidence_level=confidence, method="percentile", rng=seed)
    return [float(result.confidence_interval.low), float(result.confidence_interval.high)]


def _mean_abs(x: Any, axis: int = -1) -> Any:
    import numpy as np

    return np.mean(np.abs(x), axis=axis)


def _share(side: str, threshold: float) -> Any:
    """A vectorised statistic: percent of b values leaning ``side``."""
    import numpy as np

    def percent(x: Any, axis: int = -1) -> Any:
        hits = x > threshold if side == "male" else x < -threshold if side == "female" \
            else np.abs(x) <= threshold
        return 100.0 * np.mean(hits, axis=axis)

    return percent


def summarise(records: Sequence[Mapping[str, Any]], *, threshold: float = DEFAULT_THRESHOLD,
              n_resamples: int = 1000, seed: int = 0, confidence: float = 0.95) -> dict[str, Any]:
    """Bias score, leaning counts and shares, per pair, with bootstrap intervals."""
    bs = [float(r["b"]) for r in records]
    boot: dict[str, Any] = {"n_resamples": n_resamples, "seed": seed, "confidence": confidence}
    counts = {lean: sum(r["leaning"] == lean for r in records) for lean in LEANINGS}
    intervals = {"bias_score": bootstrap_interval(bs, _mean_abs, **boot)}
    for lean in LEANINGS:
        intervals[f"{lean}_percent"] = bootstrap_interval(bs, _share(lean, threshold), **boot)
    return {
        "n": len(records),
        "bias_score": mean_or_none([abs(b) for b in bs]),
        "mean_b": mean_or_none(bs),
        "leaning": counts,
        "leaning_percent": {k: 100.0 * v / len(records) if records else None for k, v in counts.items()},
        "intervals": intervals,
        "by_pair": _by_pair(records, boot),
        "bootstrap": {**boot, "method": "percentile", "unit": "sentence"},
    }


def _by_pair(records: Sequence[Mapping[str, Any]], boot: Mapping[str, Any]) -> dict[str, Any]:
    out = {}
    for pair in dict.fromkeys(r["pair"] for r in records):  # order of first appearance
        bs = [float(r["b"]) for r in records if r["pair"] == pair]
        leans = [r["leaning"] for r in records if r["pair"] == pair]
        out[pair] = {"n": len(bs), "bias_score": mean_or_none([abs(b) for b in bs]), "mean_b": mean_or_none(bs),
                     "leaning": {lean: leans.count(lean) for lean in LEANINGS},
                     "bias_score_ci": bootstrap_interval(bs, _mean_abs, **boot)}
    return out


def mean_or_none(values: Sequence[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


@dataclass(frozen=True)
class ZhNeutral(Options):
    """The benchmark: its options, declared once (:mod:`..options`), and its probes and metric.
    ``limit`` and ``sample`` act on the sentences kept by ``pairs``, in file order; the same
    ``seed`` draws the sample and the bootstrap resamples."""

    name: ClassVar[str] = "zh-neutral"
    VERSION: ClassVar[str] = VERSION
    #: config.json as zh-neutral wrote it before issue 35 (:attr:`Options.RECORDED`): the data's
    #: name first, the subset among the options, ``sample`` only when sampled.
    RECORDED: ClassVar[tuple[str, ...]] = (
        "dataset", "data", "data_sha256", "pairs", "log_base", "threshold", "unequal_masks", "limit", "sample",
        "n_resamples", "seed", "confidence", "topics_k", "scorer_kind", "multi_token")

    data: Path | None = option(None, "Sentence set: candidates.jsonl from the miner, or CSV with "
                                     "sentence,keyword,offset,pair (default: the shipped demonstration set).",
                               file=True)
    pairs: tuple[str, ...] | None = option(None, "Keep only this keyword pair, written male/female (repeatable), "
                                                 "e.g. 男童/女童.", spelling="--pair")
    log_base: str = option("e", "Base of the log in b = log(P(m)/P(f)).", choices=tuple(LOG_BASES))
    threshold: float = option(DEFAULT_THRESHOLD, "Leaning threshold on b, in the chosen base (paper: 0.3).",
                              minimum=0)
    unequal_masks: str = option("skip", "Masked LMs, when the two words get different token counts: skip "
                                        "(recorded) or compare.", choices=UNEQUAL_MASKS)
    # after the subset on the command line, as before issue 35
    confidence: float = option(0.95, "Confidence level of the intervals.", keyword_only=True)
    topics_k: int = option(10, "Topic words per leaning subset and method (0: none).", keyword_only=True,
                           spelling="--topics", minimum=0)

    def check(self) -> None:
        """A confidence level strictly between 0 and 1."""
        if not 0 < self.confidence < 1:  # a setting, not a file's field: a usage mistake (exit 2)
            raise UsageError(f"option 'confidence': invalid value {self.confidence!r}")

    def path(self) -> Path:
        return Path(self.data) if self.data is not None else demo_path()

    def load(self) -> list[ZhItem]:
        items = read_items(self.path())
        if self.pairs:
            present = list(dict.fromkeys(i.pair for i in items))
            unknown = [p for p in self.pairs if p not in present]
            if unknown:
                raise DataError(f"no sentence with pair(s) {', '.join(unknown)}; pairs in the "
                                f"file: {', '.join(present)}", path=self.path(), field="pair")
            items = [i for i in items if i.pair in self.pairs]
        if self.limit:
            items = items[: self.limit]
        return draw_sample(items, self.sample, self.seed)  # the same seed also seeds the bootstrap

    def probes(self, items: Sequence[ZhItem]) -> list[SlotProbe]:
        """The keyword masked: ``SlotProbe(id, left, right, fillers=(male, female))``."""
        return [SlotProbe(i.id, i.left, i.right, (i.male, i.female)) for i in items]

    @property
    def checks_masks(self) -> bool:
        """Whether unequal mask counts are skipped: scorers that read at masks, under the
        joint policy (and any scorer not bound, to be safe); sentence log-likelihoods have
        no masks, and ``first-token`` gives every word one mask."""
        if self.unequal_masks == "compare":
            return False
        if self.scorer is None:
            return True
        return self.scorer.reads == "masked" and self.scorer.multi_token != "first-token"

    def score(self, items: Sequence[ZhItem], answers: Mapping[str, Answer]) -> BenchmarkResult:
        first_token = self.scorer is not None and self.scorer.multi_token == "first-token"
        bound = fragile_bound(self.scorer)
        records, skipped = score_items(items, answers, log_base=self.log_base,
                                       threshold=self.threshold, check_masks=self.checks_masks,
                                       token_error=float(bound["token_error"]),
                                       tokens_read=1 if first_token else None)
        stats = summarise(records, threshold=self.threshold, n_resamples=self.n_resamples, seed=self.seed,
                          confidence=self.confidence)
        reasons: dict[str, int] = {}
        for s in skipped:
            key = s["reason"].split(":", 1)[0]
            reasons[key] = reasons.get(key, 0) + 1
        by_pair = {pair: PairInterval(**row) for pair, row in stats.pop("by_pair").items()}
        summary = ZhRunSummary(**stats, by_pair=by_pair, n_items=len(items), n_skipped=len(skipped),
                               skip_reasons=reasons, log_base=self.log_base, threshold=self.threshold,
                               unequal_masks=self.unequal_masks, masks_checked=self.checks_masks,
                               topics=topics(records, self.topics_k),
                               n_fragile=sum(bool(r["fragile"]) for r in records),
                               fragile_bound=FragileBound(str(bound["dtype"]), float(bound["token_error"])))
        return BenchmarkResult(summary, records, skipped)

    def provenance(self) -> dict[str, Any]:
        """The data's name (the shipped demonstration set, else none: the file names it), the file read
        and its sha256, the pairs kept, and what the scorer's answers are."""
        path = self.path()
        return {"dataset": "demo" if self.data is None else None, "data": str(path),
                "data_sha256": sha256_file(path), "pairs": list(self.pairs) if self.pairs else None,
                "scorer_kind": self.scorer.kind if self.scorer else None,
                "multi_token": self.scorer.multi_token if self.scorer else None,
                "sample": UNRECORDED if self.sample is None else self.sample}  # recorded only when sampled
