"""A table too wide for the terminal, cut into column groups that each fit: every group repeats the
row names (the first column) and keeps a value beside its interval ("bias amb" with the "95% CI"
after it), so each row stays one line. BBQ's thirteen columns over eleven categories printed as a
12-line block per category (about 140 lines); as three groups of one line per row they take about
45. The caption follows the last group only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .table_model import Table


def units(columns: Sequence[str]) -> list[list[int]]:
    """The columns after the first, in runs that must stay together: an interval ("95% CI…") with
    the value before it."""
    out: list[list[int]] = []
    for i in range(1, len(columns)):
        if out and columns[i].startswith("95%"):
            out[-1].append(i)
        else:
            out.append([i])
    return out


def part(table: Table, columns: Sequence[int], index: int, count: int) -> Table:
    """The first column and ``columns`` of ``table``, titled "(index/count)", the caption on the last."""
    keep = [0, *columns]
    return Table(f"{table.title} ({index}/{count})", tuple(table.columns[i] for i in keep),
                 tuple(tuple(row[i] for i in keep) for row in table.rows),
                 table.caption if index == count else "", tuple(table.numeric[i] for i in keep))


def column_groups(table: Table, fits: Callable[[Table], bool]) -> list[Table] | None:
    """``table`` as column groups that each ``fits`` (packed greedily, in column order), or None
    when one unit of columns beside the first does not fit on its own (then only a row at a time can)."""
    groups: list[list[int]] = []
    current: list[int] = []
    for unit in units(table.columns):
        if current and fits(part(table, current + unit, 1, 1)):
            current += unit
            continue
        if not fits(part(table, unit, 1, 1)):
            return None
        if current:
            groups.append(current)
        current = list(unit)
    if current:
        groups.append(current)
    if len(groups) < 2:
        return None
    return [part(table, g, i + 1, len(groups)) for i, g in enumerate(groups)]
