"""Tables for the report: one small model, rendered to the terminal, Markdown, CSV and HTML.

A :class:`Table` holds raw values; formatting happens once, in :func:`cell_text`, so the
terminal, Markdown and HTML show the same digits. Intervals and p-values are typed cells
(:class:`CI`, :class:`PValue`) because they print differently from plain numbers.
The headline numbers of each benchmark (:func:`metric_rows`) feed the leaderboard and the
CSV/JSON outputs.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from .runs import SETTINGS, RunView


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


# -- headline numbers ------------------------------------------------------------------------
@dataclass(frozen=True)
class MetricRow:
    """One number of one run, in long form (the CSV and JSON outputs)."""

    run: str
    path: str
    benchmark: str
    dataset: str
    model: str
    variant: str | None
    metric: str
    value: float | None
    ci_low: float | None = None
    ci_high: float | None = None
    n: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _interval(summary: Mapping[str, Any], key: str) -> tuple[float | None, float | None]:
    pair = (summary.get("intervals") or {}).get(key)
    return (pair[0], pair[1]) if isinstance(pair, (list, tuple)) and len(pair) == 2 else (None, None)


def metric_rows(run: RunView) -> list[MetricRow]:
    """The run's headline numbers with their intervals, by benchmark."""
    def row(metric: str, value: Any, ci: tuple[Any, Any] = (None, None), n: Any = None) -> MetricRow:
        return MetricRow(run.label, str(run.path), run.benchmark, run.dataset, run.model, run.variant,
                         metric, value, ci[0], ci[1], n)

    s = run.summary
    if run.benchmark == "crows-pairs":
        out = [row(k, s.get(k), _interval(s, k), s.get(n)) for k, n in
               (("metric_score", "n"), ("stereo_score", "n_stereo"), ("antistereo_score", "n_antistereo"))]
        out.append(row("neutral_percent", s.get("neutral_percent"), n=s.get("n")))
        for cat, c in sorted((s.get("by_category") or {}).items()):
            ci = c.get("ci") or (None, None)
            out.append(row(f"category:{cat}", c.get("score"), (ci[0], ci[1]), c.get("n")))
        return out
    if run.benchmark == "census":
        n = s.get("n_occupations")
        out = [row(k, s.get(k), _interval(s, k), n) for k in ("normative", "descriptive")]
        out += [row(f"descriptive:{c}", v, n=n) for c, v in (s.get("descriptive_by_class") or {}).items()]
        out += [row(k, s.get(k), n=n) for k in ("pearson", "spearman")]
        return out
    if run.benchmark == "zh-neutral":
        from .zh import zh_overview

        z = zh_overview(run)
        out = [row("bias_score", z.bias_score, _interval(s, "bias_score"), z.n)]
        out += [row(f"leaning:{k}", float(v), n=z.n) for k, v in z.leaning.items()]
        out += [row(f"pair:{p.pair}:mean_abs_b", p.mean_abs_b, n=p.n) for p in z.pairs]
        return out
    return [row(k, v) for k, v in s.items() if isinstance(v, (int, float)) and not isinstance(v, bool)]


# -- leaderboard ---------------------------------------------------------------------------
def _settings(runs: Sequence[RunView]) -> tuple[tuple[str, str], ...]:
    """The :data:`~.runs.SETTINGS` any of these runs recorded, as (key, column label)."""
    return tuple((k, label) for k, label in SETTINGS if any(k in r.benchmark_config for r in runs))


def _with_settings(title: str, columns: tuple[str, ...], rows: list[tuple[RunView, tuple[Any, ...]]],
                   settings: tuple[tuple[str, str], ...], caption: str) -> Table:
    """Append one column per recorded setting, so a run on 80 pairs never passes for a full one."""
    cells = tuple(cells + tuple(r.benchmark_config.get(k) for k, _ in settings) for r, cells in rows)
    if settings:
        caption += " limit / sample: – means all items."
    return Table(title, columns + tuple(label for _, label in settings), cells, caption)


def _lead_crows(runs: Sequence[RunView]) -> Table:
    rows = [(r, (r.label, r.dataset, r.summary.get("n"), r.summary.get("metric_score"),
                 CI(*_interval(r.summary, "metric_score")), r.summary.get("stereo_score"),
                 r.summary.get("antistereo_score"), r.summary.get("neutral")))
            for r in sorted(runs, key=lambda r: (r.dataset, -(r.summary.get("metric_score") or 0)))]
    return _with_settings("CrowS-Pairs leaderboard", ("model", "dataset", "n", "metric", "95% CI", "stereo",
                                                      "anti-stereo", "ties"), rows, _settings(runs),
                          "Sorted by metric score within each dataset; 50 = no preference.")


def _lead_census(runs: Sequence[RunView]) -> Table:
    def key(r: RunView) -> tuple[str, float]:
        return r.dataset, -(r.summary.get("descriptive") or 0)

    rows = []
    for r in sorted(runs, key=key):
        s, by = r.summary, r.summary.get("descriptive_by_class") or {}
        rows.append((r, (r.label, r.dataset, s.get("n_occupations"), s.get("normative"),
                         CI(*_interval(s, "normative")), s.get("descriptive"), CI(*_interval(s, "descriptive")),
                         by.get("balanced"), by.get("female"), by.get("male"))))
    return _with_settings("Census leaderboard (Touileb et al. 2023, Tables 3 and 4)",
                          ("model", "census", "n", "normative", "95% CI", "descriptive", "95% CI", "neutral",
                           "female", "male"), rows, _settings(runs),
                          "n = occupations scored. Neutral/female/male split the descriptive score (shares of "
                          "all occupations). Sorted by descriptive score within each census.")


def _lead_zh(runs: Sequence[RunView]) -> Table:
    from .zh import zh_overview

    rows = []
    for r in runs:
        z = zh_overview(r)
        rows.append((r, (r.label, r.dataset, z.n, z.bias_score, CI(*_interval(r.summary, "bias_score")),
                         z.leaning.get("male"), z.leaning.get("female"), z.leaning.get("neutral"))))
    rows.sort(key=lambda x: (x[1][1], -(x[1][3] or 0)))
    return _with_settings("zh-neutral leaderboard (Zhao et al. 2021)",
                          ("model", "dataset", "n", "mean |b|", "95% CI", "male", "female", "neutral"), rows,
                          _settings(runs), "Sorted by mean |b| (higher = more gendered); leaning counts at "
                          "each run's threshold (paper: 0.3).")


_LEADERS = {"crows-pairs": _lead_crows, "census": _lead_census, "zh-neutral": _lead_zh}


def leaderboard(runs: Sequence[RunView]) -> list[Table]:
    """One table per benchmark, one row per run (known benchmarks only)."""
    return [_LEADERS[b]([r for r in runs if r.benchmark == b]) for b in _LEADERS
            if any(r.benchmark == b for r in runs)]
