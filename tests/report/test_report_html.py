"""The report's outputs without a browser: HTML safety and content, Markdown, CSV, JSON, CLI."""

from __future__ import annotations

import csv
import io
import json
from html.parser import HTMLParser

import pytest
from typer.testing import CliRunner

from biasatlas.cli import app
from biasatlas.errors import DataError
from biasatlas.report import build_report, load_runs, render, render_html
from report_fixtures import (CROWS_A, CROWS_B, XSS, XSS_IMG, census_run, crows_preferred, crows_run, paired_interval,
                             zh_run)


class _Tags(HTMLParser):
    """Every start tag with its attributes, to check what the page could load or run."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    return load_runs([crows_run(root / "crows-a"), crows_run(root / "crows-b", model="m2", outcomes=CROWS_B),
                      census_run(root / "census"), zh_run(root / "zh")])


@pytest.fixture(scope="module")
def page(runs):
    return render_html(build_report(runs, n_resamples=200))


@pytest.mark.slow  # about a second: the full suite runs it, the fast loop does not
def test_dataset_markup_is_text_never_markup(page):
    assert XSS not in page and XSS_IMG not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    parser = _Tags()
    parser.feed(page)
    tags = [t for t, _ in parser.tags]
    assert "script" not in tags and "img" not in tags and "iframe" not in tags
    for tag, attrs in parser.tags:
        assert not any(k.startswith("on") for k in attrs), (tag, attrs)  # no event handlers
        assert "src" not in attrs, (tag, attrs)
        href = attrs.get("href") or attrs.get("xlink:href")
        assert href is None or href.startswith("#"), (tag, href)  # in-page anchors and SVG refs only


def test_page_forbids_scripts_and_fetches(page):
    assert "Content-Security-Policy" in page and "default-src 'none'" in page


def test_page_holds_every_section(page, runs):
    # crows ×2, census, zh histogram and pairs; and the leaderboard's CrowS-Pairs across its two models
    assert page.count('<svg ') == 6
    for run in runs:
        assert f'{run.benchmark} · ' in page
    assert "Leaderboard" in page and "Paired comparisons" in page
    # a 12-pair CamemBERT run is not the paper's setting: no paper column, a visible reason instead
    # (the like-for-like case, with the column, is in test_report_paper.py)
    assert "paper (Névéol et al. 2022, CamemBERT)" not in page
    assert ('<p class="warn" role="note">Paper values not shown: not comparable with Névéol et al. 2022 '
            'CamemBERT: data file is not the published fr+210 file') in page
    assert "12 of 1,677 pairs scored; lower-casing not recorded" in page
    # Norwegian, French and Chinese text survive as text
    for text in ("Tømrer", "Økonom", "à l&#39;heure", "他/她", "爸爸/妈妈", "工作 (0.5)"):
        assert text in page, text
    # provenance: data hash, revision, versions
    assert "crows-pairs-fr+210-sha" in page and "revision=abc123" not in page
    assert "scorer revision" in page and "abc123" in page and "biasatlas 0.1.0" in page


def test_census_table_3_4_numbers(page):
    # fixture: normative 40, descriptive 40 = neutral 10 + female 10 + male 20
    assert page.count("40.00") >= 2 and "20.00" in page and "[12.0, 70.0]" in page


def test_markdown_has_tables_for_each_run(runs):
    md = render(build_report(runs, n_resamples=200), "md")
    assert md.count("## crows-pairs") == 2 and "## census" in md and "## zh-neutral" in md
    assert "| category | n | score | 95% CI |" in md
    assert "\\|b\\|" in md  # pipes in headers are escaped
    # Markdown renderers pass raw HTML through: the sentence is shown as text, its markup escaped
    assert XSS not in md and "&lt;script&gt;alert(1)&lt;/script&gt;" in md


def test_csv_is_long_form_one_row_per_metric(runs):
    rows = list(csv.DictReader(io.StringIO(render(build_report(runs, compare=False), "csv"))))
    crows_a = [r for r in rows if r["run"] == "almanach/camembert-base"]
    metric = next(r for r in crows_a if r["metric"] == "metric_score")
    assert float(metric["value"]) == pytest.approx(50.0) and metric["n"] == "12"  # 6 of 12 preferred
    zh = {r["metric"]: r for r in rows if r["benchmark"] == "zh-neutral"}
    assert float(zh["bias_score"]["value"]) == pytest.approx(0.81)
    assert float(zh["leaning:male"]["value"]) == 5
    assert float(zh["pair:他/她:mean_abs_b"]["value"]) == pytest.approx(4.4 / 6)
    census = {r["metric"]: r for r in rows if r["benchmark"] == "census"}
    assert float(census["descriptive:male"]["value"]) == 20.0


def test_json_is_valid_and_has_comparisons(runs):
    doc = json.loads(render(build_report(runs, n_resamples=200), "json"))
    assert [r["benchmark"] for r in doc["runs"]] == ["crows-pairs", "crows-pairs", "census", "zh-neutral"]
    (comparison,) = doc["comparisons"]
    overall = next(t for t in comparison["tests"] if t["scope"] == "all pairs")
    assert overall["p"] == pytest.approx(44 / 64)  # see test_compare.py for the arithmetic


def test_unknown_format_names_the_choices(runs):
    with pytest.raises(Exception, match="Available: bibtex, csv, html, json, latex, md"):
        render(build_report(runs[:1]), "pdf")


def test_unfinished_run_folder_is_a_data_error(tmp_path):
    (tmp_path / "half").mkdir()
    with pytest.raises(DataError, match="summary.json"):
        load_runs([tmp_path / "half"])


def test_item_missing_a_field_is_named(tmp_path):
    folder = zh_run(tmp_path / "zh")
    items = folder / "items.jsonl"
    lines = items.read_text(encoding="utf-8").splitlines()
    lines[1] = json.dumps({k: v for k, v in json.loads(lines[1]).items() if k != "b"}, ensure_ascii=False)
    items.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"line 2.*'b'"):
        load_runs([folder])


# -- the commands --------------------------------------------------------------------------------
def test_report_command_writes_html_from_the_suffix(tmp_path):
    a = crows_run(tmp_path / "a")
    out = tmp_path / "r.html"
    result = CliRunner().invoke(app, ["report", str(a), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_report_command_markdown_to_stdout(tmp_path):
    result = CliRunner().invoke(app, ["report", str(zh_run(tmp_path / "zh")), "--format", "md"])
    assert result.exit_code == 0, result.output
    assert "# biasatlas report" in result.output and "他/她" in result.output


def test_report_without_out_or_format_prints_markdown_not_a_page_of_html(tmp_path):
    # a page with inline plots is about a megabyte: it is written to a file when asked for
    result = CliRunner().invoke(app, ["report", str(zh_run(tmp_path / "zh"))])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("# biasatlas report") and "<html" not in result.output.lower()


def test_compare_command_prints_paired_tests(tmp_path):
    a, b = crows_run(tmp_path / "a"), crows_run(tmp_path / "b", model="m2", outcomes=CROWS_B)
    result = CliRunner().invoke(app, ["compare", str(a), str(b), "--format", "md"])
    assert result.exit_code == 0, result.output
    assert "CrowS-Pairs leaderboard" in result.output
    assert "crows-pairs (fr+210): almanach/camembert-base vs m2" in result.output
    # the headline: B − A = 66.67 − 50.00 on all pairs; McNemar exact on 2 vs 4 discordant pairs
    low, high = paired_interval(crows_preferred(CROWS_A), crows_preferred(CROWS_B))
    assert f"B − A = +16.67 [{low:.2f}, {high:.2f}] (% sent_more preferred, all pairs), McNemar exact p = 0.688." \
        in result.output
    assert f"| 16.67 | \\[{low:.2f}, {high:.2f}] |" in result.output  # B − A, then its interval in its own column
    assert "McNemar exact" in result.output and "0.688" in result.output  # 44/64 = 0.6875


def test_compare_csv_has_one_row_per_test_with_the_difference_interval(tmp_path):
    import csv
    import io

    a, b = crows_run(tmp_path / "a"), crows_run(tmp_path / "b", model="m2", outcomes=CROWS_B)
    result = CliRunner().invoke(app, ["compare", str(a), str(b), "--format", "csv"])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.output)))
    assert [r["scope"] for r in rows] == ["all pairs", "gender", "race-color", "religion"]
    gender = [i for i, c in enumerate(["gender"] * 4 + ["race-color"] * 4 + ["religion"] * 4) if c == "gender"]
    for row, keep in ((rows[0], range(12)), (rows[1], gender)):
        low, high = paired_interval([crows_preferred(CROWS_A)[i] for i in keep],
                                    [crows_preferred(CROWS_B)[i] for i in keep])
        assert (float(row["ci_low"]), float(row["ci_high"])) == pytest.approx((low, high))
    assert float(rows[0]["difference"]) == pytest.approx(200 / 12)  # (8 − 6) of 12 pairs, in points


@pytest.mark.slow  # over a second: the full suite runs it, the fast loop does not
def test_compare_command_terminal_table(tmp_path):
    a, b = zh_run(tmp_path / "a"), zh_run(tmp_path / "b", model="m2", bs=[0.1] * 12)
    result = CliRunner().invoke(app, ["compare", str(a), str(b)], env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.output
    assert "Wilcoxon" in result.output and "mean |b|" in result.output


def test_terminal_tables_show_brackets_literally(tmp_path):
    # two runs of one model are told apart by folder name in brackets: rich must not eat them
    a, b = crows_run(tmp_path / "r1"), crows_run(tmp_path / "r2", outcomes=CROWS_B)
    result = CliRunner().invoke(app, ["compare", str(a), str(b)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "almanach/camembert-base [r1] vs almanach/camembert-base [r2]" in result.output


def test_compare_needs_runs_of_one_benchmark(tmp_path):
    from biasatlas.cli.report import compare_command

    with pytest.raises(DataError, match="nothing to pair"):
        compare_command([crows_run(tmp_path / "a"), zh_run(tmp_path / "z")])
