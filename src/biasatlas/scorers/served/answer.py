"""A served model's JSON answers, read field by field: :class:`Field`, and the choices of a completions
answer in prompt order (:func:`ordered_choices`).

A server's answer is data from outside: every value a reader uses is checked for its type where it is
read (``Field(said, url).key("choices").items()[0].key("index").whole()``), so an answer of another
shape (``"index": null``, ``{"data": 5}``, ``"text_offset": 5``, ``"index": "first"``) is refused in
one line naming the URL and the field (``choices[0].index``), never a TypeError in the arithmetic
after it, never a value coerced into something else (``str(5)`` as a token).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .http import ServerError

#: A key an answer does not have (told apart from one whose value is ``null``).
MISSING: Any = type("Missing", (), {"__repr__": lambda self: "nothing"})()


class WrongShape(ServerError):
    """A server's answer lacks a field its reader needs, or holds it as another type (exit 1)."""


@dataclass(frozen=True)
class Field:
    """``value``, found at ``path`` (``choices[2].logprobs.text_offset``; empty: the whole body) of the
    answer from ``url``. Each reader method returns the value as the type it names, or raises
    :class:`WrongShape` naming the URL, the path, what was found and what was wanted."""

    value: Any
    url: str
    path: str = ""

    def wrong(self, wanted: str) -> WrongShape:
        shown = repr(self.value)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        return WrongShape(f"{self.url} answered {self.path or 'a body'} = {shown}, not {wanted}")

    @property
    def absent(self) -> bool:
        """Whether the field is missing or ``null`` (an optional field's two ways of saying nothing)."""
        return self.value is None or self.value is MISSING

    def key(self, name: str) -> Field:
        """The member ``name`` of this object (:data:`MISSING` where it has none)."""
        if not isinstance(self.value, dict):
            raise self.wrong("an object")
        return Field(self.value.get(name, MISSING), self.url, f"{self.path}.{name}" if self.path else name)

    def items(self) -> list[Field]:
        """The elements of this list."""
        if not isinstance(self.value, list):
            raise self.wrong("a list")
        return [Field(v, self.url, f"{self.path}[{i}]") for i, v in enumerate(self.value)]

    def members(self) -> list[tuple[str, Field]]:
        """The members of this object, in order."""
        if not isinstance(self.value, dict):
            raise self.wrong("an object")
        return [(str(k), Field(v, self.url, f"{self.path}[{k!r}]")) for k, v in self.value.items()]

    def text(self) -> str:
        if not isinstance(self.value, str):
            raise self.wrong("a string")
        return self.value

    def whole(self) -> int:
        if isinstance(self.value, bool) or not isinstance(self.value, int):
            raise self.wrong("a whole number")
        return self.value

    def count(self) -> int:
        """A whole number of at least 0 (a count, an offset)."""
        if isinstance(self.value, bool) or not isinstance(self.value, int) or self.value < 0:
            raise self.wrong("a whole number of at least 0")
        return self.value

    def number(self) -> float:
        if isinstance(self.value, bool) or not isinstance(self.value, int | float):
            raise self.wrong("a number")
        return float(self.value)

    def maybe_items(self) -> list[Field]:
        """The elements of this list; none where it is absent."""
        return [] if self.absent else self.items()

    def maybe_text(self) -> str | None:
        return None if self.absent else self.text()

    def maybe_whole(self) -> int | None:
        return None if self.absent else self.whole()

    def maybe_count(self) -> int | None:
        return None if self.absent else self.count()

    def maybe_number(self) -> float | None:
        return None if self.absent else self.number()


def ordered_choices(body: Any, prompts: int, url: str = "the server") -> list[Field]:
    """A ``/v1/completions`` answer's choices (from ``url``), one per prompt sent, in prompt order: each
    an object whose ``index`` is a whole number, the indices together 0 … ``prompts`` - 1 (a server may
    answer a list of prompts out of order; two choices of one index would give one prompt's answer to
    another). A count other than ``prompts`` is a :class:`WrongShape`."""
    choices = Field(body, url).key("choices")
    if isinstance(choices.value, list) and len(choices.value) != prompts:
        raise WrongShape(f"{url} answered {len(choices.value)} choices for {_prompts(prompts)}")
    by_index = {c.key("index").whole(): c for c in choices.items()}
    if sorted(by_index) != list(range(prompts)):
        raise WrongShape(f"{url} answered choices of index {sorted(by_index)} for {_prompts(prompts)} "
                         f"(0 to {prompts - 1}, each once)")
    return [by_index[i] for i in range(prompts)]


def _prompts(n: int) -> str:
    return "1 prompt" if n == 1 else f"{n} prompts"
