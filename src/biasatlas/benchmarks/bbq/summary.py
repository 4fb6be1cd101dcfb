"""A BBQ summary: the overall set's scores at the top, every reporting group under ``sets``,
MBBQ's control set under ``control``, and its typed read-back.

Each set holds the scores of :mod:`.evaluation` (accuracy, bias, diff-bias and abstention in
ambiguous and disambiguated contexts, ×100), its counts (examples, templates, ties), the
``degenerate`` reason or null, and 95 % intervals resampling templates.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ...runs.checks import Interval, WithIntervals
from ...runs.view import Column
from ...runs.typed import Summary, same_object, when_set

#: The items.jsonl fields the report reads.
COLUMNS: tuple[Column, ...] = (
    Column("id"), Column("category", "string"), Column("group", "string"),
    Column("context_condition", "string"), Column("answer", "string?", required=False),
    Column("correct", "any", required=False))


@dataclass(frozen=True)
class SetScores(WithIntervals):
    """One set's scores (None where undefined), counts and degenerate reason, in the order written."""

    accuracy_amb: float | None = None
    bias_amb: float | None = None
    abstain_amb: float | None = None
    accuracy_dis: float | None = None
    bias_dis: float | None = None
    abstain_dis: float | None = None
    diff_bias_amb: float | None = None
    diff_bias_dis: float | None = None
    n: float | None = None
    n_amb: float | None = None
    n_dis: float | None = None
    n_templates: float | None = None
    n_ties: float | None = None
    degenerate: str | None = None
    intervals: Mapping[str, Interval | None] = field(default_factory=dict)


@dataclass(frozen=True)
class PromptScores:
    """KoBBQ's generative protocol, one prompt (:mod:`.generated.kobbq`): its rows (sample × order), how many
    were out of choice (unparsed), the out-of-choice share per set over all its rows, and its sets' scores."""

    rows: float | None = None
    unparsed: float | None = None
    ooc_ratio: Mapping[str, float] = field(default_factory=dict)
    sets: Mapping[str, SetScores] = field(default_factory=dict)


@dataclass(frozen=True)
class BBQRunSummary(Summary):
    """The overall scores, each reporting group's, and the control set's (MBBQ)."""

    #: The overall set's scores at the top of summary.json; None (nothing written there) when no
    #: regular example was scored. Read back, it is always a set (empty then): :attr:`overall`.
    overall_scores: SetScores | None = same_object(SetScores)
    sets: Mapping[str, SetScores] = field(default_factory=dict)
    control: Mapping[str, SetScores] = field(default_factory=dict)
    n_skipped: float | None = None
    rule: str | None = None
    reading: str | None = None
    dataset: str | None = None
    options: str | None = None
    #: ``--answers generated``: the rule that mapped answers to options, and how many answers it could not
    #: map (left out of every score, kept in items.jsonl); absent from a likelihood run's summary.
    parser: str | None = when_set()
    unparsed: float | None = when_set()
    #: Of those, the answers that write one option's whole text word for word (``--parser option-text`` reads them).
    unparsed_naming_option: float | None = when_set()
    #: How the prompt reached the model (:meth:`..chat.ChatOptions.chat_label`): ``none (the model has one)``,
    #: ``none (the model has none)``, ``model (sha256 …)``, …; absent where the scorer says nothing of a template.
    chat_template: str | None = when_set()
    #: ``--parser kobbq``: each prompt's own scores (the sets above are their mean over the prompts).
    prompts: Mapping[str, PromptScores] | None = when_set()
    #: ``--parser mbbq``: each prompt's overall scores (``"1"``…; the control set's ``"control 1"``…) and
    #: how many of its answers were undetected; the sets above pool every prompt's detected answers.
    prompt_sets: Mapping[str, SetScores] | None = when_set()
    undetected: Mapping[str, float] | None = when_set()

    @property
    def overall(self) -> SetScores:
        """The overall set's scores (an empty set where no regular example was scored)."""
        return self.overall_scores or SetScores()
