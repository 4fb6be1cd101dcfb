"""Tables for the report: one small model, rendered to the terminal, Markdown, CSV and HTML.

A :class:`Table` holds raw values; formatting happens once, in :func:`cell_text`, so the
terminal, Markdown and HTML show the same digits. Intervals and p-values are typed cells
(:class:`CI`, :class:`PValue`) because they print differently from plain numbers.
A benchmark's headline numbers are :class:`Metric` records (the CSV and JSON outputs), and
its leaderboard is one :func:`leaderboard_table` with the run settings appended.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .runview import SETTINGS, RunView

#: Rows of an item-level table (the most extreme items only, so 20,000 items render as fast as 200).
N_EXAMPLES = 8


@dataclass(frozen=True)
class CI:
    """A confidence interval, printed ``[low, high]`` with one decimal."""

    low: float | None
    high: float | None

    def __str__(self) -> str:
        if self.low is None or self.high is None:
            return "–"
        return f"[{self.low:.1f}, {self.high:.1f}]"


@dataclass(frozen=True)
class PValue:
    """A p-value, printed with three significant digits (``<1e-300`` below float range)."""

    value: float | None

    def __str__(self) -> str:
        if self.value is None or not math.isfinite(self.value):
            return "–"
        return "<1e-300" if self.value == 0 else f"{self.value:.3g}"


@dataclass(frozen=True)
class Table:
    """Rows of raw cells under named columns, with a title and an optional caption."""

    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    caption: str = ""
    numeric: tuple[bool, ...] = field(default=())

    def __post_init__(self) -> None:
        for i, row in enumerate(self.rows):
            if len(row) != len(self.columns):
                raise ValueError(f"table {self.title!r}: row {i} has {len(row)} cells, "
                                 f"expected {len(self.columns)}")
        if not self.numeric:
            object.__setattr__(self, "numeric", tuple(_numeric_column(self.rows, i)
                                                      for i in range(len(self.columns))))

    def text_rows(self) -> list[list[str]]:
        return [[cell_text(c) for c in row] for row in self.rows]


def _numeric_column(rows: Sequence[Sequence[Any]], index: int) -> bool:
    cells = [r[index] for r in rows if r[index] is not None]
    return bool(cells) and all(isinstance(c, (int, float, CI, PValue)) and not isinstance(c, bool)
                               for c in cells)


def cell_text(value: Any) -> str:
    """The one formatting rule: 2 decimals for floats, '–' for missing values."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return "–" if not math.isfinite(value) else f"{value:.2f}"
    return str(value)


# -- renderers ----------------------------------------------------------------------------
_MD_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_MD_SPECIAL = re.compile(r"[&<>\\`*~|]"
                         # "]" only where it would close a link or image: before "(", "[" or ":"
                         r"|\](?=[(\[:])"
                         # "_" only where it could open or close emphasis: not between two letters or digits
                         r"|(?<![^\W_])_|_(?![^\W_])")


def md_text(text: object) -> str:
    """Text as Markdown shows it literally, on one line.

    ``<``, ``>`` and ``&`` become entities, so no renderer sees a tag (``<script>`` stays
    text); ``|``, ``\\``, backticks, ``*`` and ``~`` are backslash-escaped, and so are ``]``
    before ``(``, ``[`` or ``:`` (a link, image or reference), a leading ``[`` (a link
    definition) and ``_`` outside a word.
    Brackets alone (``model [r2]``) and ``bert_base_cased`` are left as they are: they
    cannot start a link or emphasis there.
    """
    flat = " ".join(str(text).splitlines())
    out = _MD_SPECIAL.sub(lambda m: _MD_ENTITIES.get(m.group(), "\\" + m.group()), flat)
    # at the start of a line "[name]: url" would define a link target: a caption may start a line
    return "\\" + out if out.startswith("[") else out


def to_markdown(table: Table) -> str:
    """A GitHub-flavoured Markdown table; every cell, title and caption through :func:`md_text`."""
    esc = md_text
    lines = [f"**{esc(table.title)}**", "", "| " + " | ".join(esc(c) for c in table.columns) + " |",
             "|" + "|".join("---:" if num else "---" for num in table.numeric) + "|"]
    lines += ["| " + " | ".join(esc(c) for c in row) + " |" for row in table.text_rows()]
    if table.caption:
        lines += ["", esc(table.caption)]
    return "\n".join(lines) + "\n"


def to_rich(table: Table) -> Any:
    """A rich table; every text is escaped, since ``[r1]`` would otherwise read as markup."""
    from rich.markup import escape
    from rich.table import Table as RichTable

    out = RichTable(title=escape(table.title), caption=escape(table.caption) if table.caption else None)
    for name, num in zip(table.columns, table.numeric):
        # numbers never wrap mid-value; text columns fold instead
        out.add_column(escape(name), justify="right" if num else "left", no_wrap=num)
    for row in table.text_rows():
        out.add_row(*(escape(cell) for cell in row))
    return out


#: A text cell starting with one of these is a formula to Excel, LibreOffice and Google Sheets.
FORMULA_STARTS: tuple[str, ...] = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """A CSV cell safe to open in a spreadsheet: text that starts like a formula gets a leading
    ``'`` (OWASP's rule), so ``=HYPERLINK(…)`` in a model or file name stays text. Numbers
    are not text and stay as they are: ``-0.5`` is written ``-0.5``."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def _csv_field(value: Any) -> str:
    """One RFC 4180 field: quoted when it holds a comma, a quote or a line break of either kind
    (the csv module, with ``\\n`` line ends, would leave a bare ``\\r`` unquoted)."""
    value = csv_cell(value)
    if value is None:
        return ""
    text = str(value)
    return '"' + text.replace('"', '""') + '"' if any(ch in text for ch in ',"\r\n') else text


def to_csv(rows: Iterable[Mapping[str, Any]]) -> str:
    """Rows as CSV under the first row's keys, every cell through :func:`csv_cell`."""
    rows = list(rows)
    if not rows:
        return ""
    names = list(rows[0])
    lines = [names] + [[row.get(name) for name in names] for row in rows]
    return "".join(",".join(_csv_field(cell) for cell in line) + "\n" for line in lines)


# -- headline numbers and leaderboards ------------------------------------------------------
@dataclass(frozen=True)
class Metric:
    """One headline number of a run, with its interval and count where it has them."""

    name: str
    value: Any
    ci_low: Any = None
    ci_high: Any = None
    n: Any = None


def leaderboard_table(title: str, columns: tuple[str, ...], rows: Sequence[tuple[RunView, tuple[Any, ...]]],
                      runs: Sequence[RunView], caption: str) -> Table:
    """A leaderboard: one row per run, then one column per recorded setting (:data:`~.runview.SETTINGS`),
    so a run on 80 pairs never passes for a full one."""
    settings = tuple((k, label) for k, label in SETTINGS if any(k in r.benchmark_config for r in runs))
    cells = tuple(cells + tuple(r.benchmark_config.get(k) for k, _ in settings) for r, cells in rows)
    if settings:
        caption += " limit / sample: – means all items."
    return Table(title, columns + tuple(label for _, label in settings), cells, caption)
