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
import types
import typing
from collections.abc import Iterator, Mapping
from copy import copy
from dataclasses import Field, fields
from pathlib import Path
from typing import Annotated, Any, Literal

import typer
from typer.core import TyperGroup

from ..scorers.packaged import PACKAGED_MODELS
from .options import (ExcludeFlagged, Force, Label, NoCache, Out, Refresh, Sensitivity, batch_size, run_and_print,
                      run_sensitivity_and_print)

BENCHMARK_PANEL, MODEL_PANEL, ENGINE_PANEL, RUN_PANEL = ("Benchmark options", "Model options", "Engine options",
                                                         "Run options")
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
    linted = [] if spec.lint_items is None else [_parameter("exclude_flagged", ExcludeFlagged, False, BENCHMARK_PANEL)]
    parameters = [*benchmark_parameters(spec), *linted,
                  *(_record_parameter(f, ModelOptions, MODEL_PANEL) for f in fields(ModelOptions)),
                  *(_record_parameter(f, EngineOptions, ENGINE_PANEL) for f in fields(EngineOptions)),
                  *(_parameter(option, annotation, default, RUN_PANEL) for option, annotation, default in RUN_FLAGS)]

    def command(**values: Any) -> None:
        _run(spec, values)

    return click_command(name, command, parameters, with_default_data(spec))


def click_command(name: str, function: Any, parameters: list[inspect.Parameter], doc: str) -> Any:
    """``function`` as the click command ``name``, its flags the typer ``parameters`` (a
    signature built at run time), with its help ``doc`` and plain placeholders."""
    function.__signature__ = inspect.Signature(parameters)  # read by typer
    function.__doc__ = doc
    single = typer.Typer(add_completion=False)
    single.command(name)(function)
    built = typer.main.get_command(single)
    built.name = name
    plain_placeholders(built)
    return built


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
    """Give every option of ``command`` (and of its subcommands, but not the lazily built run
    commands, which call this themselves) a placeholder that names what to type: ``<N>`` for a
    number, ``<model>`` for a word, nothing for a switch. Typer would show the Python type
    (``<str>``, ``<int range>``, ``<list[str]>``, and ``<bool>`` even on ``--help``)."""
    params = [*command.params, command.get_help_option(typer.Context(command))]
    for param in params:
        if isinstance(param, typer.core.TyperArgument):  # its name (RUNS...) says it: no type beside it
            setattr(param, "display_type_rich", lambda ctx: None)  # noqa: B010 (an instance's own, not the class's)
        elif param is not None and param.metavar is None:
            param.metavar = _placeholder(param)
    if isinstance(command, TyperGroup) and not isinstance(command.commands, _Commands):
        for sub in command.commands.values():
            plain_placeholders(sub)


def _placeholder(param: Any) -> str | None:
    if getattr(param, "is_flag", False):
        return ""
    described = getattr(param, "type_descriptor", None)
    if described is None:  # a typer built on click: click's own placeholders (TEXT, INTEGER) are words
        return None
    if described.is_choice or (described.is_path and not described.is_list):
        return None  # typer lists the choices (<us|uk|fr|no>) or names the path (<file>): both read well
    element = typing.get_args(described.annotation)[0] if described.is_list else described.annotation
    word = ("N" if element in (int, float) else "path" if element is Path
            else (param.name or "value").replace("_", "-"))
    return f"<{word}>" + ("..." if described.is_list or param.multiple else "")


def option_choices(spec: Any) -> list[tuple[str, tuple[Any, ...]]]:
    """Each of a benchmark's options that takes one of a set of values, as its flag reads and
    the values it takes (``--country``: us, uk, fr, no), for ``biasatlas list``."""
    from ..request import benchmark_options

    hints = typing.get_type_hints(spec.factory)
    out = []
    for option in benchmark_options(spec.factory):
        flag = spec.flag(option)
        choices = flag.choices or _choices(_optional(hints.get(option, str))[1])
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


# -- parameters -------------------------------------------------------------------------------------
def _parameter(name: str, annotation: Any, default: Any, panel: str, *decls: str, **option: Any) -> inspect.Parameter:
    if typing.get_origin(annotation) is Annotated:  # a shared alias of .options: only the panel is added
        base, shared = typing.get_args(annotation)
        info = copy(shared)
        info.rich_help_panel = panel
        annotation = Annotated[base, info]
    else:
        annotation = Annotated[annotation, typer.Option(*decls, rich_help_panel=panel, **option)]
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)


def _benchmark_parameter(name: str, hint: Any, default: Any, flag: Any) -> inspect.Parameter:
    """A factory option as a flag: its hint made something typer reads, with the spec's help."""
    optional, base = _optional(hint)
    decls = (flag.spelling,) if flag.spelling else ()
    extra: dict[str, Any] = {"help": flag.help}
    if flag.metavar is not None:
        extra["metavar"] = flag.metavar
    if flag.minimum is not None:
        extra["min"] = flag.minimum
    if flag.switch is not None:
        return _parameter(name, bool, default == flag.switch[1], BENCHMARK_PANEL, *decls, **extra)
    choices = flag.choices or _choices(base)
    if choices:
        base = Literal[tuple(choices)]
        extra["case_sensitive"] = flag.case_sensitive
    elif typing.get_origin(base) is tuple:
        base, optional = list[typing.get_args(base)[0]], True  # type: ignore[misc]  # a repeatable flag
    if flag.file:
        extra.update(exists=True, dir_okay=False)
    return _parameter(name, base | None if optional else base, default, BENCHMARK_PANEL, *decls, **extra)


def _record_parameter(field: Field[Any], record: type, panel: str) -> inspect.Parameter:
    """A field of a request record as a flag: its help from the field's metadata."""
    from ..registry import SCORERS, VARIANTS
    from ..values import DTYPE_ALIASES, DTYPES

    hint = typing.get_type_hints(record)[field.name]
    optional, base = _optional(hint)
    extra: dict[str, Any] = {"help": field.metadata["help"]}
    if field.metadata.get("metavar") is not None:
        extra["metavar"] = field.metadata["metavar"]
    decls: tuple[str, ...] = ()
    if field.metadata.get("minimum") is not None:
        extra["min"] = field.metadata["minimum"]
    choices = {"scorer": ("auto", *SCORERS), "dtype": (*DTYPES, *DTYPE_ALIASES),
               "variant": tuple(dict.fromkeys(v for names in VARIANTS.values() for v in names))}.get(field.name)
    if choices or _choices(base):
        base = Literal[tuple(choices or _choices(base))]
    if field.name == "dtype":  # BF16 as bf16: the one dtype check ignores case (biasatlas.values)
        extra["case_sensitive"] = False
    if field.name == "model":
        decls = ("--model", "-m")
        packaged = ", ".join(f"{name} ({spec.tuning.split(',')[0]})" for name, spec in PACKAGED_MODELS.items())
        extra["help"] += f" (4-bit quantised, dequantised to float32): {packaged}; more in 'biasatlas list'."
    elif field.name == "batch_size":
        base, extra = str, {**extra, "parser": batch_size, "metavar": "N|auto"}
    elif base is bool:
        decls = (f"--{field.name.replace('_', '-')}",)  # a switch only: no --no- form
    default = str(field.default) if field.name == "batch_size" else field.default
    return _parameter(field.name, base | None if optional else base, default, panel, *decls, **extra)


def _optional(hint: Any) -> tuple[bool, Any]:
    """Whether ``hint`` admits None, and the rest of it (a union of Literals stays one hint)."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        arms = [a for a in typing.get_args(hint) if a is not type(None)]
        rest = arms[0] if len(arms) == 1 else typing.Union[tuple(arms)]  # noqa: UP007 (built at run time)
        return len(arms) < len(typing.get_args(hint)), rest
    return False, hint


def _choices(hint: Any) -> tuple[Any, ...]:
    """The values of a ``Literal`` hint, or of a union of nothing but them; () for any other hint."""
    from ..request import literal_values

    arms = typing.get_args(hint) if typing.get_origin(hint) in (typing.Union, types.UnionType) else (hint,)
    return literal_values(hint) if all(literal_values(a) for a in arms) else ()
