"""Which of its data's items a run scored, said in words (issue 49, item 2): the options that choose
them (:class:`SubsetKey`, declared by each benchmark with ``option(…, subset=…)``) and one part of
:attr:`~.view.RunView.subset` per option a run set."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class SubsetKey:
    """A benchmark option that chooses which of its data's items a run scores (``--limit``,
    ``--sample``, DiscrimEval's ``--scenarios``, BBQ's ``--category`` …): a run whose value differs
    from ``default`` scored a subset, and every table that shows its numbers names it
    (:attr:`~.view.RunView.subset`). ``drawn``: drawn at random, so the run's ``seed`` names it too."""

    key: str
    default: Any = None
    drawn: bool = False


#: The subset every benchmark shares (a run of a benchmark this install does not know, or an older one).
SHARED_SUBSET: tuple[SubsetKey, ...] = (SubsetKey("limit"), SubsetKey("sample", drawn=True))


def subset_part(key: SubsetKey, value: Any, seed: Any) -> str:
    """One option's part: ``limit 80``, ``category Age``, ``sample 12 (seed 0)`` (a list joined by commas)."""
    shown = ", ".join(map(str, value)) if isinstance(value, list | tuple) else str(value)
    drawn = f" (seed {seed})" if key.drawn and seed is not None else ""
    return f"{key.key.replace('_', ' ')} {shown}{drawn}"
