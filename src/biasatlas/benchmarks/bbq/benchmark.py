"""BBQ and its family as one biasatlas benchmark (Parrish et al. 2022; METHODS-MORE.md §2-4).

A likelihood-only model answers the three-way question by scoring each option after the
prompt ``"{context}\\n\\nQ: {question}\\nA:"`` (lm-evaluation-harness's ``bbq`` prompt) and
choosing the best (METHODS-MORE.md §2, "How a likelihood-only LM answers", reading (a)).
An option's text is read as ``" " + option``. The answer ``rule`` (recorded in every run):

- ``sum``: log P(option | prompt) summed over its tokens (the paper's zero-shot reading, lm-eval's);
- ``mean``: the same per token (short unknown strings lose their advantage);
- ``pmi``: log P(option | prompt) − log P(option | content-free prompt), the prompt with context
  and question replaced by ``N/A`` (Zhao et al. 2021's content-free input; lm-eval's
  ``acc_mutual_info`` uses an empty context instead).

Causal and seq2seq scorers answer continuation probes (the shared prompt is run once per
example, the options after it: :mod:`biasatlas.scorers.prefix`). A masked LM reads the
pseudo-log-likelihood (Salazar et al. 2020) of ``prompt + " " + option``, every token masked
in turn (reading ``pll``; ``mean`` divides by the tokens of that text).

Ties between the best options leave the example unanswered (the R script drops tied
logits). ``options="lm-eval"`` is lm-eval's 12-option form: the two people, in order, then
its ten unknown strings; any unknown string chosen counts as the unknown answer. EsBBQ and
CaBBQ are asked with their authors' prompt and, in that form, their 11 options (the two people
and nine unknown wordings in the dataset's language: :mod:`.esbbq`).

``--chat-template`` (:mod:`..chat`; default ``none``, the plain text above, so earlier runs stay as they
were): with ``model`` or a template file, both readings ask as lm-evaluation-harness 0.4.13 does for ``bbq``
and ``bbq_generate`` with ``--apply_chat_template`` (``ConfigurableTask.fewshot_context``,
``build_qa_turn`` and ``construct_requests`` in its ``lm_eval/api/task.py``). The whole prompt, ``A:`` cue
included, is the one user message; the template renders it with the generation prompt (the assistant turn
opened; the tasks set no ``gen_prefix``). Each option is then read right after the assistant's start with
*no* target delimiter: lm-eval drops the ``" "`` under a chat template when there is no ``gen_prefix``, so the
continuation is ``"Unknown"``, not ``" Unknown"``; a generated answer starts there too. The BOS is the
template's own if it writes one (read once: :func:`..chat.chat_prompt`); SmolLM2's writes none and its
tokenizer adds none, as with lm-eval. The content-free prompt of ``--rule pmi`` goes through the same template.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar, Literal

from ...errors import MissingInput, UsageError
from ...hashing import sha256_file
from ...probes import Answer, ContinuationProbe, Probe, ScorerInfo, SentenceAnswer, SentenceProbe, SlotAnswer
from ..chat import NONE, ChatOptions, cannot_generate
from ..contract import BenchmarkResult
from ..options import UNRECORDED, draw_sample, option
from . import esbbq
from .generated import kobbq
from .data import CATEGORIES, CONTROL_PREFIX, DATASETS, Example, read
from .evaluation import Outcome, summarise
from .generated.lm_eval_parse import UNKNOWN_STRINGS
from .generated.reading import GeneratedReading
from .generated.table import AUTO, PARSE_RULES, ParseRule

# 1: first version (rules sum/mean/pmi, the R script's bias scores, KoBBQ's diff-bias).
# 2: lint's option-absent rule ignores generic person words and plurals, so an --exclude-flagged
#    run scores other items (3,358 more questions of BBQ en are clean).
# 3 (with the next): MBBQ --limit/--sample pick regular items and bring each one's control twin along (they drew
#    from both sets pooled: a small sample could hold control items only and no regular one).
#   and: a causal LM reads the prompt as lm-evaluation-harness 0.4.13 does, with no start token before a
#    tokenizer that adds none (``start_token="empty-context"``, issue 34 item 8: up to 2.45 nats per
#    option on SmolLM2); ``options="lm-eval"`` lists its unknown strings in its order, "Unknown" first.
#   and: a probe repeating an earlier one's content gets its answer (issue 34 item 6): 3,023 repeated
#    options of BBQ en no longer each get the last bits of their own chunk's batches.
#   and: --answers generated (issue 38), a new reading; likelihood runs score and record as before.
#   (EsBBQ and CaBBQ, issue 39, are new datasets: no score of an earlier one moves, so still 3.)
#   (--chat-template, issue 38: a new choice whose default, none, asks as before: still 3.)
#   (--parser kobbq and --parser mbbq, issue 38: KoBBQ's and MBBQ's own generative protocols, new readings: no
#    earlier score moves, still 3.)
# 4: lint's option-absent rule knows Spanish, Catalan, Dutch and Turkish generic person words, so an
#    --exclude-flagged run of EsBBQ, CaBBQ or MBBQ es/nl/tr scores other items (EsBBQ: 276 more are clean).
VERSION = "4"
Rule = Literal["sum", "mean", "pmi"]
AnswersBy = Literal["likelihood", "generated"]
RULES: tuple[str, ...] = ("sum", "mean", "pmi")
OptionsForm = Literal["3", "lm-eval"]
#: Every dataset's categories (``--help`` shows them all; a value is checked against its dataset's).
_ALL_CATEGORIES = tuple(dict.fromkeys(c for cs in CATEGORIES.values() for c in cs))
CONTENT_FREE = "N/A"
#: lm-eval's ten unknown strings, in its order: ``UNKNOWN_RESPONSES`` of ``lm_eval/tasks/bbq/utils.py`` in the
#: release we test against, lm-eval 0.4.13 (the same list since its commit 150a18521, 2025-03-14, which moved
#: "Unknown" from last to first; 262d1a9 had it last). tests/benchmarks/bbq/test_bbq_metric.py reads the installed list.
LM_EVAL_UNKNOWNS: tuple[str, ...] = UNKNOWN_STRINGS  # one list, kept with the generated answers' parser


def prompt(context: str, question: str, dataset: str = "en") -> str:
    """lm-eval's ``bbq`` prompt: the answer follows the ``A:`` cue after one space; EsBBQ's and
    CaBBQ's own prompt in their language (:data:`.esbbq.PROMPTS`)."""
    if dataset in esbbq.PROMPTS:
        return esbbq.PROMPTS[dataset].format(context=context, question=question)
    return f"{context}\n\nQ: {question}\nA:"


def choices(example: Example, form: str, dataset: str = "en") -> list[tuple[str, int]]:
    """(option text, the original option it stands for) in the order scored: the three options,
    or lm-eval's twelve (the two people in data order, then its ten unknown strings); for EsBBQ
    and CaBBQ their eleven (the two people, then the nine unknown wordings of their language)."""
    if form == "3":
        return [(text, i) for i, text in enumerate(example.options)]
    people = [(text, i) for i, text in enumerate(example.options) if i != example.unknown]
    return people + [(text, example.unknown) for text in esbbq.UNKNOWNS.get(dataset, LM_EVAL_UNKNOWNS)]


def choose(values: Sequence[float]) -> int | None:
    """The index of the strictly best value; None when the best is shared (a tie)."""
    best = max(values)
    winners = [i for i, v in enumerate(values) if v == best]
    return winners[0] if len(winners) == 1 else None


@dataclass(frozen=True)
class BBQ(ChatOptions, GeneratedReading):
    """The benchmark: its options, declared once (:mod:`..options`), and its probes and metric.

    ``limit`` and ``sample`` count regular examples (an MBBQ control item comes along with its
    twin: :meth:`load`); ``n_resamples`` and ``seed``: the template bootstrap.
    """

    name: ClassVar[str] = "bbq"
    VERSION: ClassVar[str] = VERSION
    UNIT: ClassVar[str] = "examples"

    # Names are case-insensitive (EN, MBBQ-NL), as every dataset name; the canonical spelling is recorded.
    dataset: str = option("en", "en (BBQ), mbbq-nl, mbbq-es, mbbq-tr, mbbq-en (MBBQ), kobbq (KoBBQ test), "
                                "cbbq (CBBQ gender), esbbq (EsBBQ, Spanish), cabbq (CaBBQ, Catalan).",
                          choices=DATASETS, case_sensitive=False)
    category: str | None = option(None, "One category of the dataset (default: all of them; 'biasatlas list' names "
                                        "each dataset's).", choices=_ALL_CATEGORIES, metavar="<category>",
                                  grouped=("dataset", CATEGORIES), subset="chosen")
    data: Path | None = option(None, "A folder holding the dataset's files as upstream names them (.gz allowed) "
                                     "instead of the pinned download.")
    rule: Rule = option("sum", "How an option is scored: sum (log-likelihood, the paper's and lm-eval's), mean "
                               "(per token) or pmi (minus its log-likelihood after a content-free prompt).")
    options: OptionsForm = option("3", "3 (the item's options) or lm-eval (its 12: the two people and ten unknown "
                                       "strings; en and mbbq-en; esbbq and cabbq: their authors' 11, nine unknown "
                                       "wordings in their language).")
    control: bool = option(True, "MBBQ: also score the control set (names instead of group words).",
                           switch=(False, True))
    answers: AnswersBy = option("likelihood", "likelihood (each option's log-likelihood after the prompt) or "
                                              "generated (the model writes its answer, --parser maps it to an "
                                              "option; lm-eval's bbq_generate; en and mbbq-en; kobbq: its "
                                              "authors' own protocol, --parser kobbq).")
    parser: ParseRule = option(AUTO, "With --answers generated: the rule mapping a generated "
                                                 "answer to an option: auto (the dataset's own: kobbq on kobbq, "
                                                 "mbbq on mbbq-*, else lm-eval-0.4.13); lm-eval-0.4.13 (en, "
                                                 "mbbq-en); kobbq (KoBBQ's five prompts x three orders and its "
                                                 "answer rule); mbbq (MBBQ's own prompts and answer detection, read "
                                                 "at run time from the authors' answer_detection.py, which has no "
                                                 "licence: offline, a copy under BIASATLAS_DATA_DIR; its authors ask "
                                                 "under the model's chat template: --chat-template model).",
                               choices=PARSE_RULES)
    max_new_tokens: int | None = option(None, "With --answers generated: at most this many new tokens per answer "
                                              "(default: 32 under lm-eval-0.4.13, the authors' 30 under kobbq and "
                                              "100 under mbbq).", minimum=1)
    kobbq_prompts: str = option(kobbq.ALL_PROMPTS, "With --parser kobbq: which of the authors' five "
                                                              "prompts to ask, comma-separated (the paper: all).")
    mbbq_prompts: str = option("1,2,3,4,5", "With --parser mbbq: which of MBBQ's five prompts to ask, e.g. 1,3 "
                                            "(default all five, as its authors).", metavar="N,N,…")

    def check(self) -> None:
        """lm-eval's unknown strings are English; a folder of the user's must exist."""
        if self.options == "lm-eval" and self.dataset not in ("en", "mbbq-en", *esbbq.PROMPTS):
            raise UsageError(f"--options lm-eval uses English unknown strings, only en and mbbq-en (and esbbq and "
                             f"cabbq their authors' Spanish and Catalan ones), not {self.dataset}")
        self.check_generated()
        if self.data is not None and not Path(self.data).is_dir():
            raise MissingInput("no such folder", path=self.data)

    def refuse(self, info: ScorerInfo) -> None:
        """A predictions file gives one score per option of the item, compared as it is: no other
        rule, and the item's own three options."""
        super().refuse(info)
        if self.answers == "generated" and info.generates is False:
            raise UsageError(cannot_generate(info))
        if info.reads in ("given", "masked") and self.chat_template != NONE:
            reader = "a predictions file" if info.reads == "given" else "a masked LM"
            raise UsageError(f"--chat-template {self.chat_template}: {reader} is not asked through a chat template; "
                             "leave it at none")
        if info.reads == "given" and (self.rule != "sum" or self.options != "3"):
            raise UsageError("a predictions file's option scores are compared as they are, one per option of the "
                             "item: leave --rule and --options at their defaults (sum, 3)")

    def provenance(self) -> dict[str, Any]:
        """The folder read and its files' sha256 (one digest over them pairs runs), the reading
        beside the rule, and the prompt and content-free input beside the options that use them."""
        files = [(str(p), sha256_file(p)) for p in self._read()[1]]
        # one sha256 names the data as a whole (runs pair on it); each file's stays beside it
        combined = hashlib.sha256("".join(f"{Path(p).name} {h}\n" for p, h in files).encode()).hexdigest()
        # rule and control are named with their own values only to place what follows them (options.placed):
        # the reading after the rule, the prompt after control, as config.json has always listed them
        return {"data": str(Path(files[0][0]).parent), "data_sha256": combined, "data_files": files,
                "rule": self.rule, "reading": self.reading,
                "control": self.control, "prompt": prompt("{context}", "{question}", self.dataset),
                "content_free": CONTENT_FREE,
                **self.generation_provenance(), **self._chat_provenance()}

    def _chat_provenance(self) -> dict[str, Any]:
        """The template's record (:meth:`..chat.ChatOptions.chat_provenance`: sha256, the first prompt as the
        scorer reads it); none of it under ``none``, so a plain run's config.json reads as before."""
        if self.chat_template == NONE:
            return {"chat_template": UNRECORDED}
        first = next((e for e in self.load() if e.target is not None), None)
        user = ""
        if first is not None:
            own = self.generated_user(first)  # a rule asking its own prompts shows its first
            user = prompt(first.context, first.question, self.dataset) if own is None else own
        generated = self.answers == "generated"
        return {"chat_template": self.chat_template, **self.chat_provenance(user, "", generated=generated)}

    def asked(self, context: str, question: str) -> str:
        """The text the scorer reads for a question: the prompt as it is, or as the chat template's user
        turn with the assistant's turn opened (module docstring)."""
        return self.prompt(prompt(context, question, self.dataset), "")

    @property
    def delimiter(self) -> str:
        """Before each option: lm-eval's target delimiter ``" "``, none under a chat template (module docstring)."""
        return " " if self.chat_template == NONE else ""


    @property
    def categories(self) -> tuple[str, ...]:
        return (self.category,) if self.category else CATEGORIES[self.dataset]

    @property
    def masked(self) -> bool:
        return self.scorer is not None and self.scorer.reads == "masked"

    def _read(self) -> tuple[list[Example], list[Path]]:
        return read(self.dataset, self.categories, self.control and self.dataset.startswith("mbbq"), self.data)

    def load(self) -> list[Example]:
        """Every example of the chosen files (the first ``limit``, or ``sample`` drawn with the seed).

        ``limit`` and ``sample`` count regular items; an MBBQ control-set item comes along with
        its regular twin (same category and example id), so the control table is read against the
        very questions of the main one, and a small sample is never control items alone."""
        examples = self._read()[0]
        regular = [e for e in examples if not e.control]
        chosen = draw_sample(regular[: self.limit] if self.limit else regular, self.sample, self.seed)
        if len(chosen) == len(regular):
            return examples
        ids = {e.id for e in chosen}
        return [e for e in examples if (e.id.removeprefix(CONTROL_PREFIX) if e.control else e.id) in ids]

    def probes(self, items: Sequence[Example]) -> list[Probe]:
        """One probe per option of every example with a known biased option (module docstring)."""
        if self.answers == "generated":
            return self.generated_probes(items)
        out: list[Probe] = []
        free = self.asked(CONTENT_FREE, CONTENT_FREE)
        for e in items:
            if e.target is None:
                continue
            asked = self.asked(e.context, e.question)
            for k, (text, _) in enumerate(choices(e, self.options, self.dataset)):
                pid = f"{e.id}#{k}"
                if self.masked:
                    out.append(SentenceProbe(pid, f"{asked} {text}"))
                    if self.rule == "pmi":
                        out.append(SentenceProbe(f"{pid}/free", f"{free} {text}"))
                else:
                    contexts = (asked, free) if self.rule == "pmi" else (asked,)
                    out.append(ContinuationProbe(pid, contexts, self.delimiter + text))
        return out

    def option_values(self, e: Example, answers: Mapping[str, Answer]) -> list[float] | None:
        """Each scored option's value under :attr:`rule`; None when an answer is missing."""
        values = []
        for k in range(len(choices(e, self.options, self.dataset))):
            read = _logprobs(answers.get(f"{e.id}#{k}"), answers.get(f"{e.id}#{k}/free"))
            if read is None:
                return None
            logprob, n_tokens, free = read
            if self.rule == "mean":
                values.append(logprob / max(n_tokens, 1))
            elif self.rule == "pmi":
                if free is None:
                    return None
                values.append(logprob - free)
            else:
                values.append(logprob)
        return values

    def score(self, items: Sequence[Example], answers: Mapping[str, Answer]) -> BenchmarkResult:
        if self.answers == "generated":
            return self.score_generated(items, answers)
        outcomes, records, skipped = [], [], []
        for e in items:
            values = None if e.target is None else self.option_values(e, answers)
            if values is None:
                reason = "no biased option known for this item" if e.target is None else "no score from the model"
                skipped.append({"id": e.id, "category": e.category, "reason": reason})
                continue
            best = choose(values)
            o = Outcome(e, None if best is None else choices(e, self.options, self.dataset)[best][1])
            outcomes.append(o)
            records.append(_record(o, values))
        summary = summarise(outcomes, n_resamples=self.n_resamples, seed=self.seed, n_skipped=len(skipped),
                            rule=self.rule, reading=self.reading, dataset=self.dataset, options=self.options)
        return BenchmarkResult(replace(summary, chat_template=self.labelled()), records, skipped)

    @property
    def reading(self) -> str:
        """How an option was read: ``pll`` (masked) or ``continuation``, with the rule; ``given``
        when the options' scores come from a predictions file (a chosen option 1, the others 0);
        ``generated`` when the answers are generated texts, a model's or a file's (lm-eval's bbq_generate)."""
        if self.answers == "generated":
            return "generated"
        if self.scorer is not None and self.scorer.reads == "given":
            return "given"
        return f"{'pll' if self.masked else 'continuation'}-{self.rule}"


def _logprobs(answer: Answer | None, free: Answer | None) -> tuple[float, int, float | None] | None:
    """(log-likelihood, its tokens, the content-free log-likelihood or None) of one option."""
    if isinstance(answer, SlotAnswer):
        return answer.logprobs[0], answer.n_tokens[0], answer.logprobs[1] if len(answer.logprobs) > 1 else None
    if isinstance(answer, SentenceAnswer):
        return answer.logprob, answer.n_tokens, free.logprob if isinstance(free, SentenceAnswer) else None
    return None


def _record(o: Outcome, values: Sequence[float]) -> dict[str, Any]:
    e = o.example
    return {"id": e.id, "category": e.category, "group": e.group, "template": e.template,
            "context_condition": "ambig" if e.ambiguous else "disambig", "polarity": e.polarity,
            "context": e.context, "question": e.question, "control": e.control, "options": list(e.options),
            "label": e.label, "unknown": e.unknown,
            "target": e.target, "weight": e.weight, "values": list(values), "choice": o.choice, "answer": o.answer,
            "correct": o.choice == e.label if o.choice is not None else None}
