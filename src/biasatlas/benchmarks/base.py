"""The benchmark contract (DESIGN.md, "Benchmark").

A benchmark loads items (frozen records with stable ids), turns them into probes, and
turns the scorer's answers into a :class:`BenchmarkResult`. It never calls a model.

Each benchmark is one folder exported through one :class:`BenchmarkSpec` (``SPEC`` in the
package): how to build it, how its summary.json reads back typed, which item columns its
report reads, and its :class:`BenchmarkView` (everything the terminal and the report show
of it). :mod:`biasatlas.registry` maps names to the modules holding a ``SPEC``; the report
looks specs up by a run's ``benchmark`` name and names no benchmark itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol, Self

from ..display.cite import Reference
from ..display.controls import Headline
from ..display.direction import Direction
from ..display.paired import Paired
from ..runs.view import Column, RunContract, RunView
from ..display.svg import Plot
from ..display.tables import Metric, Table
from ..lint import LintItem
from ..probes import ScorerInfo
from ..scorers.predictions.predicted import LmEvalDocs, PredictionFormat
from .contract import Benchmark, BenchmarkResult
from .options import Flag, Options, flag_of, subset_keys
from .sensitivity import Sensitivity

__all__ = ["Benchmark", "BenchmarkResult", "BenchmarkSpec", "BenchmarkView", "Flag", "PairedMethod", "TypedSummary"]


def reading_of(scorer: ScorerInfo | None) -> str:
    """The reading a bound scorer gets in the pronoun benchmarks (Winogender, WinoBias): ``masked-pronoun``
    for a masked reader, else ``sentence-likelihood`` (also while none is bound: the sequence readers' probes)."""
    return "masked-pronoun" if scorer is not None and scorer.reads == "masked" else "sentence-likelihood"


class TypedSummary(Protocol):
    """A benchmark's summary.json read back typed: a frozen dataclass of the fields its report reads."""

    @classmethod
    def read(cls, data: Mapping[str, Any], path: Path) -> Self:
        """Check ``data`` (raising :class:`~biasatlas.errors.DataError` naming ``path`` and the
        field) and return it typed."""
        ...


class PairedComparer(Protocol):
    """Paired tests of run B against run A on the items both scored."""

    def __call__(self, a: RunView, b: RunView, *, n_resamples: int, seed: int) -> Paired: ...


@dataclass(frozen=True)
class PairedMethod:
    """A benchmark's paired test, and the phrase that names it in the report's note
    (``McNemar on CrowS-Pairs outcomes``)."""

    test: PairedComparer
    phrase: str


def _no_plots(run: RunView) -> list[Plot]:
    return []


def _no_notices(run: RunView) -> tuple[str, ...]:
    return ()


def _nothing_published(run: RunView) -> dict[str, object] | None:
    return None


def _no_references(run: RunView) -> tuple[Reference, ...]:
    return ()


def _no_headlines(run: RunView) -> tuple[Headline, ...]:
    return ()


@dataclass(frozen=True)
class BenchmarkView:
    """Everything the terminal and the report show of one benchmark.

    ``tables`` and ``plots`` show one run (plots are drawn inside
    :func:`biasatlas.display.style.style`; the terminal prints the same tables, fitted to
    its width: :class:`biasatlas.display.terminal.TerminalTables`);
    ``leaderboard`` puts several runs side by side; ``metrics`` are a run's headline
    numbers (the CSV and JSON outputs); ``paired`` compares two runs item by item;
    ``notices`` are sentences a reader must not miss, and ``published`` the paper's
    numbers for a run (JSON), where the benchmark keeps any. ``needs_cjk_font``: its
    labels hold Chinese, so the page warns when no CJK font is installed. ``references``
    are the BibTeX entries of the papers a run rests on (the benchmark's, and its
    dataset's where that has its own paper): the report's "Cite" section and
    ``--format bibtex``. ``headlines`` are a run's headline numbers with their controls and
    detectable effects (:mod:`biasatlas.display.controls`): the report prints them side by
    side, flags one whose control fails, and ranks models across benchmarks by them.
    ``directions`` declare once which way each of ``metrics`` reads (by name, or ``family:``;
    :mod:`biasatlas.display.direction`): ``higher_is_better`` and ``ideal`` in the CSV and JSON.
    """

    tables: Callable[[RunView], list[Table]]
    leaderboard: Callable[[Sequence[RunView]], Table]
    metrics: Callable[[RunView], list[Metric]]
    paired: PairedMethod | None = None
    plots: Callable[[RunView], list[Plot]] = _no_plots
    notices: Callable[[RunView], tuple[str, ...]] = _no_notices
    published: Callable[[RunView], dict[str, object] | None] = _nothing_published
    needs_cjk_font: bool = False
    references: Callable[[RunView], tuple[Reference, ...]] = _no_references
    headlines: Callable[[RunView], tuple[Headline, ...]] = _no_headlines
    directions: Mapping[str, Direction] = field(default_factory=dict)


def _no_scorer_defaults(benchmark: Any) -> Mapping[str, Any]:
    return {}


def _unknown_language(benchmark: Any) -> str | None:
    return None


@dataclass(frozen=True)
class BenchmarkSpec:
    """One benchmark as the rest of biasatlas sees it; its package exports it as ``SPEC``.

    ``factory`` builds the benchmark from keyword options (``load_benchmark(name, **kw)``);
    ``summary_type`` reads its summary.json back typed; ``columns`` are the item fields its
    report reads, checked on every line of items.jsonl when a run folder is loaded.
    ``pairing_keys`` are its config settings, as (key, label), that decide how items are
    prepared: two runs are paired only when they share these (and the data and its subset).
    ``scorer_defaults(benchmark)`` names the model options its published method implies
    (census ``gebnlp2022``: ``multi_token="first-token"``), used where a run sets none.
    ``description`` is the line ``biasatlas run --help`` shows; how each option reads as a
    ``biasatlas run NAME`` flag is declared with the option (:func:`~.options.option`).
    ``example`` are the options of a tiny run of it (a few items of the data the tests read):
    the contract test runs every registered benchmark with them.
    ``language(benchmark)`` names the language of its text (None when unknown: a user's
    file) and ``data_options`` are the options that choose its data, for the line a run
    prints before scoring: a run that sets none of them is told it got the default data.
    ``label_keys`` are the summary's settings that follow the model in a run's label in
    reports (CrowS-Pairs: ``variant``), where they are what sets two runs of one model apart.
    ``lint_items(benchmark)`` gives its loaded items as :mod:`biasatlas.lint` reads them (pairs
    or choices, with their lines), for ``biasatlas lint``; ``None``: the benchmark has no lint.
    ``sensitivity`` declares the perturbation kinds ``biasatlas run NAME --sensitivity KIND``
    offers, its headline numbers and an item's outcome
    (:class:`~biasatlas.benchmarks.sensitivity.Sensitivity`); ``None``: no sensitivity runs.
    ``unrecorded`` says what a pairing key absent from a run's config means, for settings recorded
    only when used (BBQ: no ``chat_template`` is the plain prompt, no ``answers`` the likelihood
    reading), so a run that used one never pairs silently with one that did not.
    ``renamed_config`` are its config keys renamed since run folders of format 1 recorded
    them, as (old, new) (census: ``("variant", "method")``): a rerun into such a folder and a
    report of it read them under the new names (:mod:`biasatlas.runs.format`).
    ``prediction_formats`` are the saved-predictions formats it owns the readers of (GEST's one number
    a line: its ``predictions.py``), read by ``--predictions FILE`` beside the generic ones; ``lm_eval_docs``
    its documents in lm-evaluation-harness's samples files, read by it (DiscrimEval's), so its item ids
    have one writer.
    ``reading_keys`` are the pairing keys that change what a number measures, not how the items were
    prepared (BBQ's ``answers``: a likelihood reading or a generated answer): a report pairs runs only
    within one value of each, so a generated run is compared with generated ones, never with a
    likelihood run.
    """

    name: str
    factory: Callable[..., Benchmark]
    summary_type: type[TypedSummary]
    columns: tuple[Column, ...]
    view: BenchmarkView
    pairing_keys: tuple[tuple[str, str], ...] = ()
    scorer_defaults: Callable[[Any], Mapping[str, Any]] = _no_scorer_defaults
    description: str = ""
    example: Mapping[str, Any] = field(default_factory=dict)
    language: Callable[[Any], str | None] = _unknown_language
    data_options: tuple[str, ...] = ()
    label_keys: tuple[str, ...] = ()
    lint_items: Callable[[Any], list[LintItem]] | None = None
    sensitivity: Sensitivity | None = None
    renamed_config: tuple[tuple[str, str], ...] = ()
    unrecorded: Mapping[str, Any] = field(default_factory=dict)
    prediction_formats: tuple[PredictionFormat, ...] = ()
    lm_eval_docs: tuple[LmEvalDocs, ...] = ()
    reading_keys: tuple[str, ...] = ()

    def flag(self, option: str) -> Flag:
        """How ``option`` reads on the command line. An option no Flag describes still gets its
        flag, without help (tests/benchmarks/test_contract.py requires the help of every option)."""
        declared = flag_of(self.factory, option) if isinstance(self.factory, type) and hasattr(
            self.factory, "__dataclass_fields__") else None
        flag = declared or flag_of(Options, option) or Flag("")
        unit = getattr(self.factory, "UNIT", "items")
        return replace(flag, help=flag.help.replace("{unit}", unit)) if "{unit}" in flag.help else flag

    @property
    def contract(self) -> RunContract:
        """What loading one of its run folders checks."""
        return RunContract(self.summary_type.read, self.columns, self.label_keys, self.renamed_config,
                           subset_keys(self.factory))
