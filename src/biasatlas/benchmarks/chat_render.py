"""A chat template rendered in bounds, and every way it can fail as one line naming it (issue 46).

A ``--chat-template FILE`` is a program the user hands us: Jinja, run in transformers' sandbox
(:mod:`.chat`), which keeps it from the machine (no ``__class__``, no ``{% include %}`` of a file)
but not from running on or filling the memory. Two nested ``{% for i in range(100000) %}`` loops are
ten billion steps, and ``'x' * 10**10`` ten gigabytes, each in a few characters. So the sandbox
here counts what a template does, per rendering:

- **steps** (:data:`MAX_STEPS`): every item a ``{% for %}`` loop takes (the loops are rewritten as the
  template is compiled to iterate through a counter, :func:`_counted`) and every call the sandbox
  makes (a macro, a method, ``loop()`` of a recursive loop, whose items are counted too). A template
  rendering one message takes a few dozen; the nested loops above stop at step 100,001.
- **sizes** (:data:`MAX_SIZE`): the rendered text, checked chunk by chunk as it is generated, and
  every string, list or mapping the template gets from an attribute, an item, a call, a filter or an
  operator, or hands to a call or a filter; a number argument of a call or a filter (a width, a
  count: ``'x'|center(10**9)``) is held to the same bound, and a whole number to :data:`MAX_BITS`.
  What would build the size it describes is checked before it computes: ``*`` and ``**``, and the
  widths of a ``%`` conversion or a ``str.format`` field (``'%0999999999d' % 1``). The largest real
  prompt (a benchmark item of a few thousand characters in a template of a few) is far below.
  Not bounded beforehand: one method or filter whose result is the product of two of its inputs
  (``s.replace('x', s)``, a join with a long separator, ``indent`` of many lines), each input at most
  a million; its result is measured once computed.

Jinja's ``lipsum`` (generated filler text, of any length) is not offered: no chat template asks for it.

Errors: whatever the template does wrong, at compile time (a syntax error, an unknown filter,
``{% include %}``, ``{% import %}`` or ``{% extends %}``: a chat template is one file) or while it
renders (an undefined name's attribute, a call the sandbox refuses, ``1 / 0``, a budget spent), is
one :class:`~biasatlas.errors.DataError` naming the template (the file, or the model whose own it
is) and the template's line where Jinja knows it: the template's fault, not biasatlas's (exit 1, a
malformed input). ``raise_exception('…')``, a template's deliberate refusal, stays its own
:class:`~biasatlas.errors.UsageError` (:mod:`.chat`). A file that is not UTF-8 is refused by the
text-file policy (:mod:`biasatlas.textfiles`) before any of this.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime
from functools import cache, wraps
from pathlib import Path
from typing import Any

from ..errors import BiasAtlasError, DataError, UsageError

#: Loop items and calls one rendering may take.
MAX_STEPS = 100_000
#: The longest text, list or mapping one rendering may build or return, in characters or items.
MAX_SIZE = 1_000_000
#: The widest whole number one rendering may build.
MAX_BITS = 4096

#: Where a template came from, for its errors: its file, or words naming it
#: (``--chat-template model (NAME's template)``).
Origin = Path | str

_SIZED = (str, bytes, list, tuple, dict, set, frozenset)


class _Exceeded(Exception):
    """A budget spent, raised inside the template (so its traceback carries the template's line) and
    reported by :func:`render_bounded` with the template's name."""


@dataclass
class _Steps:
    """The steps one rendering has taken (module docstring); a counter, so not frozen."""

    taken: int = 0

    def take(self) -> None:
        self.taken += 1
        if self.taken > MAX_STEPS:
            raise _Exceeded(f"it did not finish within {MAX_STEPS:,} steps (loop items and calls; a prompt "
                            "for one message takes a few dozen)")


_STEPS: ContextVar[_Steps] = ContextVar("chat_template_steps")


def render_bounded(template: str, origin: Origin, variables: Mapping[str, Any]) -> str:
    """``template`` rendered with ``variables`` within the module's bounds; any failure is a DataError
    naming ``origin`` (module docstring)."""
    compiled = _compiled_in(template, origin)
    token = _STEPS.set(_Steps())
    try:
        return _joined(compiled.generate(**variables))
    except (BiasAtlasError, MemoryError):
        raise  # the template's raise_exception (its own message), and what the CLI says of memory
    except Exception as exc:  # the template's code: every error it raises is its own
        raise _failed(origin, exc, _template_line(exc)) from None
    finally:
        _STEPS.reset(token)


def _compiled_in(template: str, origin: Origin) -> Any:
    """``template`` compiled, or a DataError naming ``origin`` and the line (a syntax error, an
    unknown filter, a template of several files)."""
    from jinja2 import TemplateSyntaxError

    try:
        return _compiled(template)
    except TemplateSyntaxError as exc:
        raise _located(f"not a Jinja chat template: {exc.message}", origin, exc.lineno) from None
    except _OneFile as exc:
        raise _located(str(exc), origin, exc.line) from None


def _joined(chunks: Iterable[str]) -> str:
    parts, size = [], 0
    for chunk in chunks:
        size += len(chunk)
        if size > MAX_SIZE:
            raise _Exceeded(f"it rendered more than {MAX_SIZE:,} characters")
        parts.append(chunk)
    return "".join(parts)


def _failed(origin: Origin, exc: Exception, line: int | None) -> DataError:
    if isinstance(exc, _Exceeded):
        return _located(f"the chat template was stopped: {exc}", origin, line)
    if isinstance(exc, RecursionError):
        return _located("the chat template was stopped: it calls itself without end", origin, line)
    return _located(f"the chat template failed: {type(exc).__name__}: {exc}", origin, line)


def _located(message: str, origin: Origin, line: int | None) -> DataError:
    if isinstance(origin, Path):
        return DataError(message, path=origin, line=line)
    return DataError(f"{origin}{f', line {line}' if line else ''}: {message}")


def _template_line(exc: BaseException) -> int | None:
    """The template's line the error was raised on: Jinja rewrites a traceback so that its frames are
    the template's own (file ``<template>``, the template's line numbers); the innermost one."""
    line, tb = None, exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<template>":
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


class _OneFile(Exception):
    """A template naming another template ({% include %} …): refused as it is compiled."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


@cache
def _compiled(template: str) -> Any:
    env = _environment()
    tree = env.parse(template)
    _refuse_other_files(tree)
    _count_loops(tree)
    return env.from_string(tree)


@cache
def _environment() -> Any:
    """transformers' sandbox (:mod:`.chat`), bounded: one environment, built where a template is compiled
    (jinja2 is imported only there)."""
    from jinja2.ext import loopcontrols
    from jinja2.runtime import LoopContext
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    class Bounded(ImmutableSandboxedEnvironment):
        """The sandbox whose every call, attribute, item and operator is counted and measured."""

        intercepted_binops = frozenset({"+", "-", "*", "/", "//", "%", "**"})

        def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805
            _STEPS.get().take()
            _check_arguments(args, kwargs)
            if isinstance(__obj, LoopContext) and args:  # a recursive loop's next level: its items counted
                args = (_counted(args[0]), *args[1:])
            return _sized(super().call(__context, __obj, *args, **kwargs))

        def getattr(self, obj: Any, attribute: str) -> Any:
            return _sized(super().getattr(obj, attribute))

        def getitem(self, obj: Any, argument: Any) -> Any:
            return _sized(super().getitem(obj, argument))

        def wrap_str_format(self, value: Any) -> Any:
            wrapped = super().wrap_str_format(value)
            if wrapped is not None:  # a text's format or format_map: its fields' widths measured first
                _check_widths(value.__self__, _FORMAT_FIELD)
            return wrapped

        def call_binop(self, context: Any, operator_: str, left: Any, right: Any) -> Any:
            _check_operands(operator_, left, right)
            return _sized(super().call_binop(context, operator_, left, right))

    env = Bounded(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
    env.globals.pop("lipsum", None)
    env.globals["raise_exception"] = _raise
    env.globals["strftime_now"] = _strftime_now
    env.filters["tojson"] = _tojson
    env.filters = {name: _measured(f) for name, f in env.filters.items()}
    env.filters[_COUNTED] = _counted
    return env


def _raise(message: str) -> None:
    # A template's own refusal (``raise_exception('Conversation roles must alternate…')``), as transformers raises it.
    raise UsageError(f"the chat template refused the prompt: {message}")


def _strftime_now(fmt: str) -> str:
    return datetime.now().strftime(fmt)


def _tojson(value: Any, ensure_ascii: bool = False, indent: int | None = None, separators: Any = None,
            sort_keys: bool = False) -> str:
    # transformers' tojson: no HTML escaping (Jinja's own escapes <, >, & for web pages)
    return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


_COUNTED = "biasatlas_counted"


def _refuse_other_files(tree: Any) -> None:
    from jinja2 import nodes

    for kind, tag in ((nodes.Include, "include"), (nodes.Import, "import"), (nodes.FromImport, "from … import"),
                      (nodes.Extends, "extends")):
        for node in tree.find_all(kind):
            raise _OneFile(f"{{% {tag} %}} reads another template; a chat template is one file", node.lineno)


def _count_loops(tree: Any) -> None:
    """Every ``{% for %}`` of ``tree`` made to iterate through :func:`_counted` (a filter added to its
    iterable: the compiler then looks the filter up like any other)."""
    from jinja2 import nodes

    for loop in tree.find_all(nodes.For):
        loop.iter = nodes.Filter(loop.iter, _COUNTED, [], [], None, None, lineno=loop.lineno)


def _counted(iterable: Any) -> Iterator[Any]:
    steps = _STEPS.get()
    for item in iterable:
        steps.take()
        yield item


def _measured(f: Callable[..., Any]) -> Callable[..., Any]:
    """A filter whose arguments and result are held to the sizes (module docstring); the value it
    filters is measured as any value is, its other arguments also as numbers. ``wraps`` keeps the
    attribute that asks Jinja to pass the context or the environment."""
    @wraps(f)
    def measured(*args: Any, **kwargs: Any) -> Any:
        # a filter given the context or the environment gets it first, then the value
        skip = 2 if getattr(f, "jinja_pass_arg", None) is not None else 1
        for value in args[:skip]:
            _sized(value)
        _check_arguments(args[skip:], kwargs)
        return _sized(f(*args, **kwargs))
    return measured


def _check_arguments(args: Iterable[Any], kwargs: Mapping[str, Any]) -> None:
    for value in (*args, *kwargs.values()):
        _sized(value)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) > MAX_SIZE:
            raise _Exceeded(f"an argument of {value:,} is beyond {MAX_SIZE:,} (no prompt needs one)")


def _sized(value: Any) -> Any:
    if isinstance(value, _SIZED) and len(value) > MAX_SIZE:
        unit = "characters" if isinstance(value, str) else "items"
        raise _Exceeded(f"it built a {type(value).__name__} of {len(value):,} {unit} (more than {MAX_SIZE:,})")
    if isinstance(value, int) and value.bit_length() > MAX_BITS:
        raise _Exceeded(f"it built a number of {value.bit_length():,} bits (more than {MAX_BITS:,})")
    return value


def _check_operands(operator_: str, left: Any, right: Any) -> None:
    """``*`` and ``**`` measured before they compute: a repeated text or list, a product or a power
    beyond the sizes would take the time and memory it describes."""
    if operator_ == "*":
        for sequence, times in ((left, right), (right, left)):
            if isinstance(sequence, _SIZED) and isinstance(times, int) and len(sequence) * times > MAX_SIZE:
                raise _Exceeded(f"it repeats a {type(sequence).__name__} {times:,} times (more than "
                                f"{MAX_SIZE:,} items)")
        if _whole(left) and _whole(right) and left.bit_length() + right.bit_length() > MAX_BITS:
            raise _Exceeded(f"it multiplies numbers beyond {MAX_BITS:,} bits")
    if operator_ == "%" and isinstance(left, str):
        _check_widths(left, _PERCENT_FIELD)
    if (operator_ == "**" and _whole(left) and _whole(right) and abs(left) > 1 and right > 0
            and right * abs(left).bit_length() > MAX_BITS):
        raise _Exceeded(f"it raises {left:,} to the power {right:,} (beyond {MAX_BITS:,} bits)")


#: A ``%`` conversion's flags, width and precision; a ``str.format`` field's spec (after its ``:``).
_PERCENT_FIELD = re.compile(r"%(?:\([^)]*\))?([-#0 +\d.*]*)[a-zA-Z%]")
_FORMAT_FIELD = re.compile(r"\{[^{}]*?:([^{}]*)\}")


def _check_widths(text: str, fields: re.Pattern[str]) -> None:
    """The widths and precisions ``text`` formats its values to, held to the sizes before it formats
    (``'%0999999999d' % 1`` is a gigabyte)."""
    for field in fields.finditer(text):
        for digits in re.findall(r"\d+", field.group(1)):
            if int(digits) > MAX_SIZE:
                raise _Exceeded(f"it formats a value to {int(digits):,} characters (more than {MAX_SIZE:,})")


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)

