"""How a LaTeX table fits a paper's text width: long text in wrapped columns, and the whole
``tabular`` shrunk to ``\\linewidth`` only when it is wider.

A plain ``article`` is 345 pt wide; a leaderboard of eleven numeric columns, or a row whose
"reading" cell is a sentence, was 300 to 900 pt wider and ran off the page (pdflatex's
"Overfull \\hbox"). Two steps, as one would set such a table by hand: a text column whose
longest cell is a sentence becomes a ``p`` column (it wraps, ragged right), and the tabular goes
in a ``\\resizebox`` that scales it down to ``\\linewidth`` when it is wider and leaves it as it is
otherwise (graphicx's ``\\width`` is the box's natural width). The preamble needs
``\\usepackage{graphicx}`` beside ``booktabs``; a float that should span both columns of a
two-column paper is a ``table*`` the author writes: the box then fits that width instead.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

#: Longest cell (characters) a text column keeps on one line; a longer one wraps.
WRAP_AFTER = 20
#: Characters per em of a wrapped column's width (``\small`` text: about two), and its bounds in em.
CHARS_PER_EM, NARROWEST, WIDEST = 2.2, 6, 13
#: Characters per em of the widest words (``physical-appearance``), which a line cannot break.
WORD_CHARS_PER_EM = 1.8
#: The preamble the tables need, as the file's first line says it.
PREAMBLE = r"\usepackage{booktabs} and \usepackage{graphicx}"


def column_spec(numeric: Sequence[bool], rows: Sequence[Sequence[str]]) -> str:
    """``r`` for a numeric column, ``l`` for short text, a ragged-right ``p`` column for a text
    column whose longest cell is over :data:`WRAP_AFTER` characters, wide enough to set that cell
    on two lines (between :data:`NARROWEST` and :data:`WIDEST` em: a sentence takes more)."""
    out = []
    for i, num in enumerate(numeric):
        cells = [row[i] for row in rows if i < len(row)]
        longest = max((len(c) for c in cells), default=0)
        word = max((len(w) for c in cells for w in c.split()), default=0)  # a line holds its longest word
        width = math.ceil(max(min(longest / CHARS_PER_EM / 2, WIDEST), NARROWEST, word / WORD_CHARS_PER_EM))
        out.append("r" if num else (f"p{{{width}em}}" if longest > WRAP_AFTER else "l"))
    return "".join(out)


def header_cell(name: str, escaped: str, cells: Sequence[str]) -> str:
    """A header longer than every cell of its column, set on two lines (split at the space nearest
    its middle) in a one-column tabular, so that "control 95% CI" does not widen a column of
    "[28.8, 68.7]"; ``escaped`` is ``name`` as LaTeX text."""
    longest = max((len(c) for c in cells), default=0)
    spaces = [i for i, ch in enumerate(escaped) if ch == " "]
    if len(name) <= max(longest, 6) or not spaces:
        return escaped
    cut = min(spaces, key=lambda i: abs(i - len(escaped) / 2))
    return f"\\begin{{tabular}}[b]{{@{{}}l@{{}}}}{escaped[:cut]}\\\\ {escaped[cut + 1:]}\\end{{tabular}}"


def wrapped_cell(text: str, spec: str) -> str:
    """A ``p`` column's cell set ragged right (``\\raggedright`` would end the row's ``\\\\``: the
    cell is a group whose paragraph ends before the ``&``)."""
    return f"{{\\raggedright {text}\\par}}" if spec.startswith("p") else text


def fitted(tabular: Sequence[str]) -> list[str]:
    """The tabular's lines inside a box shrunk to ``\\linewidth`` when wider, else left at its width."""
    return [r"\resizebox{\ifdim\width>\linewidth\linewidth\else\width\fi}{!}{%", *tabular, "}"]


def columns_of(spec: str) -> list[str]:
    """The spec's columns one by one (``lrp{16em}`` → ``l``, ``r``, ``p{16em}``)."""
    out: list[str] = []
    i = 0
    while i < len(spec):
        if spec[i] == "p":
            end = spec.index("}", i)
            out.append(spec[i:end + 1])
            i = end + 1
        else:
            out.append(spec[i])
            i += 1
    return out
