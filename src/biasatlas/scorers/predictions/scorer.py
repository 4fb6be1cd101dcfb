"""Saved predictions as a scorer: a run's probes answered from a file, joined by id (DESIGN.md,
"Served models and saved outputs").

A probe's id is an item's id (a CrowS-Pairs pair, a StereoSet sentence) or an item's id and an
option, ``ITEM#k`` (BBQ's options): the file's answer for that id gives the probe its value
(:meth:`~.predicted.Answer.value`). The answers mean what :class:`~biasatlas.probes.ScorerInfo`'s
``reads="given"`` says: each is already the number the benchmark compares, computed by whatever
made the file, so a benchmark applies no length rule or normalisation of its own.

Nothing is dropped silently. :meth:`PredictionsScorer.join` counts, over all of a run's probes,
the ids the run needs that the file lacks (``missing``), those whose answer cannot be read or,
read, cannot answer a probe that asks for it (``unreadable``: a pair's sentences that are not the
data's, three scores for a pair), and the file's ids that no probe asks for (``extra``); above the
shares the user allows (``max_missing`` of the run's ids, ``max_extra`` of the file's; both 0 by default:
a file that does not answer exactly the run's items is refused, and the error says how to allow
it) the run stops before scoring. The counts and every id go to the run folder
(:meth:`Join.skipped`). A file's answers are never written to the score cache
(:attr:`PredictionsScorer.cacheable`): they are not a model's, and the file is their record.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...errors import UsageError
from ...probes import (ContinuationProbe, GenerationAnswer, GenerationProbe, NextSentenceProbe, PairAnswer, PairProbe,
                      Probe, Scored, ScorerInfo, SentenceAnswer, SentenceProbe, SlotAnswer, SlotProbe)
from ..base import Progress, Scorer
from .crows_results import rows_to_ids
from .predicted import Answer, FileAnswers, LmEvalDocs, PredictionFormat
from .files import read

#: How many ids of each list the summary and the terminal show (the run folder lists them all).
SHOWN = 10
MISSING = "missing from the predictions file"
EXTRA = "in the predictions file, asked by no probe of this run"


def probe_key(probe_id: str, known: Iterable[str] | dict[str, Any]) -> tuple[str, int | None]:
    """The file id a probe reads and its option: the probe's own id where the file has it,
    else ``ITEM`` and ``k`` of ``ITEM#k``; the probe's id, option None, when neither is known."""
    if probe_id in known:
        return probe_id, None
    item, sep, option = probe_id.rpartition("#")
    if sep and option.isdigit():
        return item, int(option)
    return probe_id, None


@dataclass(frozen=True)
class Join:
    """How a file's ids meet a run's: the ids the run asks for and the file lacks, whose answers
    cannot be read (id → why), and the file's ids no probe asks for, each sorted."""

    asked: int
    in_file: int
    missing: tuple[str, ...]
    unreadable: tuple[tuple[str, str], ...]
    extra: tuple[str, ...]

    def summary(self) -> dict[str, Any]:
        """Counts and the first :data:`SHOWN` ids of each list, as summary.json records them."""
        return {"n_asked": self.asked, "n_in_file": self.in_file, "n_matched": self.asked - len(self.missing)
                - len(self.unreadable), "n_missing": len(self.missing), "n_unreadable": len(self.unreadable),
                "n_extra": len(self.extra), "missing": list(self.missing[:SHOWN]),
                "unreadable": [{"id": k, "why": why} for k, why in self.unreadable[:SHOWN]],
                "extra": list(self.extra[:SHOWN])}

    def line(self, *, written: bool = True) -> str:
        """The terminal's lines: the counts, and the first ids of each list that is not empty
        (``written``: the run goes on and writes every id to skipped.jsonl; else it is refused)."""
        return join_line(self.summary(), written=written)

    def skipped(self, from_benchmark: Sequence[dict[str, Any]], unscorable: dict[str, str]) -> list[dict[str, Any]]:
        """The run folder's ``skipped.jsonl``: the benchmark's skips (an item whose id the file lacks
        or cannot read says so), then every missing, unreadable and extra id of the file not
        already there, then the probes the file could not answer for another reason. Nothing of
        the join is lost, and no id is listed twice."""
        why = dict.fromkeys(self.missing, ("missing", MISSING))
        why |= {k: ("unreadable", f"unreadable in the predictions file: {w}") for k, w in self.unreadable}
        why |= dict.fromkeys(self.extra, ("extra", EXTRA))
        rows = []
        for skip in from_benchmark:
            found = why.pop(str(skip.get("id")), None)
            rows.append(skip if found is None else {**skip, "predictions": found[0], "reason": found[1]})
        rows += [{"id": k, "predictions": kind, "reason": reason} for k, (kind, reason) in why.items()]
        accounted = {*self.missing, *(k for k, _ in self.unreadable)}
        known = {str(r.get("id")) for r in rows}
        rows += [{"id": pid, "reason": reason} for pid, reason in sorted(unscorable.items())
                 if pid not in known and probe_key(pid, ())[0] not in accounted]
        return rows


def join_line(summary: Any, *, written: bool = True) -> str:
    """What a predictions run prints about its file (from :meth:`Join.summary`'s record): the
    counts, then up to :data:`SHOWN` ids of each list that is not empty. A refused run writes no
    skipped.jsonl (``written`` false), so the line promises none."""
    answered, asked = summary["n_matched"], summary["n_asked"]
    where = "every id in skipped.jsonl" if written else "the run is refused: nothing was written"
    parts = [f"predictions: {answered:,} of {asked:,} ids answered; {summary['n_missing']:,} missing, "
             f"{summary['n_unreadable']:,} unreadable, {summary['n_extra']:,} extra (of {summary['n_in_file']:,} "
             f"in the file; {where})"]
    for name in ("missing", "unreadable", "extra"):
        ids = [r["id"] if isinstance(r, dict) else r for r in summary[name]]
        if ids:
            more = summary[f"n_{name}"] - len(ids)
            parts.append(f"  {name}: {', '.join(map(str, ids))}" + (f" … (+{more:,})" if more > 0 else "")
                         + _first_why(summary[name]))
    return "\n".join(parts)


def _first_why(listed: Sequence[Any]) -> str:
    """Why the first unreadable id is (an entry of the summary's ``unreadable``), for the terminal."""
    first = listed[0] if listed else None
    return f" (first: {first['why']})" if isinstance(first, dict) and first.get("why") else ""


class PredictionsScorer(Scorer):
    """Answers probes from :class:`~.predicted.FileAnswers` (module docstring). ``max_missing``
    and ``max_extra`` are shares (0 to 1) of the run's ids and of the file's that may go unmatched."""

    name = "predictions"
    variant = "given"
    cacheable = False

    def __init__(self, answers: FileAnswers, *, max_missing: float = 0.0, max_extra: float = 0.0) -> None:
        for label, share in (("max_missing", max_missing), ("max_extra", max_extra)):
            if not 0.0 <= share <= 1.0:
                raise UsageError(f"{label} is a share between 0 and 1, not {share!r}")
        self.file, self.max_missing, self.max_extra = answers, max_missing, max_extra
        self._by_row: Mapping[str, Answer] | None = None

    @property
    def info(self) -> ScorerInfo:
        return ScorerInfo(kind=self.name, reads="given", dtype=self.file.dtype,
                          generates=any(a.generated is not None for a in self.file.answers.values()),
                          source=str(self.file.path))

    def describe(self) -> dict[str, Any]:
        return {"scorer": self.name, "variant": self.variant, **self.file.describe(),
                "max_missing": self.max_missing, "max_extra": self.max_extra}

    def answers(self, probes: Sequence[Probe], *, joining: bool = False) -> Mapping[str, Answer]:
        """The file's answers by id: as read, or, for a file keyed by row, by the run's probe ids in
        order (:func:`~.crows_results.rows_to_ids`), fixed when the run's probes are joined,
        all at once, since a run then scores them in batches."""
        if self.file.keys != "row":
            return self.file.answers
        if joining or self._by_row is None:
            self._by_row = rows_to_ids(self.file.answers, [p.id for p in probes])
        return self._by_row

    def join(self, probes: Sequence[Probe]) -> Join:
        """The ids ``probes`` ask for against the file's (:class:`Join`); raises a UsageError above
        the allowed shares, naming the counts, the first ids and the options that allow them."""
        answers = self.answers(probes, joining=True)
        asked = list(dict.fromkeys(probe_key(p.id, answers)[0] for p in probes))
        wanted = set(asked)
        missing = tuple(sorted(k for k in asked if k not in answers))
        unusable = _unusable(probes, answers)
        unreadable = tuple(sorted(unusable.items()))
        extra = tuple(sorted(k for k in answers if k not in wanted))
        join = Join(len(asked), len(answers), missing, unreadable, extra)
        self._check(join)
        return join

    def _check(self, join: Join) -> None:
        unmatched = len(join.missing) + len(join.unreadable)
        too_many = []
        if join.asked and unmatched / join.asked > self.max_missing:
            too_many.append(f"{unmatched:,} of the run's {join.asked:,} ids ({unmatched / join.asked:.2%}) have no "
                            f"readable answer (allowed: a share of --max-missing {self.max_missing:g})")
        if join.in_file and len(join.extra) / join.in_file > self.max_extra:
            share = len(join.extra) / join.in_file
            too_many.append(f"{len(join.extra):,} of the file's {join.in_file:,} ids ({share:.2%}) match no probe "
                            f"of this run (allowed: a share of --max-extra {self.max_extra:g})")
        if join.asked and unmatched == join.asked:
            whys = {why for _, why in join.unreadable}
            too_many.append(f"no id of the run has a readable answer, each for one reason: {whys.pop()}"
                            if len(whys) == 1 and not join.missing else
                            "no id of the run has a readable answer: is this the file of another benchmark or dataset?")
        if too_many:
            raise UsageError(f"{self.file.path} does not answer this run's items: " + "; ".join(too_many)
                             + "\n" + join.line(written=False))

    def score(self, probes: Sequence[Probe], progress: Progress | None = None, *,
              answered: Any = frozenset()) -> Any:
        out, unscorable = {}, {}
        answers = self.answers(probes)
        for probe in probes:
            answer, why = self._answer(probe, answers)
            if answer is not None and probe.id not in answered:
                out[probe.id] = answer
            elif why is not None and probe.id not in answered:
                unscorable[probe.id] = why
        if progress is not None:
            progress(len(probes))
        return Scored(out, unscorable, {})

    def _answer(self, probe: Probe, answers: Mapping[str, Answer]) -> tuple[Any, str | None]:
        key, option = probe_key(probe.id, answers)
        given = answers.get(key)
        if given is None:
            return None, MISSING
        if given.why is not None:
            return None, f"unreadable in the predictions file: {given.why}"
        return _answered(probe, given, option)


def _unusable(probes: Sequence[Probe], answers: Mapping[str, Answer]) -> dict[str, str]:
    """The file's ids whose answer fails a probe that asks for it, each with why (the first such probe's
    reason): an answer that could not be read, or one read that cannot answer the probe (sentences that
    are not the pair's, three scores for a pair), so that each counts against ``--max-missing`` as
    unreadable rather than leaving the run's metric over fewer items without a word."""
    why: dict[str, str] = {}
    for probe in probes:
        key, option = probe_key(probe.id, answers)
        given = answers.get(key)
        if given is None or key in why:
            continue
        reason = given.why if given.why is not None else _answered(probe, given, option)[1]
        if reason is not None:
            why[key] = reason
    return why


def _answered(probe: Probe, given: Answer, option: int | None) -> tuple[Any, str | None]:
    """The probe's answer from the file's (the probe's kind decides its shape). A generated text answers
    only a generation probe, as it was written (its token count and why it ended are not in the file:
    0 and ``"given"``); the benchmark's own rule then parses it, as it parses a model's."""
    if isinstance(probe, GenerationProbe) or given.generated is not None:
        if not isinstance(probe, GenerationProbe):
            return None, "the file holds generated text, not option scores: run with --answers generated"
        if given.generated is None:
            return None, "the file holds option scores, not generated text: leave --answers at likelihood"
        return GenerationAnswer(probe.id, given.generated, 0, "given"), None
    if isinstance(probe, PairProbe):
        return _pair(probe, given)
    if isinstance(probe, SlotProbe) and option is None:
        values = [given.value(k) for k in range(len(probe.fillers))]
        if any(v is None for v in values) or len(given.values) not in (0, len(values)):
            return None, f"{len(probe.fillers)} fillers asked, the file gives {len(given.values) or 'a choice'}"
        return SlotAnswer(probe.id, tuple(float(v or 0.0) for v in values), tuple(1 for _ in values)), None
    value = given.value(option)
    if value is None:
        return None, f"the file's answer has no option {option}" if option is not None else "several values, one asked"
    if isinstance(probe, ContinuationProbe):
        if len(probe.contexts) != 1:
            return None, "a file gives one value per option, not one per context"
        return SlotAnswer(probe.id, (value,), (1,)), None
    if isinstance(probe, (SentenceProbe, NextSentenceProbe)):
        return SentenceAnswer(probe.id, value, 1), None
    return None, f"a predictions file does not answer {type(probe).__name__}s"


def _pair(probe: PairProbe, given: Answer) -> tuple[Any, str | None]:
    """A pair's two scores, the way round the probe asks: by the texts where the file names them."""
    if len(given.values) != 2:
        return None, f"a pair needs 2 scores, the file gives {len(given.values)}"
    first, second = given.values
    if given.texts:
        swapped = listed_swapped(probe.a, probe.b, given.texts)
        if isinstance(swapped, str):
            return None, swapped
        if swapped:
            first, second = second, first
    return PairAnswer(probe.id, first, second, 1, 1), None


def _spaced(text: str) -> str:
    return " ".join(text.split())


#: How far a file's sentence may be from the probe's, strictest first (:func:`text_level`): not at all;
#: in its runs of whitespace (the Dutch CrowS-Pairs results hold a no-break space where the data has a
#: space, in 9 sentences, and drop one sentence's trailing newline); in case too.
LEVELS = (lambda text: text, _spaced, lambda text: _spaced(text).casefold())


def text_level(ours: str, theirs: str) -> int | None:
    """The first of :data:`LEVELS` at which a file's sentence is the probe's (0: equal), None: at none."""
    return next((k for k, same in enumerate(LEVELS) if same(ours) == same(theirs)), None)


def listed_swapped(a: str, b: str, texts: Sequence[str]) -> bool | str:
    """Whether a file lists a pair ``(a, b)`` the other way round (True) or as asked (False), whichever matches at
    the stricter level (:func:`text_level`), so a pair whose sentences differ only in case ("Black" and
    "black") is read by its exact texts, never turned round by a case-folded match; or why neither
    order can be told: the file's sentences are another pair's, or match either way round at the same
    level (a file that lower-cased both sentences of a pair that differs in case alone)."""
    def worst(x: str, y: str) -> float:
        levels = (text_level(a, x), text_level(b, y))
        return math.inf if None in levels else max(k for k in levels if k is not None)

    direct, swapped = worst(texts[0], texts[1]), worst(texts[1], texts[0])
    if direct == swapped == math.inf:
        return "the file's sentences are not the pair's"
    if direct == swapped and a != b:
        return "the file's sentences match the pair either way round (equal to each other once case or spacing is "\
               "folded): cannot tell which score is whose"
    return swapped < direct


def from_file(model: Any = None, *, predictions: Any, predictions_format: str | None = None,
              predictions_field: str | None = None, max_missing: float = 0.0, max_extra: float = 0.0,
              formats: Sequence[PredictionFormat] = (), lm_eval_docs: Sequence[LmEvalDocs] = (),
              **_: Any) -> PredictionsScorer:
    """The scorer of ``--predictions FILE`` (the registry's ``predictions`` factory, which passes the
    ``formats`` and ``lm_eval_docs`` the benchmarks declare; ``model`` and a model's other options are not
    read)."""
    return PredictionsScorer(read(predictions, predictions_format, predictions_field, formats, lm_eval_docs),
                             max_missing=max_missing, max_extra=max_extra)
