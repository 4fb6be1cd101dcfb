"""Tables for the report: one small model, rendered to the terminal, Markdown, CSV and HTML.

A :class:`Table` holds raw values; formatting happens once, in :func:`cell_text`, so the
terminal, Markdown and HTML show the same digits. Intervals and p-values are typed cells
(:class:`CI`, :class:`PValue`) because they print differently from plain numbers. The table
model lives in :mod:`.table_model` (re-exported here).
A benchmark's headline numbers are :class:`Metric` records (the CSV and JSON outputs), and
its leaderboard is one :func:`leaderboard_table` with the run settings appended.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..runs.view import SETTINGS, RunView
from .split import column_groups
from .table_model import CI as CI
from .table_model import NO_SPREAD as NO_SPREAD
from .table_model import NO_SPREAD_NOTE as NO_SPREAD_NOTE
from .table_model import PValue as PValue
from .table_model import Table as Table
from .table_model import cell_text as cell_text
from .table_model import interval_text as interval_text

#: Rows of an item-level table (the most extreme items only, so 20,000 items render as fast as 200).
N_EXAMPLES = 8


def fragile_line(summary: Mapping[str, Any], total: Any, what: str) -> str | None:
    """``fragile: N of M <what> (dtype)``, the outcomes that could flip within the scorer's
    numerical error; shown only below float32 or when some are fragile (None otherwise, and
    for runs written before it was recorded)."""
    n, dtype = summary.get("n_fragile"), (summary.get("fragile_bound") or {}).get("dtype")
    if n is None or (not n and dtype in ("float32", "float64")):
        return None
    return f"fragile: {n} of {total} {what} ({dtype or '–'})"


def fragile_note(summary: Mapping[str, Any], total: Any, what: str, flips: str) -> str:
    """:func:`fragile_line` as a caption's closing sentence (``" fragile: 3 of 40 pairs (bfloat16):
    the outcome could flip within the dtype's error."``), or ``""`` where it shows nothing."""
    line = fragile_line(summary, total, what)
    return f" {line}: {flips} could flip within the dtype's error." if line else ""


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


#: LaTeX's special characters, and the few non-ASCII signs the tables print that a default
#: pdflatex setup cannot typeset, each with what shows it literally.
_LATEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
          "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
          "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}", "–": "--", "—": "---",
          "−": r"\textminus{}", "·": r"\textperiodcentered{}", "Δ": r"$\Delta$", "≥": r"$\geq$",
          "≤": r"$\leq$", "±": r"$\pm$", "…": r"\ldots{}", "ρ": r"$\rho$", "τ": r"$\tau$", "α": r"$\alpha$",
          "×": r"$\times$"}
#: Control characters (C0, DEL, C1) and the line and paragraph separators: pdflatex stops at
#: them ("Unicode character … not set up", "invalid character"), so each becomes a space.
_LATEX_BLANKS = "\x00-\x1f\x7f-\x9f\u2028\u2029"
_LATEX_SPECIAL = re.compile("|".join(re.escape(ch) for ch in _LATEX) + f"|[{_LATEX_BLANKS}]")


def latex_text(text: object) -> str:
    """Text as LaTeX typesets it literally, on one line: ``& % $ # _ { } ~ ^ \\`` escaped (one
    pass, so an escape's own braces are never escaped again), and the dashes, minus and
    Greek delta the tables use spelled as LaTeX commands. Other non-ASCII text (accents,
    Chinese) is left as UTF-8: LaTeX reads UTF-8 by default; Chinese needs a CJK package.
    Line breaks, tabs and every other control character or separator become spaces."""
    return _LATEX_SPECIAL.sub(lambda m: _LATEX.get(m.group(), " "), str(text))


def to_latex(table: Table, label: str) -> str:
    """A booktabs ``table`` float: caption (the title, then the caption text) and ``label``
    above a ``tabular`` with ``\\toprule``, ``\\midrule`` and ``\\bottomrule``; numeric
    columns right-aligned, a sentence-long text column wrapped, the tabular shrunk to the line
    width where wider (:mod:`.latex_fit`); every cell as the terminal and HTML show it
    (:func:`cell_text`), through :func:`latex_text`."""
    from .latex_fit import column_spec, columns_of, fitted, header_cell, wrapped_cell

    plain = table.text_rows()
    rows = [[latex_text(c) for c in row] for row in plain]
    spec = column_spec(table.numeric, plain)
    kinds = columns_of(spec)
    caption = latex_text(table.title) + (". " + latex_text(table.caption) if table.caption else "")
    heads = [latex_text(c) if kinds[i].startswith("p")  # a wrapped column wraps its header too
             else header_cell(c, latex_text(c), [row[i] for row in plain]) for i, c in enumerate(table.columns)]
    tabular = [f"\\begin{{tabular}}{{{spec}}}", r"\toprule", " & ".join(heads) + r" \\", r"\midrule"]
    tabular += [" & ".join(wrapped_cell(c, kind) for c, kind in zip(row, kinds)) + r" \\" for row in rows]
    tabular += [r"\bottomrule", r"\end{tabular}"]
    lines = [r"\begin{table}[htbp]", r"\centering", r"\small", f"\\caption{{{caption}}}", f"\\label{{{label}}}",
             *fitted(tabular), r"\end{table}"]
    return "\n".join(lines) + "\n"


def to_rich(table: Table, width: int | None = None, *, caption_below: bool = False) -> Any:
    """A rich table; every text is escaped, since ``[r1]`` would otherwise read as markup.

    No cell ever wraps (an interval cut into "[8.3," and "58.3]" misreads). A table wider
    than ``width`` columns is narrowed first, the way a person would set it: a header wider
    than its column's cells goes on two or more lines ("likelihood / difference"), then a
    column that says the same on every row moves into the caption ("test: McNemar exact"); a
    table of a few rows is then turned on its side, one column per row (:func:`transposed`: a
    run's value row and its interval row side by side); a table of more rows is cut into column
    groups that each fit, the row names repeated (:mod:`.split`); only a table whose single
    column does not fit beside its names is printed one row at a time (:func:`stacked`).
    ``caption_below``: the caption follows as a paragraph of the console's width (the terminal),
    not squeezed into the table's own width (a three-column table's caption took 24 columns).
    """
    folded = fold_constant_columns(table)
    variants = [(table, False), (table, True), (folded, True)]
    if len(table.rows) <= MAX_TRANSPOSED_ROWS:
        variants.append((transposed(table), True))
    for variant, wrap in variants:
        out = _rich_table(variant, wrap_headers=wrap, caption=not caption_below)
        if width is None or rich_width(out) <= width:
            return _captioned(out, variant.caption if caption_below else "")
    grouped = None if width is None else _in_groups(folded, width, caption=not caption_below)
    if grouped is not None:
        return _captioned(grouped, folded.caption if caption_below else "")
    return stacked(table)


def _captioned(out: Any, caption: str) -> Any:
    from rich.console import Group
    from rich.text import Text

    return Group(out, Text(caption, style="dim")) if caption else out


def _in_groups(table: Table, width: int, *, caption: bool) -> Any:
    """The table as column groups that each fit ``width`` (:mod:`.split`), one under the other, with
    ``caption`` the caption under the last; None when no such cut exists."""
    from rich.console import Group

    parts = column_groups(table, lambda t: rich_width(_rich_table(t, wrap_headers=True)) <= width)
    if parts is None:
        return None
    return Group(*(_rich_table(t, wrap_headers=True, caption=caption and i == len(parts) - 1)
                   for i, t in enumerate(parts)))


#: The most rows a too-wide table may have to be shown on its side: beyond a few, a reader
#: compares rows down a column, which turning the table would cut into a line per row.
MAX_TRANSPOSED_ROWS = 3


def transposed(table: Table) -> Table:
    """``table`` on its side: its first column's cells head the new columns (one per row), its
    other columns' names head the new rows ("normative", "descriptive" …), cells unchanged."""
    rows = table.text_rows()
    columns = (table.columns[0], *(row[0] for row in rows))
    body = tuple((name, *(table.rows[r][c] for r in range(len(rows)))) for c, name in enumerate(table.columns)
                 if c > 0)
    return Table(table.title, columns, body, table.caption)


def _rich_table(table: Table, *, wrap_headers: bool, caption: bool = True) -> Any:
    from rich.markup import escape
    from rich.table import Table as RichTable

    out = RichTable(title=escape(table.title), caption=escape(table.caption) if table.caption and caption else None,
                    min_width=len(table.title) + 4)  # a title is never broken to fit a narrow table
    rows = table.text_rows()
    for i, (name, num) in enumerate(zip(table.columns, table.numeric)):
        widest = max((len(row[i]) for row in rows), default=0)
        header = _stacked_words(name, widest) if wrap_headers else name
        out.add_column(escape(header), justify="right" if num else "left", no_wrap=True)
    for row in rows:
        out.add_row(*(escape(cell) for cell in row))
    return out


def _stacked_words(header: str, widest: int) -> str:
    """``header`` broken between words onto as many lines as keep it within ``widest``
    characters (never inside a word): "likelihood difference" over a 5-wide column."""
    lines: list[str] = []
    for word in header.split(" "):
        if lines and len(lines[-1]) + 1 + len(word) <= max(widest, len(word)):
            lines[-1] += " " + word
        else:
            lines.append(word)
    return "\n".join(lines)


def fold_constant_columns(table: Table) -> Table:
    """``table`` without the columns whose cell is the same on every row (of two or more),
    each said once at the head of the caption instead: "quantity: % sent_more preferred".
    Unchanged when that would leave fewer than two columns beside the first: a table of names
    alone says nothing (rows of a fake model agree on every number)."""
    rows = table.text_rows()
    if len(rows) < 2:
        return table
    constant = [i for i in range(1, len(table.columns)) if len({row[i] for row in rows}) == 1]
    if not constant:
        return table
    kept = [i for i in range(len(table.columns)) if i not in constant]
    if len(kept) < 3:
        return table
    said = "; ".join(f"{table.columns[i]}: {rows[0][i]}" for i in constant)
    return Table(table.title, tuple(table.columns[i] for i in kept),
                 tuple(tuple(row[i] for i in kept) for row in table.rows),
                 f"{said}. {table.caption}".strip() if table.caption else said,
                 tuple(table.numeric[i] for i in kept))


def rich_width(renderable: Any) -> int:
    """The columns ``renderable`` takes when nothing wraps (its natural width)."""
    import io

    from rich.console import Console
    from rich.measure import Measurement

    console = Console(width=10_000, file=io.StringIO())
    return int(Measurement.get(console, console.options, renderable).maximum)


def stacked(table: Table) -> Any:
    """The table one row at a time: a heading (the row's first cell), then one line per
    other column, name and value; for terminals too narrow for the table's width."""
    from rich import box
    from rich.console import Group
    from rich.markup import escape
    from rich.table import Table as RichTable
    from rich.text import Text

    parts: list[Any] = [Text(table.title, style="bold italic", justify="center")]
    for row in table.text_rows():
        # the heading is a line of its own: as the block's title it wrapped at the block's width
        # ("organisation/a-rather-l" / "ong-model-name-7b"), a cut in the one cell that names the row
        parts.append(Text(f"{table.columns[0] or 'row'}: {row[0]}", style="bold"))
        block = RichTable(show_header=False, box=box.SIMPLE, padding=(0, 1))
        block.add_column(no_wrap=True, style="bold")
        block.add_column(overflow="fold")
        for name, cell in zip(table.columns[1:], row[1:]):
            block.add_row(escape(name), escape(cell))
        parts.append(block)
    if table.caption:
        parts.append(Text(table.caption, style="dim"))
    return Group(*parts)


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
    """One headline number of a run, with its interval and count where it has them.

    ``name`` is the summary.json field it comes from (stable, for scripts); ``label`` is
    how the terminal and the report tables spell it (the name when empty).
    """

    name: str
    value: Any
    ci_low: Any = None
    ci_high: Any = None
    n: Any = None
    label: str = ""


#: The leaderboard's mark on a run whose section carries a warning (plain text in every format).
WARNING_MARK = " †"


def leaderboard_table(title: str, columns: tuple[str, ...], rows: Sequence[tuple[RunView, tuple[Any, ...]]],
                      runs: Sequence[RunView], caption: str,
                      warnings: Callable[[RunView], Sequence[str]] | None = None) -> Table:
    """A leaderboard: one row per run, then the items it scored in words (:attr:`RunView.subset`:
    ``all items``, ``limit 80``, ``scenarios 2 (seed 0)``), so a run on 80 pairs never passes for
    a full one, then one column per other recorded setting (:data:`~biasatlas.runs.view.SETTINGS`).
    A run with ``warnings``, or one a control flags (``RunView.flagged``), gets :data:`WARNING_MARK`
    after its first cell (its label), so a tilted number is not read bare; the mark is the run's
    own, never another run's of the same model."""
    chosen = {k.key for r in runs for k in r.subset_keys}
    settings = tuple((k, label) for k, label in SETTINGS
                     if k not in chosen and any(k in r.benchmark_config for r in runs))
    marked = {id(r) for r, _ in rows if r.flagged or warnings is not None and warnings(r)}
    cells = tuple(_marked(cells, id(r) in marked) + (r.subset,) + tuple(r.benchmark_config.get(k) for k, _ in settings)
                  for r, cells in rows)
    if marked:
        caption += f" {WARNING_MARK.strip()} the run's own section carries a warning: read it before comparing."
    return Table(title, columns + ("items scored",) + tuple(label for _, label in settings), cells, caption)


def _marked(cells: tuple[Any, ...], mark: bool) -> tuple[Any, ...]:
    return (f"{cells[0]}{WARNING_MARK}",) + cells[1:] if mark and cells else cells
