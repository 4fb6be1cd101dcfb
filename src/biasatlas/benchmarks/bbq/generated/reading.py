"""The generated reading's three protocols, chosen by ``--parser`` (issue 38): what is asked, what is recorded,
and how the answers are scored, kept apart from the likelihood reading of :mod:`..benchmark`.

- ``lm-eval-0.4.13`` (:mod:`.lm_eval`, :mod:`.lm_eval_parse`): lm-evaluation-harness's ``bbq_generate``, en and mbbq-en;
- ``kobbq`` (:mod:`.kobbq`): KoBBQ's five prompts × three cyclic option orders, its answer rule, the
  mean over prompts (Jin et al. 2024, ``evaluation/``);
- ``mbbq`` (:mod:`.mbbq`, :mod:`.mbbq_upstream`): MBBQ's five prompts per language and its answer
  detection, read at run time from the authors' file (Neplenbroek et al. 2024).

``auto`` (the default) takes the dataset's own: kobbq on kobbq, mbbq on mbbq-nl, mbbq-es and mbbq-tr, and
lm-eval's rule on en and mbbq-en (English, as it always read them); the rule used is what config.json records.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from ....errors import UsageError
from ....probes import Answer, Probe
from ....scorers.generation import STOP_RULE
from ...chat import NONE
from ...contract import BenchmarkResult
from ...options import UNRECORDED
from . import kobbq, lm_eval, mbbq, mbbq_upstream
from ..data import LANGUAGE, Example
from ..evaluation import summarise
from ..summary import BBQRunSummary

#: The datasets each explicit rule reads (``auto`` resolves to the dataset's own).
READS: dict[str, tuple[str, ...]] = {"lm-eval-0.4.13": ("en", "mbbq-en"), "kobbq": ("kobbq",),
                                     "mbbq": ("mbbq-en", "mbbq-nl", "mbbq-es", "mbbq-tr")}


def own_rule(dataset: str) -> str:
    """``auto``'s rule for ``dataset`` (module docstring)."""
    if dataset == "kobbq":
        return "kobbq"
    return "mbbq" if dataset in ("mbbq-nl", "mbbq-es", "mbbq-tr") else "lm-eval-0.4.13"


class GeneratedReading:
    """The BBQ benchmark's generated reading (a mixin of :class:`..benchmark.BBQ`, whose options it reads)."""

    dataset: str
    answers: str
    parser: str
    rule: str
    options: str
    max_new_tokens: int | None
    kobbq_prompts: str
    mbbq_prompts: str
    n_resamples: int
    seed: int
    prompt: Callable[..., str]
    messaged: Callable[[list[Probe]], list[Probe]]
    chat_label: Callable[[], str]

    @property
    def reading(self) -> str:
        """How an option was read (:attr:`..benchmark.BBQ.reading` says)."""
        raise NotImplementedError

    @property
    def parse_rule(self) -> str:
        """The rule in use: ``--parser``, with ``auto`` resolved for the dataset."""
        return own_rule(self.dataset) if self.parser == "auto" else self.parser

    def check_generated(self) -> None:
        """A rule reads only its datasets, and its own prompt choice; the likelihood options stay at defaults."""
        rule = self.parse_rule
        if self.answers != "generated":
            if self.parser not in ("auto", "lm-eval-0.4.13"):
                raise UsageError(f"--parser {self.parser} maps generated answers: add --answers generated")
            return
        if self.dataset not in READS[rule]:
            raise UsageError(f"--answers generated with --parser {rule} reads {', '.join(READS[rule])}, not "
                             f"{self.dataset} (--parser auto takes each dataset's own rule)")
        if self.rule != "sum" or self.options != "3":
            raise UsageError("--answers generated reads what the model writes: leave --rule and --options at their "
                             "defaults (sum, 3)")
        kobbq.chosen_prompts(self.kobbq_prompts)
        try:
            mbbq.parse_prompts(self.mbbq_prompts)
        except ValueError as error:
            raise UsageError(str(error)) from None

    @property
    def new_tokens(self) -> int:
        """``--max-new-tokens`` as set, else the rule's: lm-eval's 32 (ours, below its 256), KoBBQ's 30, MBBQ's 100."""
        if self.max_new_tokens is not None:
            return self.max_new_tokens
        return {"kobbq": kobbq.MAX_NEW_TOKENS, "mbbq": mbbq.MAX_NEW_TOKENS}.get(self.parse_rule, 32)

    @property
    def kobbq_prompt_ids(self) -> tuple[str, ...]:
        return kobbq.chosen_prompts(self.kobbq_prompts)

    @property
    def mbbq_prompt_numbers(self) -> tuple[int, ...]:
        return mbbq.parse_prompts(self.mbbq_prompts)

    def generation_provenance(self) -> dict[str, Any]:
        """The generated reading's settings and stop rule; none of them in a likelihood run's config."""
        unasked = {"kobbq_prompts": UNRECORDED, "mbbq_prompts": UNRECORDED}
        if self.answers == "likelihood":
            return {"answers": UNRECORDED, "parser": UNRECORDED, "max_new_tokens": UNRECORDED, **unasked}
        rule = self.parse_rule
        common = {"answers": self.answers, "parser": rule, "max_new_tokens": self.new_tokens, **unasked}
        if rule == "kobbq":
            return {**common, "kobbq_prompts": ",".join(self.kobbq_prompt_ids),
                    "prompts": {p: kobbq.template_text(p) for p in self.kobbq_prompt_ids},
                    "stop": list(kobbq.STOP), "generation": STOP_RULE}
        if rule == "mbbq":
            # the authors' file the forms, phrases and prompts were read from, beside the data's files; its
            # sha256 on its own, so runs pair only on the same prompts and phrases (spec.pairing_keys)
            tables = mbbq_upstream.load()
            return {**common, "mbbq_prompts": self.mbbq_prompts, "stop": list(mbbq.STOP),
                    "generation": STOP_RULE,
                    "mbbq_upstream": {"file": tables.path, "url": mbbq_upstream.DETECTION.url,
                                      "pinned_sha256": mbbq_upstream.DETECTION.sha256},
                    "mbbq_upstream_sha256": tables.sha256}
        return {**common, "stop": list(lm_eval.STOP), "generation": STOP_RULE}

    def generated_probes(self, items: Sequence[Example]) -> list[Probe]:
        """The rule's generation probes, each prompt rendered for the scorer (its chat template or none)."""
        def render(text: str) -> str:
            return self.prompt(text, "", generated=True)
        rule = self.parse_rule
        if rule == "kobbq":
            return self.messaged(kobbq.probes(items, self.kobbq_prompt_ids, self.new_tokens, render))
        if rule == "mbbq":
            return self.messaged(mbbq.probes(items, self.mbbq_prompt_numbers, LANGUAGE[self.dataset],
                                                       self.new_tokens, render, mbbq_upstream.load()))
        return self.messaged(lm_eval.probes(items, self.new_tokens, render))

    def score_generated(self, items: Sequence[Example], answers: Mapping[str, Answer]) -> BenchmarkResult:
        """The answers parsed by the rule and scored by the likelihood path's own code (:mod:`..evaluation`)."""
        rule = self.parse_rule
        if rule == "kobbq":
            sets, prompts, records, skipped = kobbq.scored(
                items, answers, self.kobbq_prompt_ids, n_resamples=self.n_resamples, seed=self.seed)
            return BenchmarkResult(BBQRunSummary(
                sets.get("overall"), sets, {}, len(skipped), self.rule, self.reading, self.dataset, self.options,
                parser=rule, unparsed=sum(p.unparsed or 0 for p in prompts.values()), prompts=prompts,
                chat_template=self.labelled()), records, skipped)
        if rule == "mbbq":
            return self._score_mbbq(items, answers)
        outcomes, records, skipped, unparsed = lm_eval.parsed(items, answers, rule)
        summary = summarise(outcomes, n_resamples=self.n_resamples, seed=self.seed, n_skipped=len(skipped),
                            rule=self.rule, reading=self.reading, dataset=self.dataset, options=self.options)
        return BenchmarkResult(replace(summary, unparsed=unparsed, parser=rule, chat_template=self.labelled()),
                               records, skipped)

    def _score_mbbq(self, items: Sequence[Example], answers: Mapping[str, Answer]) -> BenchmarkResult:
        """MBBQ's protocol: every prompt's detected answers pooled, and each prompt's own scores."""
        numbers = self.mbbq_prompt_numbers
        found, records, skipped = mbbq.parsed(items, answers, numbers, LANGUAGE[self.dataset],
                                                         mbbq_upstream.load())
        summary = summarise([o for _, o in found], n_resamples=self.n_resamples, seed=self.seed,
                            n_skipped=len(skipped), rule=self.rule, reading=self.reading, dataset=self.dataset,
                            options=self.options)
        prompt_sets = mbbq.per_prompt(found, numbers, n_resamples=self.n_resamples, seed=self.seed)
        undetected = mbbq.undetected(records, numbers)
        return BenchmarkResult(replace(summary, unparsed=sum(undetected.values()), parser="mbbq",
                                       prompt_sets=prompt_sets, undetected=undetected,
                                       chat_template=self.labelled()), records, skipped)

    def labelled(self) -> str | None:
        """The chat template's label for the summary (:meth:`...chat.ChatOptions.chat_label`); None (not
        written) where there is nothing to say: plain text to a scorer that knows no template (fake, masked)."""
        label = self.chat_label()
        return None if label == NONE else label
