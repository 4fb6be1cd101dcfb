"""A benchmark's options, declared once (issue 35; DESIGN.md, "A run's settings travel as one frozen object").

Every benchmark is a frozen dataclass built on :class:`Options`. Each of its fields is one option,
declared with :func:`option`: its default, its help, and what the command line needs to know of it
(a :class:`Flag`: choices, spelling, minimum, …). From that one declaration biasatlas derives

- the flag of ``biasatlas run NAME`` (type and default from the field, help and choices from its flag),
- the checks every option gets (:meth:`Options.__post_init__`: a ``Literal``'s values, a flag's
  choices, its minimum, an existing file), so no benchmark re-checks a closed set by hand,
- the benchmark's part of config.json (:meth:`Options.config`: every option as set, then what the
  benchmark adds in :meth:`Options.provenance`: its data files and their hashes, its reading),
- the benchmark set up for a scorer (:meth:`Options.bind`: a copy holding the scorer's
  :class:`~biasatlas.probes.ScorerInfo`, after :meth:`Options.refuse` had its say).

The subset every benchmark shares (``limit``, ``sample``, ``seed``, ``n_resamples``) is declared here
once, with its help and its one check (:func:`check_subset`); a benchmark names what it counts
(``UNIT``: ``"pairs"``, ``"examples"``) and nothing else of it.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from functools import cache
from pathlib import Path
from typing import Any, ClassVar, Literal, Self, TypeVar

from ..errors import UsageError, canonical_name, did_you_mean
from ..probes import ScorerInfo
from ..runs.subset import SHARED_SUBSET, SubsetKey
from ..stats import check_resamples, check_seed
from ..textfiles import input_file

T = TypeVar("T")
_FLAG = "biasatlas.flag"


@dataclass(frozen=True)
class Flag:
    """How one option reads on the command line (``biasatlas run NAME``); its type, default and
    (for a ``Literal``) its choices come from the field that carries it.

    ``spelling`` replaces the flag's name (``--topics`` for ``topics_k``); ``choices`` name the
    values of a ``str`` option whose set is data (the shipped datasets), not a ``Literal``;
    ``switch`` shows a two-valued option as an on/off flag, the values for off and on
    (``--skip-missing`` for ``missing="error" | "skip"``); ``file`` requires an existing file
    (a wrong path is a usage error before anything loads); ``minimum`` bounds a number;
    ``metavar`` is the placeholder ``--help`` shows (``<role=column>``; default from the type).
    ``grouped``: ``choices`` by the value of another option (BBQ's ``--category`` by
    ``--dataset``): (that option, value → its choices), so ``biasatlas list`` shows each
    dataset's own and a value outside its group is refused.
    ``subset``: the option chooses which items are scored (``"drawn"``: at random, by ``--seed``),
    so every table of a run's numbers names it when set (:class:`~biasatlas.runs.view.SubsetKey`).
    ``any_beside``: another option beside which any name is taken, a choice still canonical (census's
    ``--country`` labels a ``--census`` table of one's own; CrowS-Pairs' ``--dataset`` is ignored
    beside ``--data``), as before issue 35: a suite's folder name reads it.
    """

    help: str
    spelling: str | None = None
    choices: tuple[str, ...] = ()
    case_sensitive: bool = True
    switch: tuple[Any, Any] | None = None
    file: bool = False
    minimum: float | None = None
    metavar: str | None = None
    grouped: tuple[str, Mapping[str, tuple[str, ...]]] | None = None
    any_beside: str | None = None
    subset: Literal["", "chosen", "drawn"] = ""


def option(default: Any, help: str, *, keyword_only: bool = False, **flag: Any) -> Any:
    """A benchmark option: a dataclass field with its default and its :class:`Flag` (``help`` and
    the flag's other settings by keyword). ``keyword_only``: it follows the subset in the signature,
    so in ``biasatlas run NAME --help`` (SEAT's ``--pooling`` as before issue 35); a subset option
    declared again with a benchmark's own help stays keyword-only this way, in its place."""
    if keyword_only:
        return field(default=default, metadata={_FLAG: Flag(help, **flag)}, kw_only=True)
    return field(default=default, metadata={_FLAG: Flag(help, **flag)})


def flag_of(kind: type, name: str) -> Flag | None:
    """The :class:`Flag` declared with ``kind``'s field ``name`` (None: a field declared without one)."""
    for f in dataclasses.fields(kind):
        if f.name == name:
            flag = f.metadata.get(_FLAG)
            return flag if isinstance(flag, Flag) else None
    return None


def check_subset(limit: int | None, sample: int | None) -> None:
    """Refuse ``limit`` with ``sample``: every benchmark's ``--limit`` and ``--sample`` each
    name the whole subset scored, so a run sets one of them. Together they would mean a draw
    from the first N items, which no leaderboard column can say (both show as settings)."""
    if limit is not None and sample is not None:
        raise UsageError(f"--limit {limit} and --sample {sample} together: use one (--limit N scores the first "
                         "N items; --sample N draws N at random from all of them)")


def draw_sample(items: Sequence[T], sample: int | None, seed: int) -> list[T]:
    """``sample`` of ``items`` drawn without replacement with ``numpy.random.default_rng(seed)``
    and kept in their order: every benchmark's ``--sample`` (all of them when ``sample`` is
    None or not smaller), so one seed means the same draw whatever the benchmark."""
    check_seed(seed)  # also when nothing is drawn: a seed that cannot work is refused alike
    if sample is None or sample >= len(items):
        return list(items)
    import numpy as np  # numpy only where a sample is drawn: the options module loads with the CLI

    picked = np.random.default_rng(seed).choice(len(items), size=sample, replace=False)
    return [items[int(i)] for i in sorted(picked)]


#: The subset's options, in the order config.json records them (after the benchmark's own).
SUBSET: tuple[str, ...] = ("limit", "sample", "seed", "n_resamples")


class _Unrecorded(Enum):
    UNRECORDED = "unrecorded"


#: A :meth:`Options.provenance` value that leaves its option out of config.json (an option older run
#: folders never recorded while unset: a rerun into one compares its config with the recorded one).
UNRECORDED = _Unrecorded.UNRECORDED


@dataclass(frozen=True, kw_only=True)
class Options:
    """The base of every benchmark: the subset it scores, its scorer once bound, and the derived
    behaviour described in the module docstring.

    A benchmark subclass declares ``name`` and ``VERSION`` (class constants: ``VERSION`` changes
    whenever scores could), ``UNIT`` (what ``limit`` and ``sample`` count), its own options with
    :func:`option`, and overrides only what differs: :meth:`check` (checks between options),
    :meth:`refuse` (a scorer it cannot read), :meth:`provenance` (what config.json records besides
    the options). ``KEPT_ON_BIND`` names cached properties that do not depend on the scorer, so a
    bound copy keeps them (census keeps its table and its plan).
    """

    name: ClassVar[str]
    VERSION: ClassVar[str]
    UNIT: ClassVar[str] = "items"
    #: Its summary records the scorer's planned work (:func:`~.contract.with_work`; census).
    COUNTS_WORK: ClassVar[bool] = False
    KEPT_ON_BIND: ClassVar[tuple[str, ...]] = ()
    #: LEGACY ORDER (issue 35): config.json's keys in the order a benchmark wrote them before it was
    #: built on Options, where the options' order with :func:`placed` cannot say it (SEAT, zh-neutral,
    #: CrowS-Pairs), so their run folders stay byte-identical; a key it does not name follows
    #: (:func:`in_order`), and a key is left out only by :data:`UNRECORDED`. Empty: every option, as placed.
    #: Drop it with the benchmark's next VERSION bump: then its config.json may change.
    RECORDED: ClassVar[tuple[str, ...]] = ()

    # ``{unit}`` in a help reads as the benchmark's UNIT (BenchmarkSpec.flag)
    limit: int | None = option(None, "Only the first N {unit} (for a quick look; not with --sample).", minimum=1,
                                subset="chosen")
    sample: int | None = option(None, "Score N {unit} drawn at random (seeded by --seed), kept in file order; "
                                      "not with --limit.", minimum=1, subset="drawn")
    seed: int = option(0, "Seed of --sample and of the bootstrap intervals.")
    n_resamples: int = option(1000, "Bootstrap resamples of the confidence intervals.", minimum=1)
    #: What the bound scorer's answers mean (None until :meth:`bind`): not an option.
    scorer: ScorerInfo | None = field(default=None, init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        for option_name in ("limit", "sample"):
            value = getattr(self, option_name)
            if value is not None and value < 1:
                # a setting, not a file's field: a usage mistake (exit 2), a ValueError still
                raise UsageError(f"{option_name} must be a positive number of {self.UNIT}, not {value}")
        check_subset(self.limit, self.sample)
        check_seed(self.seed)
        check_resamples(self.n_resamples)
        for f in options_of(type(self)):
            self._check_field(f)
        self.check()

    def _check_field(self, f: dataclasses.Field[Any]) -> None:
        """One option against its declaration: a ``Literal``'s values, the flag's choices (a
        case-insensitive name is recorded in its canonical spelling), a minimum, a file."""
        value, flag = getattr(self, f.name), f.metadata.get(_FLAG)
        if value is None or not isinstance(flag, Flag):
            return
        literal = _literal_values(type(self), f.name)
        if literal and value not in literal:
            raise did_you_mean(f.name, str(value), [str(v) for v in literal])
        known, label = self._choices(f.name, flag)
        if known and isinstance(value, (int, float)):  # a number (a suite's log_base = 2) names no choice
            raise did_you_mean(label, str(value), known)
        if known and isinstance(value, str):
            if not flag.case_sensitive:
                value = canonical_name(value, known)
                object.__setattr__(self, f.name, value)
            if value not in known and (flag.any_beside is None or getattr(self, flag.any_beside) is None):
                raise did_you_mean(label, value, known)
        if flag.minimum is not None and isinstance(value, (int, float)) and value < flag.minimum:
            raise UsageError(f"{f.name} must be at least {flag.minimum:g}, not {value}")
        if flag.file:  # missing, a folder, a device: each said as it is (a reader would hang on a pipe)
            input_file(value)

    def _choices(self, name: str, flag: Flag) -> tuple[tuple[str, ...], str]:
        """The values ``name`` may take (its group's, where grouped) and how an error names it."""
        if flag.grouped is not None:
            other, groups = flag.grouped
            group = getattr(self, other)
            return tuple(groups.get(group, ())), f"{group} {name}"
        return flag.choices, name

    # -- what a benchmark overrides --------------------------------------------------------
    def check(self) -> None:
        """Checks between options (BBQ: ``--options lm-eval`` only for English); none by default."""

    def refuse(self, info: ScorerInfo) -> None:
        """Raise :class:`~biasatlas.errors.UnsupportedProbe` (or a usage error) for a scorer whose
        answers this benchmark cannot read; every scorer is read by default."""

    def provenance(self) -> dict[str, Any]:
        """What config.json records besides the options: the data files and their sha256, and
        settings derived from the options and the scorer (a key named like an option replaces its
        recorded value in place: the data folder actually read)."""
        return {}

    # -- derived -----------------------------------------------------------------------------
    def bind(self, info: ScorerInfo) -> Self:
        """This benchmark set up for a scorer whose answers mean what ``info`` says (called before
        any model loads, from the scorer kind, and again with the loaded scorer's own info)."""
        self.refuse(info)
        bound = dataclasses.replace(self)
        object.__setattr__(bound, "scorer", info)
        for key in self.KEPT_ON_BIND:
            if key in self.__dict__:
                bound.__dict__[key] = self.__dict__[key]
        return bound

    def config(self) -> dict[str, Any]:
        """The benchmark's part of config.json: its name and version, every option as set (its own,
        then the subset), with :meth:`provenance` placed among them (:func:`placed`), in
        :attr:`RECORDED`'s order where a benchmark declares one."""
        names = [f.name for f in options_of(type(self))]
        own = [name for name in names if name not in SUBSET]
        recorded = {name: _recorded(getattr(self, name)) for name in (*own, *(n for n in SUBSET if n in names))}
        values = placed(recorded, self.provenance(), own[-1:])
        if self.RECORDED:
            values = in_order(values, self.RECORDED)
        return {"benchmark": self.name, "version": self.VERSION, **values}


def in_order(values: Mapping[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    """``values`` in the order ``keys`` name them (:attr:`Options.RECORDED`); a key ``keys`` does not
    name follows them (nothing recorded is ever left out by a list that forgot it: an option added
    later is still in config.json)."""
    return {**{key: values[key] for key in keys if key in values}, **values}


def placed(options: Mapping[str, Any], provenance: Mapping[str, Any], after: Sequence[str]) -> dict[str, Any]:
    """``options`` with ``provenance`` among them: a provenance key named like an option gives that
    option its recorded value (the data folder actually read) and places the keys that follow it
    right after it (:data:`UNRECORDED` leaves that option out); keys before any such name follow
    ``after`` (the last of the benchmark's own options), or come first. So a config reads as its
    options, each with what it determined."""
    anchor = after[0] if after else None
    following: dict[str | None, dict[str, Any]] = {}
    values = dict(options)
    for key, value in provenance.items():
        if key in values:
            values[key], anchor = value, key
        else:
            following.setdefault(anchor, {})[key] = value
    out = dict(following.get(None, {}))
    for key, value in values.items():
        if value is not UNRECORDED:
            out[key] = value
        out.update(following.get(key, {}))
    return out


@cache
def _hints(qualname: str, kind: Any) -> dict[str, Any]:
    """``kind``'s resolved type hints, once per class (the name keeps the cache key hashable)."""
    return typing.get_type_hints(kind)


def _recorded(value: Any) -> Any:
    """An option as JSON records it (a path as its text)."""
    return str(value) if isinstance(value, Path) else value


def options_of(kind: type) -> tuple[dataclasses.Field[Any], ...]:
    """The options of a benchmark class: its fields that :func:`option` declared, in order."""
    return tuple(f for f in dataclasses.fields(kind) if isinstance(f.metadata.get(_FLAG), Flag))


def subset_keys(kind: object) -> tuple[SubsetKey, ...]:
    """The options of ``kind`` that choose its items (``Flag.subset``), with their defaults; the
    shared ones for a benchmark not built on :class:`Options`."""
    if not (isinstance(kind, type) and dataclasses.is_dataclass(kind)):
        return SHARED_SUBSET
    return tuple(SubsetKey(f.name, f.default, f.metadata[_FLAG].subset == "drawn") for f in options_of(kind)
                 if f.metadata[_FLAG].subset)


def _literal_values(kind: type, name: str) -> tuple[Any, ...]:
    """The values of a ``Literal`` option (of ``X | None`` too, and of a union of ``Literal`` s:
    census's ``Auto | Normalisation`` takes ``auto``, ``none`` and ``template``); empty for any other type."""
    hint = _hints(kind.__qualname__, kind).get(name)
    return tuple(value for arm in (hint, *typing.get_args(hint)) if typing.get_origin(arm) is Literal
                 for value in typing.get_args(arm))
