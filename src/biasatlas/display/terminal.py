"""A run as the terminal shows it: the report's own tables, fitted to the console when printed.

``biasatlas run`` and ``run.table()`` print the tables the report shows for the run (its
benchmark view's ``tables``), so the terminal and the page can never tell two stories,
and no benchmark keeps a second, terminal-only renderer. Each table is narrowed, cut into
column groups or stacked to the width of the console that prints it (:func:`.tables.to_rich`:
no cell is ever wrapped), its caption a paragraph below it; a table with no rows is one line
(its title and caption); and the sentences a reader must not miss (the view's ``notices``)
follow, each once: a notice a caption already holds is not printed again.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .tables import Table, to_rich


@dataclass(frozen=True)
class TerminalTables:
    """Tables and notices as one rich renderable (``rich.print(run.table())``)."""

    tables: tuple[Table, ...]
    notices: tuple[str, ...] = ()

    def __rich_console__(self, console: Any, options: Any) -> Iterator[Any]:
        from rich.text import Text

        captions = []
        for table in self.tables:
            if not table.rows:  # nothing to tabulate: its title and caption in one sentence
                yield Text(f"{table.title}: {table.caption or 'none.'}")
            else:
                yield to_rich(table, width=options.max_width, caption_below=True)
            captions.append(table.caption)
        for notice in self.notices:
            if not any(notice in caption for caption in captions):  # said once (SEAT's caveat closes its caption)
                yield Text(notice)
