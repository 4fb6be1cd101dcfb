"""A benchmark whose runs record their data's lint, and may score only the clean items (issue 27).

Every run of a benchmark whose spec can lint its items (``BenchmarkSpec.lint_items``) goes
through :class:`Linted`: it scores what the benchmark scores, and its summary gains one generic
key, ``lint``, saying how many of the run's items carry a finding of :mod:`biasatlas.lint`, by
rule. With ``exclude_flagged`` it scores only the items with no finding (``--exclude-flagged``):
the clean subset of the items the run would otherwise score (after ``--limit``, ``--sample``,
the category options), recorded in the config as ``exclude_flagged``, a pairing key, so a
clean run is never paired with a full one as if they held the same items. The lint of the
subset is not the lint of the file: a duplicate is found only when both copies are in it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

from ..lint import DEFAULT_MAX_TOKENS, Finding, LintItem, counts, flagged, lint
from ..probes import Answer, Probe, ScorerInfo
from .contract import Benchmark, BenchmarkResult

#: The summary key every linted run writes.
LINT_KEY = "lint"


@dataclass(frozen=True)
class Linted:
    """``inner`` as a run scores it, its lint recorded: ``lint_items`` is its spec's, and with
    ``exclude_flagged`` the items carrying a finding are left out before any probe is built."""

    inner: Benchmark
    lint_items: Callable[[Any], list[LintItem]]
    exclude_flagged: bool = False

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def VERSION(self) -> str:  # noqa: N802 - the benchmarks' constant
        return self.inner.VERSION

    @property
    def COUNTS_WORK(self) -> bool:  # noqa: N802 - the Benchmark protocol's spelling
        return bool(getattr(self.inner, "COUNTS_WORK", False))

    @cached_property
    def linted(self) -> tuple[int, list[Finding]]:
        """How many items the benchmark loads, and the findings on them (by the ids ``load``
        gives); read once: each read loads the data."""
        items = self.lint_items(self.inner)
        return len(items), lint(items, max_tokens=DEFAULT_MAX_TOKENS)

    def load(self) -> Sequence[Any]:
        items = self.inner.load()
        if not self.exclude_flagged:
            return items
        dropped = flagged(self.linted[1])
        return [item for item in items if item.id not in dropped]

    def probes(self, items: Sequence[Any]) -> Sequence[Probe]:
        return self.inner.probes(items)

    def score(self, items: Sequence[Any], answers: Mapping[str, Answer]) -> BenchmarkResult:
        result = self.inner.score(items, answers)
        return replace(result, extra={**result.extra, LINT_KEY: self.record()})

    def record(self) -> dict[str, Any]:
        """The summary's ``lint``: the items linted (the run's, before any exclusion), how many
        carry a finding, the items per rule, the token bound, and whether they were left out."""
        n, findings = self.linted
        return {"items": n, "flagged": len(flagged(findings)), "by_rule": counts(findings),
                "max_tokens": DEFAULT_MAX_TOKENS, "excluded": self.exclude_flagged}

    def config(self) -> dict[str, Any]:
        config = dict(self.inner.config())
        if self.exclude_flagged:  # recorded only when set: a full run's config is as it always was
            config["exclude_flagged"] = True
        return config

    def bind(self, info: ScorerInfo) -> Linted:
        """``inner`` bound to ``info``, keeping the lint already read: the items a benchmark loads
        do not depend on its scorer, and the run checks its data (``load``) before it binds, so
        without this the data were linted twice (about 9 s each on the whole BBQ set)."""
        bound = replace(self, inner=self.inner.bind(info))
        if "linted" in self.__dict__:  # functools.cached_property keeps its value in the instance dict
            bound.__dict__["linted"] = self.__dict__["linted"]
        return bound

