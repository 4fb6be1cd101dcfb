"""BibTeX entries: of the paper behind each benchmark (its view lists them) and of the models
a report used (assembled by :mod:`biasatlas.report.cite`).

An entry's field values are BibTeX text as written (braces protecting capitals, LaTeX
accents); text taken from a run folder (a model id, file names) goes through
:func:`bibtex_text` first, so it cannot close a brace, add a field or start a command.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .tables import latex_text

#: BibTeX key characters (the rest of a model id becomes "-").
_KEY_UNSAFE = re.compile(r"[^A-Za-z0-9:._-]+")


@dataclass(frozen=True)
class Reference:
    """One BibTeX entry: ``@kind{key, name = {value}, …}``, fields in the order given."""

    key: str
    kind: str
    fields: tuple[tuple[str, str], ...]

    def bibtex(self) -> str:
        body = ",\n".join(f"  {name} = {{{value}}}" for name, value in self.fields)
        return f"@{self.kind}{{{self.key},\n{body}\n}}\n"

    def field(self, name: str) -> str | None:
        return next((value for key, value in self.fields if key == name), None)


def bibtex_key(*parts: str) -> str:
    """A key BibTeX and LaTeX's ``\\cite`` accept, built from free text (a model id …)."""
    return _KEY_UNSAFE.sub("-", "-".join(p for p in parts if p)).strip("-").lower() or "entry"


def bibtex_text(text: object) -> str:
    """Free text as a BibTeX field value shows it literally: LaTeX's special characters
    escaped (:func:`biasatlas.display.tables.latex_text`), then wrapped in braces so that no
    bibliography style changes its capitals.

    Braces are the exception. BibTeX reads a field value by counting braces and knows no
    escapes: ``\\}`` still closes one, so a model id holding ``}`` ended the field early and
    ``x}, author = {…`` added a field. A brace of the text is therefore written as
    ``\\textbraceleft{}`` / ``\\textbraceright{}``, whose own braces pair up: every value
    holds balanced braces only, whatever the text.
    """
    parts = _BRACE.split(str(text))  # the braces, captured, at the odd places
    return "{" + "".join(_BRACE_COMMAND.get(part) or latex_text(part) for part in parts) + "}"


_BRACE = re.compile(r"([{}])")
_BRACE_COMMAND = {"{": r"\textbraceleft{}", "}": r"\textbraceright{}"}
