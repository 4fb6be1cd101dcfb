"""Winogender as a biasatlas benchmark (Rudinger et al., NAACL 2018; METHODS-MORE.md §6, "LM probes").

Each context's pronoun versions get one log-probability each, from one of two named readings
(recorded in the config and summary as ``reading``; never mixed in one run):

- ``masked-pronoun`` (a masked LM): the pronoun slot masked, log P(she), log P(he) (in the slot's
  form: she/he, her/his, her/him) read from the one softmax at the slot of the male/female context;
  log P(they/their/them) from the neutral sentence's own context, which for 34 contexts differs
  in the verb (``they were`` for ``he was``), else from the same softmax.
- ``sentence-likelihood`` (causal and seq2seq LMs, the fake scorer): the log-likelihood of each whole
  sentence, the scorer's :class:`~biasatlas.probes.SentenceProbe` answer. The male and female
  sentences are a minimal pair (one word); neutral ones are not where the verb changes.

:mod:`.analysis` turns them into female shares per occupation, read against ``bls_pct_female``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from ...hashing import sha256_file
from ...probes import Answer, Probe, SentenceAnswer, SentenceProbe, SlotAnswer, SlotProbe
from ..base import reading_of
from ..contract import BenchmarkResult
from ..options import Options, draw_sample, option
from ..fetch import locate_all
from .analysis import ContextScore
from .data import FILES, GENDERS, Context, read_contexts
from .summary import summarise

# 1: first version (the two readings above; shares σ(l_f − l_m), bootstrap over occupations).
VERSION = "1"
_NEUTRAL = ".neutral"  # suffix of the masked reading's own probe for a neutral context that differs


@dataclass(frozen=True)
class Winogender(Options):
    """The benchmark: its options, declared once (:mod:`..options`), and its probes and metric.

    ``limit`` and ``sample`` act on contexts (240: 60 occupations × 2 referents × 2 participants) in
    file order; ``n_resamples`` and ``seed``: the bootstrap intervals.
    """

    name: ClassVar[str] = "winogender"
    VERSION: ClassVar[str] = VERSION
    UNIT: ClassVar[str] = "contexts"

    data: Path | None = option(None, "A folder holding the authors' all_sentences.tsv, templates.tsv and "
                                     "occupations-stats.tsv instead of the canonical copies.")

    @property
    def reading(self) -> str:
        """``masked-pronoun`` for a masked reader, else ``sentence-likelihood`` (module docstring)."""
        return reading_of(self.scorer)

    def paths(self) -> dict[str, Path]:
        """The three files in use, by role."""
        return locate_all(FILES, self.data, "the authors' three files")

    def load(self) -> list[Context]:
        p = self.paths()
        contexts = read_contexts(p["sentences"], p["templates"], p["occupations"])
        return draw_sample(contexts[: self.limit] if self.limit else contexts, self.sample, self.seed)

    def probes(self, items: Sequence[Context]) -> list[Probe]:
        """Masked: one slot probe per context (two for the 34 whose neutral context differs);
        otherwise one sentence probe per sentence, keyed by the authors' sentence id."""
        probes: list[Probe] = []
        for c in items:
            if self.reading == "sentence-likelihood":
                probes += [SentenceProbe(c.sentences[g].id, c.sentences[g].text) for g in GENDERS]
                continue
            f, m, n = (c.sentences[g] for g in GENDERS)
            if c.shared:
                probes.append(SlotProbe(c.id, f.left, f.right, (f.pronoun, m.pronoun, n.pronoun)))
            else:
                probes += [SlotProbe(c.id, f.left, f.right, (f.pronoun, m.pronoun)),
                           SlotProbe(c.id + _NEUTRAL, n.left, n.right, (n.pronoun,))]
        return probes

    def context_score(self, c: Context, answers: Mapping[str, Answer]) -> ContextScore | None:
        """The context's three log-probabilities from ``answers``; None when the gendered ones are missing."""
        if self.reading == "sentence-likelihood":
            got = [answers.get(c.sentences[g].id) for g in GENDERS]
            values = [a.logprob if isinstance(a, SentenceAnswer) else None for a in got]
        else:
            shared, own = answers.get(c.id), answers.get(c.id + _NEUTRAL)
            slot = list(shared.logprobs) if isinstance(shared, SlotAnswer) else [None, None]
            neutral = own.logprobs[0] if isinstance(own, SlotAnswer) else None
            values = [*slot[:2], slot[2] if len(slot) > 2 else neutral]
        female, male, neutral_value = values
        if female is None or male is None:
            return None
        return ContextScore(c, female, male, neutral_value)

    def score(self, items: Sequence[Context], answers: Mapping[str, Answer]) -> BenchmarkResult:
        scored = [(c, self.context_score(c, answers)) for c in items]
        scores = [s for _, s in scored if s is not None]
        skipped = [{"id": c.id, "occupation": c.occupation, "reason": "no score from the model"}
                   for c, s in scored if s is None]
        # The shipped data by its name (``winogender``), wherever it was read from (the pinned download or
        # BIASATLAS_DATA_DIR): the folder is the config's ``data``, provenance only. A folder of the user's
        # records none, so the run's dataset is that folder, as the pipeline names it.
        summary = summarise(scores, n_resamples=self.n_resamples, seed=self.seed, n_skipped=len(skipped),
                            reading=self.reading, dataset=self.name if self.data is None else None)
        return BenchmarkResult(summary, [_record(s) for s in scores], skipped)

    def provenance(self) -> dict[str, Any]:
        """The folder read, the sentences' sha256 (the digest that pairs runs) and the other two files'
        beside it, the reading, and how a masked scorer reads a multi-token pronoun."""
        paths = self.paths()
        return {"data": str(paths["sentences"].parent), "data_sha256": sha256_file(paths["sentences"]),
                **{f"{role}_sha256": sha256_file(paths[role]) for role in ("templates", "occupations")},
                "reading": self.reading, "multi_token": self.scorer.multi_token if self.scorer else None}


def _record(s: ContextScore) -> dict[str, Any]:
    c = s.context
    neutral = s.neutral_share
    return {"id": c.id, "occupation": c.occupation, "participant": c.participant, "referent": c.referent,
            "slot": c.slot, "gotcha": c.gotcha, "bls_pct_female": c.bls_pct_female,
            "sentence": c.sentences["female"].text, "logprob_female": s.female, "logprob_male": s.male,
            "logprob_neutral": s.neutral, "log_ratio": s.log_ratio, "female_share": 100.0 * s.female_share,
            "neutral_share": None if neutral is None else 100.0 * neutral, "preferred": s.preferred,
            "took_gotcha": s.took_gotcha}
