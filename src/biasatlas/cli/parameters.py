"""The flags of the run commands, built once for ``biasatlas run NAME`` (:mod:`.run`), the grid
``biasatlas run A,B`` (:mod:`.grid`) and ``biasatlas lint NAME`` (:mod:`.lint`).

A flag is an :class:`inspect.Parameter` whose annotation typer reads (``Annotated[type,
typer.Option(...)]``), in one of four help panels; a command is a function given a signature
built at run time. The model and engine flags come from the fields of
:class:`~biasatlas.request.ModelOptions` and :class:`~biasatlas.request.EngineOptions` (help,
placeholder and bounds from their metadata). Both command modules import this one, so neither
imports the other to share them.
"""

from __future__ import annotations

import inspect
import types
import typing
from copy import copy
from dataclasses import Field
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from ..scorers.inprocess.packaged import PACKAGED_MODELS
from .options import batch_size

BENCHMARK_PANEL, MODEL_PANEL, ENGINE_PANEL, RUN_PANEL = ("Benchmark options", "Model options", "Engine options",
                                                         "Run options")


def click_command(name: str, function: Any, parameters: list[inspect.Parameter], doc: str) -> Any:
    """``function`` as the click command ``name``, its flags the typer ``parameters`` (a
    signature built at run time), with its help ``doc`` and plain placeholders."""
    function.__signature__ = inspect.Signature(parameters)  # read by typer
    function.__doc__ = doc
    single = typer.Typer(add_completion=False)
    single.command(name)(function)
    built = typer.main.get_command(single)
    built.name = name
    option_placeholders(built)
    return built


def option_placeholders(command: Any) -> None:
    """Give every option of ``command`` (not of its subcommands) a placeholder that names what to
    type: ``<N>`` for a number, ``<model>`` for a word, nothing for a switch. Typer would show the
    Python type (``<str>``, ``<int range>``, ``<list[str]>``, and ``<bool>`` even on ``--help``)."""
    params = [*command.params, command.get_help_option(typer.Context(command))]
    for param in params:
        if isinstance(param, typer.core.TyperArgument):  # its name (RUNS...) says it: no type beside it
            setattr(param, "display_type_rich", lambda ctx: None)  # noqa: B010 (an instance's own, not the class's)
        elif param is not None and param.metavar is None:
            param.metavar = _placeholder(param)


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


def parameter(name: str, annotation: Any, default: Any, panel: str, *decls: str, **option: Any) -> inspect.Parameter:
    """The flag ``name`` in ``panel``: ``annotation`` a type (``decls`` and ``option`` make its
    ``typer.Option``) or a shared ``Annotated`` alias of :mod:`.options` (only the panel is added)."""
    if typing.get_origin(annotation) is Annotated:
        base, shared = typing.get_args(annotation)
        info = copy(shared)
        info.rich_help_panel = panel
        annotation = Annotated[base, info]
    else:
        annotation = Annotated[annotation, typer.Option(*decls, rich_help_panel=panel, **option)]
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)


def record_parameter(field: Field[Any], record: type, panel: str) -> inspect.Parameter:
    """A field of a request record as a flag: its help from the field's metadata."""
    from ..registry import SCORERS, all_variants
    from ..values import DTYPE_ALIASES, DTYPES

    hint = typing.get_type_hints(record)[field.name]
    optional, base = split_optional(hint)
    extra: dict[str, Any] = {"help": field.metadata["help"]}
    if field.metadata.get("metavar") is not None:
        extra["metavar"] = field.metadata["metavar"]
    decls: tuple[str, ...] = ()
    if field.metadata.get("minimum") is not None:
        extra["min"] = field.metadata["minimum"]
    choices = {"scorer": ("auto", *SCORERS), "dtype": (*DTYPES, *DTYPE_ALIASES),
               "variant": all_variants()}.get(field.name)
    if choices or literal_choices(base):
        base = Literal[tuple(choices or literal_choices(base))]
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
    return parameter(field.name, base | None if optional else base, default, panel, *decls, **extra)


def split_optional(hint: Any) -> tuple[bool, Any]:
    """Whether ``hint`` admits None, and the rest of it (a union of Literals stays one hint)."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        arms = [a for a in typing.get_args(hint) if a is not type(None)]
        rest = arms[0] if len(arms) == 1 else typing.Union[tuple(arms)]  # noqa: UP007 (built at run time)
        return len(arms) < len(typing.get_args(hint)), rest
    return False, hint


def literal_choices(hint: Any) -> tuple[Any, ...]:
    """The values of a ``Literal`` hint, or of a union of nothing but them; () for any other hint."""
    from ..request import literal_values

    arms = typing.get_args(hint) if typing.get_origin(hint) in (typing.Union, types.UnionType) else (hint,)
    return literal_values(hint) if all(literal_values(a) for a in arms) else ()
