"""Warnings for a mining rule that removed every sentence left to it.

A stage whose one rule empties it usually means the input is not what the rule expects (a
corpus of one character per line, JSON Lines read as text, a ``--min-len`` above every
sentence), not that the corpus holds no neutral sentence; the run still finishes, with an
empty candidate file, so each such rule gets one warning line saying what it saw and what
to check. Reasons are the stages' own (:mod:`.filters`, :mod:`.segment`, :mod:`.names`, the
``match`` and ``annotation`` steps of :mod:`.pipeline`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from biasatlas.mining.filters import RuleParams

#: What a drop reason says of a sentence, and what to check when it says it of all of them.
_REASONS: dict[str, tuple[str, str]] = {
    "no_keyword": ("hold no keyword of the pairs", "is the corpus Chinese text, and --format right "
                   "(a JSONL corpus needs --format jsonl)?"),
    "too_long": ("over {max_len} characters", "no sentence punctuation (。！？) to split at, or --max-len too low?"),
    "url": ("hold a URL or an e-mail address", "is the corpus markup or a link list?"),
    "noise": ("hold control characters or a run of five identical characters", "is the file's encoding right?"),
    "not_chinese": ("are under {share:.0%} Chinese characters", "markup, code or another language?"),
    "bio_cue": ("hold a biological-sex cue", "is the keyword list right?"),
    "not_whole_word": ("hold the keyword only inside a longer word", "is the keyword list right?"),
    "both_genders": ("hold keywords of both genders", "is the keyword list right?"),
    "several_keywords": ("hold more than one keyword", "is the keyword list right?"),
    "gender_cue": ("hold another gendered word", "is the keyword list right?"),
    "not_unanimous": ("lack every annotator's 'neutral' label", "are the annotator files filled in?"),
}


def emptying_rules(stage_counts: Mapping[str, Mapping[str, Any]], rules: RuleParams) -> tuple[str, ...]:
    """One line per (stage, reason) that dropped every one of the stage's ``in`` sentences."""
    lines = []
    for stage, counts in stage_counts.items():
        total = counts.get("in") or 0
        for reason, dropped in (counts.get("dropped") or {}).items():
            if total and dropped == total:
                lines.append(f"{stage}: all {total:,} {_what(stage)} {_says(reason, rules)}")
    return tuple(lines)


def _what(stage: str) -> str:
    return {"match": "sentences", "annotation": "candidates"}.get(stage, "keyword sentences")


def _says(reason: str, rules: RuleParams) -> str:
    """The reason as a phrase with its check (too_short is the common case: a corpus cut into lines)."""
    if reason == "too_short":
        return f"under {rules.min_len} characters (--min-len): one character per line?"
    if reason.startswith("name_"):
        return f"look like a person's name ({reason}): is the name filter right for this corpus?"
    phrase, hint = _REASONS.get(reason, (f"dropped as {reason}", "check the input"))
    return f"{phrase.format(max_len=rules.max_len, share=rules.min_cjk_share)}: {hint}"
