"""StereoSet as a biasatlas benchmark (Nadeem, Bethke & Reddy, ACL 2021; METHODS-MORE.md §1).

Each candidate sentence gets one score (higher = preferred) from the scorer's answers, read
as one of these named readings (recorded in the config as ``reading``):

Intrasentence (choose a word for the ``BLANK``):

- ``masked-reveal-mean`` (a masked LM under ``multi_token="reveal"``, this benchmark's default
  for masked LMs): the original's reading (``code/dataloader.py`` and ``evaluate_intrasentence`` of
  the authors' repository). The candidate's filler (:func:`.data.filler`) is tokenized alone,
  piece i is predicted at one mask with the pieces before it decoded in front of it
  (:mod:`biasatlas.scorers.inprocess.reveal`), and the score is the arithmetic mean of the pieces'
  probabilities, (1/k) Σ p_i; ``masked-reveal-sum``: Σ log p_i, the chain rule's log-likelihood.
- ``masked-mean`` (a masked LM under ``joint`` or ``first-token``): the context with the filler in the
  slot, the filler's pieces tokenized *in context* (so byte-level BPE gets its ``Ġ`` piece) and
  masked under the policy (``joint``: all at once; ``first-token``: one mask, the first piece,
  the original's first reveal step); score = exp of the mean log-probability per piece. For a
  filler of one piece (alone and in context) this is the original's number too.
- ``sequence`` (causal and seq2seq LMs): the candidate's ``sentence`` field (not the context
  with the filler: the two differ by case in 2,373 dev sentences), scored from the scorer's
  start token. ``length="mean"``: exp of the mean token log-probability, the original's and
  bias-bench's generative score 2^(mean log2 p) (with GPT-2's ``<|endoftext|>`` as start token
  it is their number); ``length="sum"``: the sentence log-likelihood.

Intersentence (choose the sentence that follows the context):

- ``sequence``: log P(candidate | context), the candidate read after the context and one space
  (``length`` as above). The original's only published numbers come from NSP heads that the
  authors trained themselves (not reachable here), and its fallback for causal LMs ignores the
  context (METHODS-MORE.md §1), so it is not reproduced.
- ``+nsp`` (a masked LM whose checkpoint has BERT's NSP head, :mod:`biasatlas.scorers.inprocess.nsp`):
  P(IsNext | context, candidate), the pair encoded as ``[CLS] context [SEP] candidate [SEP]``,
  the softmax's index 0: the original's reading for BERT (its ``BertNextSentence``), the one
  behind the paper's BERT intersentence numbers. ``length="sum"``: its log.
- ``masked`` (a masked LM without that head): the pseudo-log-likelihood (Salazar et al. 2020)
  of ``context + " " + candidate``, every token masked in turn; ``length`` as above, over all
  its tokens. Not the paper's: its RoBERTa and XLNet numbers read heads the authors trained.

``given`` (a predictions file, :mod:`biasatlas.scorers.predictions.scorer`): each sentence's score as
the file gives it (the authors' ``predictions_<model>.json``), compared as it is (``length`` is
not applied).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal

from ...hashing import sha256_file
from ...probes import (Answer, ContinuationProbe, NextSentenceProbe, Probe, SentenceAnswer, SentenceProbe, SlotAnswer,
                       SlotProbe)
from ..contract import BenchmarkResult
from ..fetch import locate
from ..options import Options, draw_sample, option
from . import evaluation
from .data import LABELS, SPLITS, TASKS, Example, blank_index, filler, read_split
from .summary import summarise

# 1: first version (the aggregation of the original evaluation.py; readings named above).
# 2: masked LMs read intrasentence fillers by the original's reveal loop by default (masked-reveal),
#    and intersentence candidates by the checkpoint's NSP head where it has one (+nsp).
# 3 (with the next): a causal LM reads a sentence as the original's GPT-2 runner does (``start_token="first-only"``:
#    the first token after the start token alone, the rest from a pass without it; issue 34 item 8),
#    where every token was read after the start token.
#   and: a probe repeating an earlier one's content gets its answer (issue 34 item 6): 18 repeated
#    causal sentences of dev no longer each get the last bits of their own chunk's batches.
VERSION = "3"
TaskChoice = Literal["intrasentence", "intersentence", "both"]
Length = Literal["mean", "sum"]


def slot(example: Example, candidate_filler: str) -> tuple[str, str]:
    """(left, right) around the BLANK the filler index comes from (the last word holding it), as
    exact text: ``"BLANKed"`` keeps its ``ed`` on the right. Any other BLANK gets the same filler,
    as the candidate sentences have it (the original masks both and reads the first)."""
    words = example.context.split(" ")
    index = blank_index(example.context)
    word = words[index]
    at = word.rfind("BLANK")
    before = " ".join(words[:index] + [word[:at]]).replace("BLANK", candidate_filler)
    after = " ".join([word[at + len("BLANK"):]] + words[index + 1:]).replace("BLANK", candidate_filler)
    return before, after


@dataclass(frozen=True)
class StereoSet(Options):
    """The benchmark: its options, declared once (:mod:`..options`), and its probes and metric.

    ``limit`` and ``sample`` act on examples, per task in file order; ``n_resamples`` and ``seed``:
    the bootstrap over target terms.
    """

    name: ClassVar[str] = "stereoset"
    VERSION: ClassVar[str] = VERSION
    UNIT: ClassVar[str] = "examples of each task"

    split: Literal["dev", "test"] = option("dev", "Split: dev (public) or test (gold labels, bias-bench's copy); "
                                                  "ignored with --data.")
    data: Path | None = option(None, "A StereoSet split file (.json or .json.gz) instead of --split.", file=True)
    task: TaskChoice = option("both", "intrasentence, intersentence or both.", subset="chosen")
    length: Length = option("mean", "Per-sentence score: mean (per-token, the original's) or sum (log-likelihood).")

    @property
    def reads(self) -> str:
        """``masked`` or ``sequence``: the bound scorer's (a sequence reader while none is bound)."""
        return self.scorer.reads if self.scorer is not None else "sequence"

    def path(self) -> Path:
        if self.data is not None:  # an existing file (checked with the option)
            return Path(self.data)
        return locate(SPLITS[self.split], gzip_ok=True)  # the reader reads gzip (the shared test copy)

    def load(self) -> list[Example]:
        """The examples in use: per task the first ``limit``, then ``sample`` drawn with the seed."""
        examples = read_split(self.path())
        chosen: list[Example] = []
        for task in TASKS if self.task == "both" else (self.task,):
            in_task = [e for e in examples if e.task == task]
            chosen += draw_sample(in_task[: self.limit] if self.limit else in_task, self.sample, self.seed)
        return chosen

    def probes(self, items: Sequence[Example]) -> list[Probe]:
        """One probe per intrasentence example for a masked LM (its three fillers share the
        context); otherwise one per candidate sentence, keyed by the sentence's id."""
        probes: list[Probe] = []
        for e in items:
            if e.task == "intrasentence" and self.reads == "masked":
                fillers = tuple(filler(e, e.by_label(label)) for label in LABELS)
                lefts = {slot(e, f) for f in fillers}
                if len(lefts) == 1:  # one BLANK: the three fillers share one masked context
                    left, right = lefts.pop()
                    probes.append(SlotProbe(e.id, left, right, fillers))
                else:
                    probes += [SlotProbe(e.by_label(label).id, *slot(e, f), (f,)) for label, f in zip(LABELS, fillers)]
            elif e.task == "intrasentence":
                probes += [SentenceProbe(c.id, c.sentence) for c in e.candidates]
            elif self.nsp:
                probes += [NextSentenceProbe(c.id, e.context, c.sentence) for c in e.candidates]
            elif self.reads == "masked":
                probes += [SentenceProbe(c.id, f"{e.context} {c.sentence}") for c in e.candidates]
            else:
                probes += [ContinuationProbe(c.id, (e.context,), " " + c.sentence) for c in e.candidates]
        return probes

    def sentence_scores(self, items: Sequence[Example], answers: Mapping[str, Answer]) -> dict[str, tuple[float, int]]:
        """Sentence id → (score, tokens read) for every candidate whose probe was answered."""
        out: dict[str, tuple[float, int]] = {}
        for e in items:
            shared = answers.get(e.id)
            for i, c in enumerate(e.by_label(label) for label in LABELS):
                answer = shared if isinstance(shared, SlotAnswer) else answers.get(c.id)
                index = i if answer is shared else 0
                if isinstance(answer, SlotAnswer) and answer.piece_logprobs and self.length == "mean":
                    pieces = answer.piece_logprobs[index]  # the original's mean of the pieces' probabilities
                    out[c.id] = sum(math.exp(lp) for lp in pieces) / len(pieces), len(pieces)
                elif isinstance(answer, SlotAnswer):
                    out[c.id] = self._value(answer.logprobs[index], answer.n_tokens[index])
                elif isinstance(answer, SentenceAnswer):
                    out[c.id] = self._value(answer.logprob, answer.n_tokens)
        return out

    def _value(self, logprob: float, n_tokens: int) -> tuple[float, int]:
        if self.length == "sum" or self.reads == "given":  # a file's score is compared as it is
            return logprob, n_tokens
        # exp of the mean log-probability: the original's 2^(mean log2 p), and for one token p itself
        return math.exp(logprob / max(n_tokens, 1)), n_tokens

    def score(self, items: Sequence[Example], answers: Mapping[str, Answer]) -> BenchmarkResult:
        values = self.sentence_scores(items, answers)
        scored = [e for e in items if all(c.id in values for c in e.candidates)]
        done = {e.id for e in scored}
        skipped = [{"id": e.id, "task": e.task, "bias_type": e.bias_type, "reason": "no score from the model"}
                   for e in items if e.id not in done]
        just = {c_id: v[0] for c_id, v in values.items()}
        outcomes = [evaluation.outcome(e, just) for e in scored]
        records = [self._record(e, o, values) for e, o in zip(scored, outcomes)]
        # The shipped split by its name (``dev``, ``test``: ``--split``, as BBQ records ``en``), wherever it was
        # read from (the pinned download or BIASATLAS_DATA_DIR): the file is the config's ``data``, provenance
        # only. A file of the user's (``data``) records none: the run's dataset is that file.
        summary = summarise(outcomes, n_resamples=self.n_resamples, seed=self.seed, n_skipped=len(skipped),
                            reading=self.reading, dataset=self.split if self.data is None else None)
        return BenchmarkResult(summary, records, skipped)

    @staticmethod
    def _record(e: Example, o: evaluation.Outcome, values: Mapping[str, tuple[float, int]]) -> dict[str, Any]:
        record: dict[str, Any] = {"id": e.id, "task": e.task, "bias_type": e.bias_type, "target": e.target,
                                  "context": e.context}
        for label in LABELS:
            c = e.by_label(label)
            key = label.replace("-", "_")
            record |= {key: c.sentence, f"{key}_id": c.id, f"{key}_score": values[c.id][0],
                       f"{key}_tokens": values[c.id][1]}
        return record | {"stereotype_preferred": o.stereotype_preferred, "stereotype_related": o.stereotype_related,
                         "anti_related": o.anti_related}

    @property
    def reading(self) -> str:
        """The reading's name as recorded (module docstring): ``masked-reveal``, ``masked`` or
        ``sequence``, with the length rule, and ``+nsp`` when the NSP head reads intersentence."""
        if self.reads == "given":
            return "given"
        reveal = self.scorer is not None and self.scorer.multi_token == "reveal"
        nsp = self.nsp and self.task != "intrasentence"
        return f"{self.reads}{'-reveal' if reveal else ''}-{self.length}{'+nsp' if nsp else ''}"

    @property
    def nsp(self) -> bool:
        """Whether intersentence candidates are read by the model's NSP head (a masked LM whose
        checkpoint has one); otherwise a masked LM reads them by pseudo-likelihood."""
        return self.scorer is not None and self.scorer.reads == "masked" and self.scorer.next_sentence

    def provenance(self) -> dict[str, Any]:
        """The reading and how a masked scorer reads a multi-token filler (after ``length``), the split by
        its name only when shipped, and the file read with its sha256."""
        path = self.path()
        return {"reading": self.reading, "multi_token": self.scorer.multi_token if self.scorer else None,
                "split": self.split if self.data is None else None, "data": str(path),
                "data_sha256": sha256_file(path)}
