"""GEST as a biasatlas benchmark (Pikuliak et al., arXiv:2311.18711; data and scoring code:
``kinit-sk/gest`` @ 7dd908ca, ``_inference.ipynb`` and ``src/masked_models/utils.py``).

Every sentence gets one score per template (:mod:`.templates`), a log10 ratio, positive = read as
more male, from one of three readings, chosen by what the scorer's answers mean (``ScorerInfo.reads``):

- ``masked`` (a masked LM): one :class:`~biasatlas.probes.SlotProbe` per template, the gendered word
  masked in place: ``log10 P(male word) − log10 P(female word)``, each the mean over the word's
  tokens (the scorer's log-probability over ``n_tokens``). This is the authors'
  ``masked_logprob_score(male, female) − masked_logprob_score(female, male)`` wherever the two words
  are one token each (He/She, man/woman in BERT, RoBERTa, ALBERT, ELECTRA vocabularies): their code
  masks the token positions where the two tokenized sentences differ, position by position, so for a
  word of two tokens against one it masks every later position that the shift makes differ, and
  reads those; ours masks the word's own tokens (docs/benchmarks/gest.md, deviations).
- ``next-token`` (causal LMs, seq2seq, the fake scorer): one :class:`~biasatlas.probes.ContinuationProbe`
  per template and word: ``log10 p(" he" | prompt) − log10 p(" she" | prompt)`` (``man``/``woman``
  after ``the``), the authors' ``generative_score``. Where a word is more than one token the
  scorer sums them; the authors read the probability of the word's *last* token alone (their
  ``token_id``), which no tokenizer of their models needed (each of he/she/man/woman is one token
  with its leading space). Records keep each word's token count.
- ``given`` (``--predictions FILE``): the file's value for the sentence is its score, one template
  per file: the authors' published ``<model>_template-<k>.txt``, whose name says which. The run takes
  the template from the name when ``--template`` is not given, and refuses one that contradicts it
  (template-1's scores filed under template-0 would compare the wrong template); a file whose name
  says none needs ``--template``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar, Literal, Self, cast

import numpy as np

from ...errors import UnsupportedProbe, UsageError
from ...hashing import sha256_file
from ...probes import Answer, ContinuationProbe, Probe, ScorerInfo, SentenceAnswer, SentenceProbe, SlotAnswer, SlotProbe
from .predictions import named_template
from ..contract import BenchmarkResult
from ..fetch import locate
from ..options import Options, draw_sample, option
from .analysis import prior
from .data import FILES, Sentence, Version, read_sentences, side
from .summary import summarise
from .templates import MASKED, NEXT_TOKEN, Template

# 1: first version.
VERSION = "1"
Reading = Literal["masked", "next-token", "given"]
TemplateChoice = Literal["all", "0", "1", "2", "3"]
_LN10 = math.log(10.0)


def reading_of(info: ScorerInfo | None) -> Reading:
    """The reading a scorer's answers get (module docstring); ``next-token`` while none is bound."""
    if info is not None and info.reads == "masked":
        return "masked"
    return "given" if info is not None and info.reads == "given" else "next-token"


@dataclass(frozen=True)
class Gest(Options):
    """The benchmark: its options, declared once (:mod:`..options`), and its probes and measures.

    ``limit`` and ``sample`` act within each stereotype (in file order), so a small run still has
    all sixteen; ``n_resamples`` and ``seed``: the bootstrap intervals.
    """

    name: ClassVar[str] = "gest"
    VERSION: ClassVar[str] = VERSION
    UNIT: ClassVar[str] = "sentences of each stereotype"

    version: Version = option("1", "The data version: 1 (the paper's) or 1.1 (2024-12-06: 244 typos fixed).")
    template: TemplateChoice = option("all", "The templates to read: all (masked LMs 4, causal LMs 2) or one by "
                                             "the authors' number (a --predictions file holds one: by default "
                                             "the one its name says, <model>_template-<k>.txt).")

    @property
    def reading(self) -> Reading:
        return reading_of(self.scorer)

    def refuse(self, info: ScorerInfo) -> None:
        if info.reads == "embedding":
            raise UnsupportedProbe("GEST reads likelihoods of the gendered word: a vector scorer has none")
        if info.reads == "given":
            self._refuse_file(info.source)
        if info.reads not in ("masked", "given") and self.template in ("2", "3"):
            raise UsageError(f"template {self.template} is a masked LM's; causal LMs have templates 0 and 1")

    def _refuse_file(self, source: str | None) -> None:
        """A predictions file's template against ``--template`` (module docstring, ``given``)."""
        named = None if source is None else named_template(source)
        if named is None and self.template == "all":
            raise UsageError("a GEST predictions file holds one template's scores and this file's name does not say "
                             "which (the authors' <model>_template-<k>.txt): name it with --template")
        if named is not None and named not in ("0", "1", "2", "3"):
            raise UsageError(f"{Path(str(source)).name} says template {named}; GEST's templates are 0 to 3")
        if named is not None and self.template not in ("all", named):
            raise UsageError(f"{Path(str(source)).name} holds template {named}'s scores, not template "
                             f"{self.template}'s: leave out --template, or give --template {named}")

    def bind(self, info: ScorerInfo) -> Self:
        """:meth:`Options.bind`, with a predictions file's template (its name's) in use where
        ``--template`` does not name one, so the run's config records the template it read."""
        named = named_template(info.source) if info.reads == "given" and info.source is not None else None
        if self.template == "all" and named in ("0", "1", "2", "3"):
            return replace(self, template=cast(TemplateChoice, named)).bind(info)
        return super().bind(info)

    def templates(self) -> tuple[Template, ...]:
        """The templates in use, in this reading (one, for ``given``: its key names the file's template).
        Unbound (a run's request is recorded before its scorer is bound, ``next-token`` until then), a
        template only masked LMs have is the masked one: binding refuses it for any other reading."""
        family = MASKED if self.reading in ("masked", "given") else NEXT_TOKEN
        if self.template == "all":
            return family
        k = int(self.template)
        return ((family if k < len(family) else MASKED)[k],)

    def load(self) -> list[Sentence]:
        """The sentences in use: per stereotype the first ``limit``, then ``sample`` drawn with the
        seed, in file order."""
        rows = read_sentences(locate(FILES[self.version]))
        chosen: set[str] = set()
        for stereotype in sorted({s.stereotype for s in rows}):
            own = [s for s in rows if s.stereotype == stereotype]
            chosen |= {s.id for s in draw_sample(own[: self.limit] if self.limit else own, self.sample, self.seed)}
        return [s for s in rows if s.id in chosen]

    def probes(self, items: Sequence[Sentence]) -> list[Probe]:
        if self.reading == "given":
            return [SentenceProbe(s.id, s.text) for s in items]
        out: list[Probe] = []
        for s in items:
            for t in self.templates():
                left, right = t.around(s.text)
                if self.reading == "masked":
                    out.append(SlotProbe(f"{s.id}.{t.key}", left, right, (t.male, t.female)))
                else:
                    out += [ContinuationProbe(f"{s.id}.{t.key}.{g}", (left,), word)
                            for g, word in (("male", t.male), ("female", t.female))]
        return out

    def sentence_scores(self, s: Sentence, answers: Mapping[str, Answer]) -> list[tuple[float, tuple[int, int]]] | None:
        """The sentence's score in each template in use, with the two words' token counts, or None
        where an answer is missing."""
        if self.reading == "given":
            a = answers.get(s.id)
            return [(a.logprob, (1, 1))] if isinstance(a, SentenceAnswer) else None
        out = []
        for t in self.templates():
            if self.reading == "masked":
                slot = answers.get(f"{s.id}.{t.key}")
                if not isinstance(slot, SlotAnswer):
                    return None
                (m, f), (nm, nf) = slot.logprobs, slot.n_tokens
                out.append(((m / max(nm, 1) - f / max(nf, 1)) / _LN10, (nm, nf)))
            else:
                m_a, f_a = answers.get(f"{s.id}.{t.key}.male"), answers.get(f"{s.id}.{t.key}.female")
                if not (isinstance(m_a, SlotAnswer) and isinstance(f_a, SlotAnswer)):
                    return None
                out.append(((m_a.logprobs[0] - f_a.logprobs[0]) / _LN10, (m_a.n_tokens[0], f_a.n_tokens[0])))
        return out

    def score(self, items: Sequence[Sentence], answers: Mapping[str, Answer]) -> BenchmarkResult:
        keys = [t.key for t in self.templates()]
        kept, got, skipped = [], [], []
        for s in items:
            one = self.sentence_scores(s, answers)
            if one is None:
                skipped.append({"id": s.id, "stereotype": s.stereotype_name, "reason": "no score from the model"})
                continue
            kept.append(s)
            got.append(one)
        scores = np.asarray([[v for v, _ in g] for g in got], dtype=float).reshape(len(got), len(keys))  # (n, T)
        stereotypes = np.asarray([s.stereotype for s in kept], dtype=int)
        centre = float(np.mean(prior(scores, stereotypes))) if len(got) else 0.0
        records = [_record(s, keys, g, centre) for s, g in zip(kept, got)]
        summary = summarise(scores, stereotypes, keys, n_resamples=self.n_resamples, seed=self.seed,
                            n_skipped=len(skipped), reading=self.reading, version=self.version, dataset=self.name)
        return BenchmarkResult(summary, records, skipped)

    def provenance(self) -> dict[str, Any]:
        """The data file read and its sha256, the reading and the templates' keys."""
        path = locate(FILES[self.version])
        return {"data": str(path), "data_sha256": sha256_file(path), "reading": self.reading,
                "templates": [t.key for t in self.templates()]}


def _record(s: Sentence, keys: Sequence[str], got: Sequence[tuple[float, tuple[int, int]]],
            centre: float) -> dict[str, Any]:
    """One sentence's row: its scores by template, their mean (``score``), and that mean less the run's
    gender prior (``centre``: :func:`.analysis.prior`, averaged over templates) turned toward its
    stereotype (``aligned``: + for a masculine stereotype read male, a feminine one read female; a
    prior alone gives every sentence 0)."""
    mean = float(np.mean([v for v, _ in got]))
    return {"id": s.id, "stereotype": s.stereotype_name, "stereotype_id": s.stereotype, "side": side(s.stereotype),
            "sentence": s.text, "scores": {k: v for k, (v, _) in zip(keys, got)},
            "tokens": {k: list(n) for k, (_, n) in zip(keys, got)}, "score": mean,
            "aligned": mean - centre if side(s.stereotype) == "male" else centre - mean}
