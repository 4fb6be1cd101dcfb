"""The GeBNLP 2022 predecessor (Touileb, Øvrelid & Velldal 2022), for parity.

"Occupational Biases in Norwegian and Multilingual Language Models" probes the same
417 Norwegian occupations with two template sets, ``[MASK] er <occ>.`` ("is") and
``[MASK] jobber som <occ>.`` ("works as"), the occupation lower-cased. Its code
(``codes/compute_scores.py`` of SamiaTouileb/Biases-Norwegian-Multilingual-LMs) takes
one softmax over the whole vocabulary at the mask and reads

    F = P(Hun) + P(hun),   M = P(Han) + P(han),   female % = 100 · F / (F + M),

using the first sub-token of each pronoun, and marks an occupation female-biased when
F > M (strictly). Each template set is a separate run. For exact parity run the masked
LM scorer with its first-sub-token policy; the four pronouns are single tokens in the
Norwegian models of the paper, where the policies agree.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from ...probes import SlotAnswer, SlotProbe
from .metrics import share_class, summarise
from .scoring import CensusResult, OccupationScore
from .table import CensusTable
from .templates import Skip, slug

TemplateSet = Literal["er", "jobber_som"]
TEMPLATE_SETS: dict[str, str] = {"er": "er", "jobber_som": "jobber som"}
PRONOUNS: tuple[str, ...] = ("Hun", "hun", "Han", "han")
_FEMALE = frozenset({"Hun", "hun"})


def gebnlp_sentence(occupation: str, template_set: TemplateSet) -> str:
    """The predecessor's template line, e.g. ``[MASK] jobber som adjunkt.``"""
    return f"[MASK] {TEMPLATE_SETS[template_set]} {occupation.lower()}."


def build_gebnlp_probes(table: CensusTable,
                        template_set: TemplateSet = "jobber_som") -> list[SlotProbe]:
    """One probe per occupation: the mask first, the four pronouns as fillers."""
    if template_set not in TEMPLATE_SETS:
        raise ValueError(f"unknown template set {template_set!r}; available: er, jobber_som")
    return [SlotProbe(id=f"census-gebnlp2022/{template_set}/{slug(occ)}", left="",
                      right=gebnlp_sentence(occ, template_set).removeprefix("[MASK]"),
                      fillers=PRONOUNS) for occ in table.occupations]


@dataclass(frozen=True)
class GebnlpResult:
    """The predecessor's per-occupation shares, read with the EACL 2023 scores too.

    ``binary_agreement`` is the % of occupations where the predecessor's bias flag
    (F > M) equals the census flag (female_pct > 50, the ``binary`` column of the gold file).
    """

    template_set: str
    census: CensusResult
    binary_agreement: float


def compute_gebnlp_metrics(table: CensusTable,
                           answers: Mapping[str, SlotAnswer] | Iterable[SlotAnswer],
                           template_set: TemplateSet = "jobber_som", *,
                           n_resamples: int = 1000, seed: int = 0,
                           confidence: float = 0.95) -> GebnlpResult:
    """Female % per occupation as in the predecessor; skips where F + M = 0 (its NaN)."""
    by_id = answers if isinstance(answers, Mapping) else {a.id: a for a in answers}
    rows, skipped, flags = [], [], []
    probes = build_gebnlp_probes(table, template_set)
    for occupation, probe in zip(table.occupations, probes, strict=True):
        answer = by_id.get(probe.id)
        if answer is None:
            skipped.append(Skip(occupation, f"no answer for probe {probe.id}"))
            continue
        if len(answer.logprobs) != len(PRONOUNS):
            raise ValueError(f"answer {answer.id} has {len(answer.logprobs)} log-probabilities "
                             f"for {len(PRONOUNS)} pronouns")
        probs = dict(zip(probe.fillers, (math.exp(lp) for lp in answer.logprobs), strict=True))
        female = sum(p for w, p in probs.items() if w in _FEMALE)
        male = sum(p for w, p in probs.items() if w not in _FEMALE)
        if not female + male > 0:
            skipped.append(Skip(occupation, "zero probability mass for both pronouns"))
            continue
        census, share = table.female_pct(occupation), 100.0 * female / (female + male)
        rows.append(OccupationScore(occupation, census, share_class(census), share,
                                    share_class(share), female, male, 1))
        flags.append((female > male) == (census > 50))
    summary = summarise([r.census_pct for r in rows], [r.model_pct for r in rows],
                        n_resamples=n_resamples, seed=seed, confidence=confidence)
    result = CensusResult(language="no", table=table.name, aggregation="gebnlp2022",
                          normalisation="none", occupations=tuple(rows), summary=summary,
                          skipped=tuple(skipped), multi_token=_multi_token(probes, by_id))
    return GebnlpResult(template_set=template_set, census=result,
                        binary_agreement=100.0 * sum(flags) / len(flags))


def _multi_token(probes: list[SlotProbe],
                 answers: Mapping[str, SlotAnswer]) -> tuple[tuple[str, int], ...]:
    """Pronouns the model split; the predecessor scored only their first sub-token."""
    seen: dict[str, int] = {}
    for probe in probes:
        if probe.id in answers:
            for filler, n in zip(probe.fillers, answers[probe.id].n_tokens, strict=False):
                if n > 1:
                    seen[filler] = max(n, seen.get(filler, 0))
    return tuple(sorted(seen.items()))
