"""The report against hostile and damaged input: formula cells, markup, odd labels, broken folders.

Run folders are built as in ``report_fixtures`` (through the real writer) and then edited
the way a crash, a text editor or a malicious data file would leave them. The command-line
cases run ``python -m biasatlas report``, the path a user sees: one ``error:`` line and exit
code 2, never a traceback.
"""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from biasatlas.report import build_report, load_runs, render, render_html
from report_fixtures import XSS, XSS_IMG, _write, census_run, crows_records, crows_run, zh_run

LONG = "org/" + "m" * 136 + "-step-1000"  # 150 characters, no space to break at
assert len(LONG) == 150


def _cli(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "biasatlas", *map(str, args)], capture_output=True, text=True,
                          timeout=300)


def _edit_json(path: Path, **changes: object) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc.update(changes)
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")


def _edit_item(folder: Path, line: int, **changes: object) -> None:
    items = folder / "items.jsonl"
    lines = items.read_text(encoding="utf-8").splitlines()
    lines[line - 1] = json.dumps({**json.loads(lines[line - 1]), **changes}, ensure_ascii=False)
    items.write_text("\n".join(lines) + "\n", encoding="utf-8")


# -- 1. CSV: no cell a spreadsheet would run ------------------------------------------------------
@pytest.mark.parametrize("name", ["=HYPERLINK(\"http://x.test\",\"a\")", "+1+1", "-2+3", "@SUM(A1:A2)",
                                  "\tindented", "\rcarriage", "=cmd|' /C calc'!A0"])
def test_csv_text_cells_that_start_like_a_formula_get_a_quote(tmp_path, name):
    # the model name and the --data file name (the dataset column) both reach the CSV
    records = crows_records(["more"] * 12)
    from biasatlas.benchmarks.crows_pairs import summarise

    folder = _write(tmp_path / "run", "crows-pairs", name, name, summarise(records), records)
    rows = list(csv.DictReader(io.StringIO(render(build_report(load_runs([folder]), compare=False), "csv"))))
    assert rows
    for row in rows:
        assert row["model"] == "'" + name and row["run"] == "'" + name and row["dataset"] == "'" + name
    for row in rows:
        for cell in row.values():
            if cell.startswith(("=", "+", "-", "@", "\t", "\r")):
                float(cell)  # only a number may start like that (a negative one); text never does


def test_csv_leaves_numbers_and_plain_text_alone(tmp_path):
    folder = census_run(tmp_path / "census", model="ltg/norbert")
    _edit_json(folder / "summary.json", pearson=-0.42)
    rows = list(csv.DictReader(io.StringIO(render(build_report(load_runs([folder]), compare=False), "csv"))))
    pearson = next(r for r in rows if r["metric"] == "pearson")
    assert pearson["value"] == "-0.42"  # a negative number is not text: no quote
    assert pearson["model"] == "ltg/norbert" and pearson["dataset"] == "census-no"


# -- 2. Markdown: run text is never HTML ------------------------------------------------------------
class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


LINK = "<link rel=stylesheet href=http://x.test/a.css>"


@pytest.fixture(scope="module")
def hostile_runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    crows = crows_run(root / "crows", model=f"evil {LINK} model")
    summary = json.loads((crows / "summary.json").read_text(encoding="utf-8"))
    summary["by_category"][f"{XSS} a|b"] = summary["by_category"].pop("gender")
    summary["dataset"] = XSS_IMG
    (crows / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    zh = zh_run(root / "zh", model="[x](javascript:alert(1)) *bold* `code`")  # item 6 holds XSS_IMG
    return [crows, zh]


def test_markdown_holds_no_raw_html(hostile_runs):
    markdown_it = pytest.importorskip("markdown_it")  # rich's own dependency
    md = render(build_report(load_runs(hostile_runs), compare=False), "md")
    for raw in ("<script", "<img", "<link", "</script"):
        assert raw not in md.lower(), raw
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in md and "&lt;link rel=stylesheet" in md
    assert "a\\|b" in md  # a pipe in a category name does not split the table row
    # and a renderer that passes raw HTML through (as GitHub's does, filtered) produces no element from it
    html = markdown_it.MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"]).render(md)
    parser = _Tags()
    parser.feed(html)
    tags = {tag for tag, _ in parser.tags}
    assert tags <= {"h1", "h2", "p", "strong", "table", "thead", "tbody", "tr", "th", "td", "blockquote", "ul",
                    "li"}, tags
    assert not any(k.startswith("on") or k in ("href", "src") for _, attrs in parser.tags for k in attrs)
    # every row of a table has its header's column count: no cell text split a row
    for block in re.split(r"\n\s*\n", md):
        rows = [line for line in block.splitlines() if line.startswith("|")]
        assert len({len(re.findall(r"(?<!\\)\|", line)) for line in rows}) <= 1, block


@pytest.mark.slow  # over a second: the full suite runs it, the fast loop does not
def test_compare_markdown_escapes_model_names(hostile_runs, tmp_path):
    other = crows_run(tmp_path / "other", model=f"other {XSS}")
    done = _cli("compare", hostile_runs[0], other, "--format", "md", "--force")
    assert done.returncode == 0, done.stderr
    assert "<script" not in done.stdout and "<link" not in done.stdout
    assert "other &lt;script&gt;" in done.stdout


# -- 3. Labels of any length, with "$" -----------------------------------------------------------
def _dollar_category(folder: Path) -> Path:
    summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    summary["by_category"]["$^$"] = summary["by_category"].pop("gender")
    (folder / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    return folder


@pytest.mark.parametrize("build", [
    pytest.param(lambda p: crows_run(p, model=LONG), id="crows-long-model"),
    pytest.param(lambda p: census_run(p, model=LONG), id="census-long-model"),
    pytest.param(lambda p: zh_run(p, model=LONG), id="zh-long-model"),
    pytest.param(lambda p: _dollar_category(crows_run(p, model="$x^2$ model")), id="crows-dollar-labels"),
])
def test_long_and_dollar_labels_render(tmp_path, build):
    page = render_html(build_report(load_runs([build(tmp_path / "run")]), compare=False))
    assert page.count("<svg ") >= 1
    if "$x^2$ model" in page:
        assert "$^$: " in page  # the bar's tooltip names the category as written


def test_long_label_is_shortened_in_the_plot_with_the_full_text_as_tooltip(tmp_path):
    import xml.etree.ElementTree as ET

    from biasatlas.benchmarks.crows_pairs.view import crows_categories
    from biasatlas.display.style import style
    from biasatlas.display.svg import SVG_NS, to_svg

    category = "a very long bias category name " * 4
    folder = crows_run(tmp_path / "run", model=LONG)
    summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    summary["by_category"][category] = summary["by_category"].pop("gender")
    (folder / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    (run,) = load_runs([folder])
    with style():
        plot = crows_categories(run)
        fig = plot.figure
        ax, renderer = fig.axes[0], fig.canvas.get_renderer()
        assert "…" in ax.get_title() and LONG not in ax.get_title()
        # nothing drawn sticks out of the figure (the title and tick labels were the culprits)
        for text in [ax.title, *ax.get_yticklabels(), ax.xaxis.label]:
            box = text.get_window_extent(renderer)
            assert box.x0 >= -0.5 and box.x1 <= fig.bbox.width + 0.5, text.get_text()
        root = ET.fromstring(to_svg(plot, "f"))
    tips = {e.get("id"): e.find(f"{{{SVG_NS}}}title").text for e in root.iter()
            if e.find(f"{{{SVG_NS}}}title") is not None}
    assert LONG in tips["f-title"]
    assert category in tips.values()  # the shortened y-axis label


def test_mathtext_is_off_for_every_text(tmp_path):
    from biasatlas.benchmarks.crows_pairs.view import crows_categories
    from biasatlas.display.style import style

    (run,) = load_runs([_dollar_category(crows_run(tmp_path / "run", model="$\\frac{1}{0}$"))])
    with style():
        fig = crows_categories(run).figure
        fig.canvas.draw()  # would raise on "$^$" or "$\frac{1}{0}$" if parsed as mathtext
        texts = [fig.axes[0].title, *fig.axes[0].get_yticklabels()]
    assert any("$^$" in t.get_text() for t in texts) and not any(t.get_parse_math() for t in texts)


@pytest.mark.slow  # about a second: the full suite runs it, the fast loop does not
def test_control_characters_and_lone_surrogates_do_not_break_the_page(tmp_path):
    # JSON can carry both ("\\u0001", "\\ud800"); matplotlib copies drawn text into its SVG as XML
    folder = crows_run(tmp_path / "run")
    summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    summary["model"] = "bad\x01\x00na\ud800me"
    summary["by_category"]["cat\ud800\x02"] = summary["by_category"].pop("gender")
    (folder / "summary.json").write_text(json.dumps(summary), encoding="ascii")  # written as \\u escapes
    out = tmp_path / "report.html"
    done = _cli("report", folder, "--out", out)
    assert done.returncode == 0, done.stderr
    page = out.read_text(encoding="utf-8")
    svg = page.split("<svg ", 1)[1].split("</svg>", 1)[0]
    assert "\x01" not in svg and "\x00" not in svg and "\ufffd" in svg  # replaced inside the XML


# -- 4. Damaged run folders: one line, exit code 2 ---------------------------------------------------
def _no_summary(f: Path) -> None:
    (f / "summary.json").unlink()


def _no_config(f: Path) -> None:
    (f / "config.json").unlink()


def _no_items(f: Path) -> None:
    (f / "items.jsonl").unlink()


def _bad_json(f: Path) -> None:
    (f / "summary.json").write_text('{"benchmark": "crows-pairs",', encoding="utf-8")


def _bom(f: Path) -> None:
    (f / "config.json").write_bytes(b"\xef\xbb\xbf" + (f / "config.json").read_bytes())


def _latin1(f: Path) -> None:
    (f / "summary.json").write_bytes('{"model": "Ã©t\xe9"}'.encode("latin-1"))


def _summary_list(f: Path) -> None:
    (f / "summary.json").write_text("[1, 2, 3]", encoding="utf-8")


def _string_metric(f: Path) -> None:
    _edit_json(f / "summary.json", metric_score="50%")


def _string_category_score(f: Path) -> None:
    summary = json.loads((f / "summary.json").read_text(encoding="utf-8"))
    summary["by_category"]["gender"]["ci"] = "wide"
    (f / "summary.json").write_text(json.dumps(summary), encoding="utf-8")


def _string_item_score(f: Path) -> None:
    _edit_item(f, 3, sent_more_score="-10.0")


def _bad_item_line(f: Path) -> None:
    items = f / "items.jsonl"
    items.write_text(items.read_text(encoding="utf-8") + "{oops\n", encoding="utf-8")


def _item_not_object(f: Path) -> None:
    items = f / "items.jsonl"
    items.write_text("[1, 2]\n" + items.read_text(encoding="utf-8"), encoding="utf-8")


def _nan_metric(f: Path) -> None:
    text = (f / "summary.json").read_text(encoding="utf-8")
    (f / "summary.json").write_text(text.replace('"metric_score": 50.0', '"metric_score": NaN'), encoding="utf-8")


def _config_scorer_string(f: Path) -> None:
    _edit_json(f / "config.json", scorer="masked-lm")


#: (case, damage, file named in the message, what the message says is wrong)
DAMAGE = [
    ("no summary.json", _no_summary, "run", "unfinished run (no summary.json"),
    ("no config.json", _no_config, "run", "missing config.json"),
    ("no items.jsonl", _no_items, "run", "missing items.jsonl"),
    ("truncated JSON", _bad_json, "summary.json", "not valid JSON"),
    ("not UTF-8", _latin1, "summary.json", "not UTF-8"),
    ("summary not an object", _summary_list, "summary.json", "expected a JSON object, got a list"),
    ("string for a number", _string_metric, "summary.json",
     "field 'metric_score': expected a number or null, got the string '50%'"),
    ("string for an interval", _string_category_score, "summary.json", "field 'by_category.gender.ci'"),
    ("string in an item", _string_item_score, "items.jsonl",
     "line 3, field 'sent_more_score': expected a number or null, got the string '-10.0'"),
    ("bad item line", _bad_item_line, "items.jsonl", "line 13: not valid JSON"),
    ("item not an object", _item_not_object, "items.jsonl", "line 1: expected one JSON object per line, got a list"),
    ("NaN metric", _nan_metric, "summary.json", "expected a finite number or null, got nan"),
    ("scorer not an object", _config_scorer_string, "config.json", "field 'scorer': expected an object"),
]


@pytest.mark.parametrize(("damage", "where", "what"), [d[1:] for d in DAMAGE], ids=[d[0] for d in DAMAGE])
@pytest.mark.slow
def test_damaged_run_folder_is_one_line_and_exit_code_1(tmp_path, damage, where, what):
    folder = crows_run(tmp_path / "run")
    damage(folder)
    out = tmp_path / "report.html"
    done = _cli("report", folder, "--out", out)
    assert done.returncode == 1, done.stderr  # malformed contents: a failure at run time
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert str(folder if where == "run" else folder / where) in lines[0]
    assert what in lines[0], lines[0]
    assert not out.exists() and [p.name for p in tmp_path.iterdir()] == ["run"]


def test_a_bom_prefixed_run_file_reads_like_any_text_file(tmp_path):
    """One text policy (biasatlas.textfiles): a leading UTF-8 BOM is dropped, nothing else changes."""
    plain = crows_run(tmp_path / "plain")
    bom = crows_run(tmp_path / "bom")
    _bom(bom)
    (a,), (b,) = load_runs([plain]), load_runs([bom])
    assert a.config == b.config and a.summary == b.summary


def test_missing_folder_is_one_line(tmp_path):
    done = _cli("report", tmp_path / "nope", "--format", "md")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip() == f"error: file {tmp_path / 'nope'}: no such run folder"


@pytest.mark.slow  # about a second: the full suite runs it, the fast loop does not
def test_unfinished_run_is_skipped_with_a_warning_when_others_remain(tmp_path):
    good, half = crows_run(tmp_path / "good"), crows_run(tmp_path / "half", model="m2")
    (half / "summary.json").unlink()
    done = _cli("report", half, good, "--format", "md")
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == (f"warning: skipped {half}: unfinished run (no summary.json: still running, "
                                   "or interrupted)")
    assert "1 run(s)" in done.stdout and "almanach/camembert-base" in done.stdout and "m2" not in done.stdout


def test_unfinished_runs_are_still_an_error_in_the_library_and_compare(tmp_path):
    from biasatlas.errors import DataError

    good, half = crows_run(tmp_path / "good"), crows_run(tmp_path / "half", model="m2")
    (half / "summary.json").unlink()
    with pytest.raises(DataError, match="unfinished run"):
        load_runs([good, half])  # the caller chooses to skip (the report command does)
    warnings: list[str] = []
    assert len(load_runs([good, half], skip_unfinished=True, warn=warnings.append)) == 1
    assert warnings == [f"skipped {half}: unfinished run (no summary.json: still running, or interrupted)"]
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataError, match="not a run folder"):  # nothing finished left: an error after all
        load_runs([tmp_path / "empty"], skip_unfinished=True)


# -- 5. --out --------------------------------------------------------------------------------------
@pytest.mark.parametrize("command", ["report", "compare"])
def test_out_naming_a_folder_is_an_error_and_leaves_nothing(tmp_path, command):
    runs = [crows_run(tmp_path / "runs" / "a"), crows_run(tmp_path / "runs" / "b", model="m2")]
    target = tmp_path / "out"
    target.mkdir()
    done = _cli(command, *runs, "--out", target, "--format", "md")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip() == f"error: --out {target} is a folder; name a file, e.g. --out {target / 'report.html'}"
    assert list(target.iterdir()) == [] and sorted(p.name for p in tmp_path.iterdir()) == ["out", "runs"]


def test_failed_write_removes_its_temporary_file(tmp_path):
    from biasatlas.errors import BiasAtlasError
    from biasatlas.cli.report import _write_atomically

    target = tmp_path / "taken"
    target.mkdir()  # the rename onto a folder fails after the temporary file is written
    with pytest.raises(BiasAtlasError, match="cannot write --out"):
        _write_atomically(target, "x" * 1000)
    assert [p.name for p in tmp_path.iterdir()] == ["taken"] and list(target.iterdir()) == []
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    with pytest.raises(BiasAtlasError, match="cannot write --out"):
        _write_atomically(blocker / "report.html", "x")  # a parent that is a file
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "taken"]
