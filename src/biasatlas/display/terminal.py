"""A run as the terminal shows it: the report's own tables, fitted to the console when printed.

``biasatlas run`` and ``run.table()`` print the tables the report shows for the run (its
benchmark view's ``tables``), so the terminal and the page can never tell two stories,
and no benchmark keeps a second, terminal-only renderer. Each table is narrowed or
stacked to the width of the console that prints it (:func:`.tables.to_rich`: no cell is
ever wrapped), and the sentences a reader must not miss (the view's ``notices``) follow.
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

        for table in self.tables:
            yield to_rich(table, width=options.max_width)
        for notice in self.notices:
            yield Text(notice)
