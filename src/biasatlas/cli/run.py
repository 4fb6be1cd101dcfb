"""``biasatlas run NAME``: one command per registered benchmark, assembled from its spec.

A command's flags are, in three help panels, the benchmark factory's options (type, default
and ``Literal`` choices from its signature, help and spelling from the spec's
:class:`~biasatlas.benchmarks.base.Flag`\\ s), the fields of
:class:`~biasatlas.request.ModelOptions` and of :class:`~biasatlas.request.EngineOptions`
(help from their metadata), and the run's own (``--out``, ``--label``, ``--no-cache``, ``--refresh``,
``--force``, ``--sensitivity``); a benchmark whose spec lints its data also gets ``--exclude-flagged``.
The values become one :class:`~biasatlas.request.RunRequest`, handed to the runner (with
``--sensitivity KIND``, to :func:`biasatlas.sensitivity.run`, which runs it once per perturbation
the spec declares). Commands are built when first named (``biasatlas --help`` imports no benchmark),
so a benchmark an installed package declares gets its command with nothing added here.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Iterator, Mapping
from dataclasses import fields
from typing import Any, Literal

from typer.core import TyperGroup

from .options import (ExcludeFlagged, Force, Label, NoCache, Out, Refresh, Sensitivity, run_and_print,
                      run_sensitivity_and_print)
from .parameters import (BENCHMARK_PANEL, ENGINE_PANEL, MODEL_PANEL, RUN_PANEL, click_command, literal_choices,
                         option_placeholders, parameter, record_parameter, split_optional)

#: Flags of the run itself (not of the request), as every command spells them.
RUN_FLAGS: tuple[tuple[str, Any, Any], ...] = (("out", Out, None), ("label", Label, None),
                                               ("no_cache", NoCache, False), ("refresh", Refresh, False),
                                               ("force", Force, False), ("sensitivity", Sensitivity, None))


class RunGroup(TyperGroup):
    """``biasatlas run``: its commands are the registry's benchmarks, each built on first use."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.commands = _Commands()  # type: ignore[assignment]  # a lazy mapping, read as a dict

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        """A benchmark's command; ``A,B`` (several benchmarks) the grid's (:mod:`.grid`)."""
        if "," in cmd_name:
            from .grid import build_grid_command

            return build_grid_command(cmd_name)
        return super().get_command(ctx, cmd_name)


class _Commands(Mapping[str, Any]):
    """Benchmark name → its command, built by ``build(name)`` when first asked for (names from
    the registry; with ``lints``, only the benchmarks whose spec can lint its data)."""

    def __init__(self, build: Any = None, *, lints: bool = False) -> None:
        self._built: dict[str, Any] = {}
        self._build = build or build_command
        self._lints = lints

    def _names(self) -> list[str]:
        from ..registry import BENCHMARKS, benchmark_spec

        return [n for n in BENCHMARKS if not self._lints or benchmark_spec(n).lint_items is not None]

    def __getitem__(self, name: str) -> Any:
        if name not in self._names():
            raise KeyError(name)
        if name not in self._built:
            self._built[name] = self._build(name)
        return self._built[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())


def build_command(name: str) -> Any:
    """The click command of ``biasatlas run NAME``, from the spec registered as ``name``."""
    from ..registry import benchmark_spec
    from ..request import EngineOptions, ModelOptions

    spec = benchmark_spec(name)
    linted = [] if spec.lint_items is None else [parameter("exclude_flagged", ExcludeFlagged, False, BENCHMARK_PANEL)]
    parameters = [*benchmark_parameters(spec), *linted,
                  *(record_parameter(f, ModelOptions, MODEL_PANEL) for f in fields(ModelOptions)),
                  *(record_parameter(f, EngineOptions, ENGINE_PANEL) for f in fields(EngineOptions)),
                  *(parameter(option, annotation, default, RUN_PANEL) for option, annotation, default in RUN_FLAGS)]

    def command(**values: Any) -> None:
        _run(spec, values)

    return click_command(name, command, parameters, with_default_data(spec))


def benchmark_parameters(spec: Any) -> list[inspect.Parameter]:
    """The flags of a benchmark factory's options (shared by ``run NAME`` and ``lint NAME``)."""
    from ..request import benchmark_options

    hints = typing.get_type_hints(spec.factory)
    return [_benchmark_parameter(option, hints.get(option, str), p.default, spec.flag(option))
            for option, p in benchmark_options(spec.factory).items()]


def benchmark_values(spec: Any, values: dict[str, Any]) -> dict[str, Any]:
    """The factory's options from a command's values (each taken out of ``values``)."""
    from ..request import benchmark_options

    return {option: _from_flag(values.pop(option), spec.flag(option)) for option in benchmark_options(spec.factory)}


def plain_placeholders(command: Any) -> None:
    """Give every option of ``command`` and of its subcommands, but not the lazily built run
    commands (:func:`.parameters.click_command` does theirs), a placeholder that names what to
    type (:func:`.parameters.option_placeholders`)."""
    option_placeholders(command)
    if isinstance(command, TyperGroup) and not isinstance(command.commands, _Commands):
        for sub in command.commands.values():
            plain_placeholders(sub)


def option_choices(spec: Any) -> list[tuple[str, tuple[Any, ...]]]:
    """Each of a benchmark's options that takes one of a set of values, as its flag reads and
    the values it takes (``--country``: us, uk, fr, no), for ``biasatlas list``."""
    from ..request import benchmark_options

    hints = typing.get_type_hints(spec.factory)
    out = []
    for option in benchmark_options(spec.factory):
        flag = spec.flag(option)
        choices = flag.choices or literal_choices(split_optional(hints.get(option, str))[1])
        spelled = flag.spelling or f"--{option.replace('_', '-')}"
        if flag.grouped is not None:  # each value of the other option with its own choices
            by, groups = flag.grouped
            out += [(f"{spelled} (--{by.replace('_', '-')} {value})", tuple(group)) for value, group in groups.items()]
        elif choices and flag.switch is None:
            out.append((spelled, tuple(choices)))
    return out


def with_default_data(spec: Any) -> str:
    """The spec's one-line description with the data a run reads when told nothing (``run
    crows-pairs`` reads the French set): each option of its ``data_options`` that has a default."""
    from ..request import benchmark_options

    options = benchmark_options(spec.factory)
    defaults = [f"{spec.flag(k).spelling or '--' + k.replace('_', '-')} {options[k].default}"
                for k in spec.data_options if k in options and options[k].default is not None]
    line = spec.description or spec.name
    return f"{line} Default: {', '.join(defaults)}." if defaults else line


def _run(spec: Any, values: dict[str, Any]) -> None:
    """The request the command line asked for, run through :func:`.options.run_and_print`."""
    from ..request import EngineOptions, ModelOptions, RunRequest

    bench = benchmark_values(spec, values)
    model = ModelOptions(**{f.name: values.pop(f.name) for f in fields(ModelOptions)})
    engine = EngineOptions(**{f.name: values.pop(f.name) for f in fields(EngineOptions)})
    clean = values.pop("exclude_flagged", False)
    request = RunRequest(spec.name, bench, model, engine, clean)
    run = {"no_cache": values["no_cache"], "refresh": values["refresh"], "force": values["force"],
           "label": values["label"]}
    if values["sensitivity"] is None:
        run_and_print(request, values["out"], **run)
    else:
        run_sensitivity_and_print(request, values["sensitivity"], values["out"], **run)


def _from_flag(value: Any, flag: Any) -> Any:
    """A flag's value as the factory takes it: a switch's two values, repeated values as a tuple."""
    if flag.switch is not None:
        return flag.switch[bool(value)]
    if isinstance(value, list):
        return tuple(value) or None
    return value


def _benchmark_parameter(name: str, hint: Any, default: Any, flag: Any) -> inspect.Parameter:
    """A factory option as a flag: its hint made something typer reads, with the spec's help."""
    optional, base = split_optional(hint)
    decls = (flag.spelling,) if flag.spelling else ()
    extra: dict[str, Any] = {"help": flag.help}
    if flag.metavar is not None:
        extra["metavar"] = flag.metavar
    if flag.minimum is not None:
        extra["min"] = flag.minimum
    if flag.switch is not None:
        return parameter(name, bool, default == flag.switch[1], BENCHMARK_PANEL, *decls, **extra)
    choices = flag.choices or literal_choices(base)
    if choices:
        base = Literal[tuple(choices)]
        extra["case_sensitive"] = flag.case_sensitive
    elif typing.get_origin(base) is tuple:
        base, optional = list[typing.get_args(base)[0]], True  # type: ignore[misc]  # a repeatable flag
    if flag.file:
        extra.update(exists=True, dir_okay=False)
    return parameter(name, base | None if optional else base, default, BENCHMARK_PANEL, *decls, **extra)
