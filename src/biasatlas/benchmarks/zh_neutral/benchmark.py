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
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ...errors import DataError
from ...probes import Answer, ScorerInfo, SlotAnswer, SlotProbe, fragile_bound, token_error
from ...stats import check_resamples, check_seed
from ..base import BenchmarkResult, check_subset, draw_sample
from ...hashing import sha256_file
from .analysis import LEANINGS, topics
from .data import ZhItem, demo_path, read_items

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
class ZhNeutral:
    """The benchmark. ``data`` is a JSONL/CSV sentence set (default: the shipped demo set);
    ``pairs`` keeps only those keyword pairs (``男童/女童``); ``topics_k`` topic words per
    subset and method go into the summary (0: none)."""

    data: Path | None = None
    pairs: tuple[str, ...] | None = None
    log_base: str = "e"
    threshold: float = DEFAULT_THRESHOLD
    unequal_masks: str = "skip"
    limit: int | None = None
    sample: int | None = None
    n_resamples: int = 1000
    seed: int = 0
    confidence: float = 0.95
    topics_k: int = 10
    scorer: ScorerInfo | None = None  # set by bind(): what the scorer's answers mean
    name: str = "zh-neutral"
    VERSION: str = VERSION

    def __post_init__(self) -> None:
        from ...errors import did_you_mean

        if self.log_base not in LOG_BASES:
            raise did_you_mean("log base", self.log_base, LOG_BASES)
        if self.unequal_masks not in UNEQUAL_MASKS:
            raise did_you_mean("unequal-masks policy", self.unequal_masks, UNEQUAL_MASKS)
        for field, value, ok in (("threshold", self.threshold, self.threshold >= 0),
                                 ("n_resamples", self.n_resamples, self.n_resamples >= 1),
                                 ("confidence", self.confidence, 0 < self.confidence < 1),
                                 ("limit", self.limit, self.limit is None or self.limit >= 1),
                                 ("sample", self.sample, self.sample is None or self.sample >= 1),
                                 ("topics_k", self.topics_k, self.topics_k >= 0)):
            if not ok:  # a setting, not a file's field: a usage mistake (exit 2)
                from ...errors import UsageError

                raise UsageError(f"option {field!r}: invalid value {value!r}")
        check_seed(self.seed)  # the draw and the bootstrap, checked before any scoring
        check_resamples(self.n_resamples)
        check_subset(self.limit, self.sample)

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

    def bind(self, info: ScorerInfo) -> ZhNeutral:
        """This benchmark set up for a scorer whose answers mean what ``info`` says."""
        return replace(self, scorer=info)

    def with_counters(self, summary: Mapping[str, Any], counters: Mapping[str, int]) -> dict[str, Any]:
        """The summary as it is: zh-neutral reports no forward-pass counts."""
        return dict(summary)

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
        summary = summarise(records, threshold=self.threshold, n_resamples=self.n_resamples,
                            seed=self.seed, confidence=self.confidence)
        reasons: dict[str, int] = {}
        for s in skipped:
            key = s["reason"].split(":", 1)[0]
            reasons[key] = reasons.get(key, 0) + 1
        summary.update({"n_items": len(items), "n_skipped": len(skipped), "skip_reasons": reasons,
                        "log_base": self.log_base, "threshold": self.threshold,
                        "unequal_masks": self.unequal_masks, "masks_checked": self.checks_masks,
                        "topics": topics(records, self.topics_k),
                        "n_fragile": sum(bool(r["fragile"]) for r in records), "fragile_bound": bound})
        return BenchmarkResult(summary, records, skipped)

    def config(self) -> dict[str, Any]:
        path = self.path()
        return {"benchmark": self.name, "version": self.VERSION,
                "dataset": "demo" if self.data is None else None, "data": str(path),
                "data_sha256": sha256_file(path), "pairs": list(self.pairs) if self.pairs else None,
                "log_base": self.log_base, "threshold": self.threshold,
                "unequal_masks": self.unequal_masks, "limit": self.limit,
                **({"sample": self.sample} if self.sample is not None else {}),  # only when sampled
                "n_resamples": self.n_resamples, "seed": self.seed, "confidence": self.confidence,
                # Keys as first written (a rerun compares the recorded config).
                "topics_k": self.topics_k,
                "scorer_kind": self.scorer.kind if self.scorer else None,
                "multi_token": self.scorer.multi_token if self.scorer else None}
