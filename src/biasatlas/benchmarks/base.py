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
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, Self, TypeVar

from ..display.cite import Reference
from ..display.controls import Headline
from ..display.direction import Direction
from ..display.paired import Paired
from ..runs.view import Column, RunContract, RunView
from ..display.svg import Plot
from ..display.tables import Metric, Table
from ..errors import UsageError
from ..lint import LintItem
from ..probes import Answer, Probe, ScorerInfo
from ..stats import check_resamples, check_seed

if TYPE_CHECKING:  # the module imports this one (BenchmarkResult)
    from .sensitivity import Sensitivity

T = TypeVar("T")


def draw_sample(items: Sequence[T], sample: int | None, seed: int) -> list[T]:
    """``sample`` of ``items`` drawn without replacement with ``numpy.random.default_rng(seed)``
    and kept in their order: every benchmark's ``--sample`` (all of them when ``sample`` is
    None or not smaller), so one seed means the same draw whatever the benchmark."""
    check_seed(seed)  # also when nothing is drawn: a seed that cannot work is refused alike
    if sample is None or sample >= len(items):
        return list(items)
    import numpy as np

    picked = np.random.default_rng(seed).choice(len(items), size=sample, replace=False)
    return [items[int(i)] for i in sorted(picked)]


def check_subset(limit: int | None, sample: int | None) -> None:
    """Refuse ``limit`` with ``sample``: every benchmark's ``--limit`` and ``--sample`` each
    name the whole subset scored, so a run sets one of them. Together they would mean a draw
    from the first N items, which no leaderboard column can say (both show as settings)."""
    if limit is not None and sample is not None:
        raise UsageError(f"--limit {limit} and --sample {sample} together: use one (--limit N scores the first "
                         "N items; --sample N draws N at random from all of them)")


def check_counts(limit: int | None, sample: int | None, seed: int, n_resamples: int, unit: str) -> None:
    """Refuse a ``limit``/``sample`` below 1 (counting ``unit``), both at once, and a bad seed or resample count."""
    for option, count in (("limit", limit), ("sample", sample)):
        if count is not None and count < 1:
            raise ValueError(f"{option} must be a positive number of {unit}, not {count}")
    check_subset(limit, sample)
    check_seed(seed)
    check_resamples(n_resamples)


def reading_of(scorer: ScorerInfo | None) -> str:
    """The reading a bound scorer gets in the pronoun benchmarks (Winogender, WinoBias): ``masked-pronoun``
    for a masked reader, else ``sentence-likelihood`` (also while none is bound: the sequence readers' probes)."""
    return "masked-pronoun" if scorer is not None and scorer.reads == "masked" else "sentence-likelihood"


@dataclass(frozen=True)
class BenchmarkResult:
    """Summary numbers (JSON-ready), one record per item, and skipped items with reasons."""

    summary: dict[str, Any]
    records: list[dict[str, Any]]
    skipped: list[dict[str, Any]] = field(default_factory=list)


class Benchmark(Protocol):
    # read-only members, so that a frozen dataclass (every benchmark) satisfies the protocol
    @property
    def name(self) -> str: ...

    @property
    def VERSION(self) -> str: ...  # noqa: N802 - the benchmarks' constant, recorded in every summary

    def load(self) -> Sequence[Any]:
        """Items of the benchmark, each with a stable ``id``."""

    def probes(self, items: Sequence[Any]) -> Sequence[Probe]:
        """The questions to ask the model (a list of one probe kind is fine: Sequence is covariant)."""

    def score(self, items: Sequence[Any], answers: Mapping[str, Answer]) -> BenchmarkResult:
        """The published metric from the answers."""

    def config(self) -> dict[str, Any]:
        """Parameters and data provenance (file, sha256) that determine the result."""

    def bind(self, info: ScorerInfo) -> Any:
        """This benchmark set up for a scorer whose answers mean what ``info`` says (census reads
        slot answers by it); raises :class:`~biasatlas.errors.UnsupportedProbe` for a scorer it
        cannot read. Called before any model loads (from the scorer kind) and again with the
        loaded scorer's own info."""

    def with_counters(self, summary: Mapping[str, Any], counters: Mapping[str, int]) -> dict[str, Any]:
        """The summary with whichever of the scorer's planned work counts it reports (maybe none)."""


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
class Flag:
    """How one of a benchmark factory's options reads on the command line (``biasatlas run NAME``);
    its type, default and (for a ``Literal``) its choices come from the factory's signature.

    ``spelling`` replaces the flag's name (``--topics`` for ``topics_k``); ``choices`` name the
    values of a ``str`` option whose set is data (the shipped datasets), not a ``Literal``;
    ``switch`` shows a two-valued option as an on/off flag, the values for off and on
    (``--skip-missing`` for ``missing="error" | "skip"``); ``file`` requires an existing file
    (a wrong path is a usage error before anything loads); ``minimum`` bounds a number;
    ``metavar`` is the placeholder ``--help`` shows (``<role=column>``; default from the type).
    """

    help: str
    spelling: str | None = None
    choices: tuple[str, ...] = ()
    case_sensitive: bool = True
    switch: tuple[Any, Any] | None = None
    file: bool = False
    minimum: float | None = None
    metavar: str | None = None
    #: ``choices`` by the value of another option (BBQ's ``--category`` by ``--dataset``): (that
    #: option, value → its choices), so ``biasatlas list`` shows each dataset's own.
    grouped: tuple[str, Mapping[str, tuple[str, ...]]] | None = None


#: The flags every benchmark shares (its factory takes these options; a spec may say otherwise).
COMMON_FLAGS: Mapping[str, Flag] = {
    "limit": Flag("Only the first N items (for a quick look; not with --sample).", minimum=1),
    "sample": Flag("Score N items drawn at random (seeded by --seed), kept in file order; not with --limit.",
                   minimum=1),
    "seed": Flag("Seed of --sample and of the bootstrap intervals."),
    "n_resamples": Flag("Bootstrap resamples of the confidence intervals.", minimum=1),
}


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
    ``description`` is the line ``biasatlas run --help`` shows; ``flags`` say how the
    factory's options read as ``biasatlas run NAME`` flags (over :data:`COMMON_FLAGS`).
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
    ``renamed_config`` are its config keys renamed since run folders of format 1 recorded
    them, as (old, new) (census: ``("variant", "method")``): a rerun into such a folder and a
    report of it read them under the new names (:mod:`biasatlas.runs.format`).
    """

    name: str
    factory: Callable[..., Benchmark]
    summary_type: type[TypedSummary]
    columns: tuple[Column, ...]
    view: BenchmarkView
    pairing_keys: tuple[tuple[str, str], ...] = ()
    scorer_defaults: Callable[[Any], Mapping[str, Any]] = _no_scorer_defaults
    description: str = ""
    flags: Mapping[str, Flag] = field(default_factory=dict)
    language: Callable[[Any], str | None] = _unknown_language
    data_options: tuple[str, ...] = ()
    label_keys: tuple[str, ...] = ()
    lint_items: Callable[[Any], list[LintItem]] | None = None
    sensitivity: Sensitivity | None = None
    renamed_config: tuple[tuple[str, str], ...] = ()

    def flag(self, option: str) -> Flag:
        """How ``option`` reads on the command line. An option no Flag describes still gets its
        flag, without help (tests/test_contract.py requires the help of every option)."""
        return self.flags.get(option) or COMMON_FLAGS.get(option) or Flag("")

    @property
    def contract(self) -> RunContract:
        """What loading one of its run folders checks."""
        return RunContract(self.summary_type.read, self.columns, self.label_keys, self.renamed_config)
