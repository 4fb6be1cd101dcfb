"""WinoBias as a biasatlas benchmark (Zhao et al., NAACL 2018; METHODS-MORE.md §7, "LM probes").

Each pair's two versions get one log-probability each, from one of two named readings (recorded as
``reading``; never mixed in one run):

- ``masked-pronoun`` (a masked LM, probe (a)): the one pronoun word where pro and anti differ is
  masked, and log P(pro pronoun), log P(anti pronoun) are read from the one softmax at the slot.
  A pair whose versions differ in more than one pronoun (62 lines bracket a second one that is
  swapped too) has no single slot: a recorded skip.
- ``sentence-likelihood`` (causal and seq2seq LMs, the fake scorer, probe (b)): the log-likelihood of
  each whole sentence, the scorer's sentence answer.

Pairs whose versions differ in a non-pronoun word too (19 in the text, METHODS-MORE.md §7) are not
minimal pairs and are excluded in both readings, as recorded skips.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal

from ...hashing import sha256_file
from ...probes import Answer, Probe, SentenceAnswer, SentenceProbe, SlotAnswer, SlotProbe
from ..base import reading_of
from ..contract import BenchmarkResult
from ..options import Options, draw_sample, option
from ..fetch import locate_all
from .analysis import PairScore
from .data import FILES, SPLITS, TYPES, Pair, pair_files, read_all
from .summary import summarise

# 1: first version (the two readings above, non-minimal pairs excluded).
VERSION = "1"
Types = Literal["1", "2", "both"]
Splits = Literal["dev", "test", "both"]


@dataclass(frozen=True)
class WinoBias(Options):
    """The benchmark: its options, declared once (:mod:`..options`), and its probes and metric.

    ``limit`` and ``sample`` act on pairs, per type and split in file order; ``n_resamples`` and
    ``seed``: the bootstrap intervals.
    """

    name: ClassVar[str] = "winobias"
    VERSION: ClassVar[str] = VERSION
    UNIT: ClassVar[str] = "pairs of each type and split"

    types: Types = option("both", "Type 1 (world knowledge), 2 (syntax) or both.", subset="chosen")
    split: Splits = option("test", "dev, test (the paper's Table 3) or both.")
    data: Path | None = option(None, "A folder holding the eight WinoBias files and the two occupation lists "
                                     "instead of the canonical copies.")

    @property
    def reading(self) -> str:
        """``masked-pronoun`` or ``sentence-likelihood`` (module docstring), as Winogender names them."""
        return reading_of(self.scorer)

    @property
    def sets(self) -> list[tuple[str, str]]:
        """(type, split) of every set in use."""
        kinds = TYPES if self.types == "both" else (self.types,)
        splits = SPLITS if self.split == "both" else (self.split,)
        return [(k, s) for k in kinds for s in splits]

    def paths(self) -> dict[str, Path]:
        """The files in use, by name: both lists and each set's pro and anti file."""
        names = ["male_occupations.txt", "female_occupations.txt", *(n for k, s in self.sets for n in pair_files(k, s))]
        return locate_all({n: FILES[n] for n in names}, self.data, "the WinoBias files")

    def load(self) -> list[Pair]:
        """The pairs in use: per type and split the first ``limit``, then ``sample`` drawn with the seed."""
        files = self.paths()
        chosen: list[Pair] = []
        for kind, split in self.sets:
            in_set = read_all(files, (kind,), (split,))
            chosen += draw_sample(in_set[: self.limit] if self.limit else in_set, self.sample, self.seed)
        return chosen

    def _scorable(self, p: Pair) -> str | None:
        """Why ``p`` is not scored in this reading, or None."""
        if not p.minimal:
            return "pro and anti differ beyond the pronoun (not a minimal pair)"
        if self.reading == "masked-pronoun" and p.slot is None:
            return "more than one pronoun differs: no single slot to mask"
        return None

    def probes(self, items: Sequence[Pair]) -> list[Probe]:
        probes: list[Probe] = []
        for p in items:
            if self._scorable(p) is not None:
                continue
            if self.reading == "masked-pronoun" and p.slot is not None:
                left, pro, anti, right = p.slot
                probes.append(SlotProbe(p.id, left, right, (pro, anti)))
            else:
                probes += [SentenceProbe(p.id + ".pro", p.pro), SentenceProbe(p.id + ".anti", p.anti)]
        return probes

    def pair_score(self, p: Pair, answers: Mapping[str, Answer]) -> PairScore | None:
        slot = answers.get(p.id)
        if isinstance(slot, SlotAnswer):
            return PairScore(p, slot.logprobs[0], slot.logprobs[1])
        pro, anti = answers.get(p.id + ".pro"), answers.get(p.id + ".anti")
        if isinstance(pro, SentenceAnswer) and isinstance(anti, SentenceAnswer):
            return PairScore(p, pro.logprob, anti.logprob)
        return None

    def score(self, items: Sequence[Pair], answers: Mapping[str, Answer]) -> BenchmarkResult:
        scores, skipped = [], []
        for p in items:
            reason = self._scorable(p)
            s = None if reason else self.pair_score(p, answers)
            if s is None:
                skipped.append({"id": p.id, "occupation": p.occupation, "reason": reason or "no score from the model"})
            else:
                scores.append(s)
        # The shipped data by its name (``winobias``), wherever it was read from (the pinned download or
        # BIASATLAS_DATA_DIR): the folder is the config's ``data``, provenance only. A folder of the user's
        # records none, so the run's dataset is that folder, as the pipeline names it.
        summary = summarise(scores, self.sets, n_resamples=self.n_resamples, seed=self.seed, n_skipped=len(skipped),
                            reading=self.reading, dataset=self.name if self.data is None else None)
        return BenchmarkResult(summary, [_record(s) for s in scores], skipped)

    def provenance(self) -> dict[str, Any]:
        """The folder read, the files' sha256 (one digest over them pairs runs), the reading, and how
        a masked scorer reads a multi-token pronoun."""
        paths = self.paths()
        files = {name: sha256_file(path) for name, path in paths.items()}
        return {"data": str(next(iter(paths.values())).parent), "data_sha256": _combined(files),
                "file_sha256": files, "reading": self.reading,
                "multi_token": self.scorer.multi_token if self.scorer else None}


def _combined(files: Mapping[str, str]) -> str:
    """One digest of the files in use (sha256 of their ``name sha256`` lines, sorted): the run
    folder's ``data_sha256``, which pairs two runs only when they read the same bytes."""
    lines = "".join(f"{name} {digest}\n" for name, digest in sorted(files.items()))
    return hashlib.sha256(lines.encode()).hexdigest()


def _record(s: PairScore) -> dict[str, Any]:
    p = s.pair
    return {"id": p.id, "set": f"type{p.kind}-{p.split}", "type": p.kind, "split": p.split, "line": p.line,
            "occupation": p.occupation, "majority": p.majority, "pro": p.pro, "anti": p.anti,
            "logprob_pro": s.pro, "logprob_anti": s.anti, "log_ratio": s.log_ratio,
            "pro_preferred": s.pro_preferred, "female_share": 100.0 * s.female_share}
