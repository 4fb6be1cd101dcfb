"""``biasatlas report --format latex`` and ``--format bibtex``: tables and citations for a paper.

The LaTeX is checked structurally and compiled with ``pdflatex`` (``scripts/setup.sh --test``
installs it; hostile names are in test_report_hostile_tex.py): one booktabs float per
table, with caption and label, every row with as many cells as columns, LaTeX's special
characters escaped. The BibTeX is
checked against the papers' own records in ``../shared/papers`` and the benchmark cards,
read here independently of the code.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from biasatlas.cli import app
from biasatlas.display.tables import latex_text
from biasatlas.report import FORMATS, build_report, load_runs, render, render_html
from report_fixtures import census_run, crows_paper_run, crows_run, hub_scorer, local_scorer, zh_run
from shared_data import shared_data_dir
from tex_tools import require_tex

SPECIALS = r"a&b%c$d#e_f{g}h~i^j\k"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("latex")
    # crows-b's model is the census run's: the agreement table has a row (the other pairs share no model)
    return load_runs([crows_run(root / "crows-a", model=SPECIALS), crows_run(root / "crows-b", model="ltg/norbert"),
                      census_run(root / "census"), zh_run(root / "zh")])


def _floats(tex: str) -> list[str]:
    return re.findall(r"\\begin\{table\}.*?\\end\{table\}", tex, flags=re.S)


def _cells(line: str) -> list[str]:
    r"""A tabular row's cells: split on ``&`` not preceded by a backslash, ``\\`` dropped."""
    return [cell.strip() for cell in re.split(r"(?<!\\)&", line.strip().removesuffix(r"\\"))]


def _balanced(text: str) -> bool:
    depth = 0
    for i, ch in enumerate(text):
        if ch in "{}" and (i == 0 or text[i - 1] != "\\"):
            depth += 1 if ch == "{" else -1
            if depth < 0:
                return False
    return depth == 0


# -- LaTeX ------------------------------------------------------------------------------------------
def test_latex_text_escapes_every_special_character():
    assert latex_text(SPECIALS) == (r"a\&b\%c\$d\#e\_f\{g\}h\textasciitilde{}i\textasciicircum{}j"
                                    r"\textbackslash{}k")
    assert latex_text("B − A · Δ score – 95% CI") == (r"B \textminus{} A \textperiodcentered{} $\Delta$ score -- "
                                                      r"95\% CI")
    assert latex_text("Øyvind, 他/她") == "Øyvind, 他/她"  # UTF-8 text stays as it is


def test_one_booktabs_float_per_table_with_caption_and_label(runs):
    tex = render(build_report(runs, compare=False), "latex")
    floats = _floats(tex)
    # leaderboards: crows-pairs, census, zh-neutral; the agreement between measures (two models or
    # more, one pair sharing a model); then per run its metric table and its headlines-with-controls table
    assert len(floats) == 3 + 1 + 2 * len(runs)
    assert "No common model, left out (2 pairs)" in next(b for b in floats if "Agreement between measures" in b)
    labels = []
    for block in floats:
        assert block.count(r"\caption{") == 1 and block.count(r"\label{") == 1, block
        assert block.count(r"\toprule") == 1 and block.count(r"\midrule") == 1 and block.count(r"\bottomrule") == 1
        columns = re.search(r"\\begin\{tabular\}\{((?:[lr]|p\{\d+em\})+)\}", block).group(1)
        spec = re.findall(r"[lr]|p\{\d+em\}", columns)  # a sentence column wraps: p{13em}
        body = block.split(r"\toprule")[1].split(r"\bottomrule")[0].replace(r"\midrule", "")
        rows = [line for line in body.splitlines() if line.strip()]
        assert rows and all(len(_cells(row)) == len(spec) for row in rows), block
        assert _balanced(block), block
        labels.append(re.search(r"\\label\{([^}]*)\}", block).group(1))
    assert len(set(labels)) == len(labels) and all(re.fullmatch(r"tab:[a-z0-9:._-]+", lab) for lab in labels)
    assert r"\usepackage{booktabs}" in tex.splitlines()[0]  # what a preamble needs, said on top
    assert r"\usepackage{graphicx}" in tex.splitlines()[0]


def test_latex_cells_read_as_in_the_report(runs):
    tex = render(build_report(runs, compare=False), "latex")
    census = next(b for b in _floats(tex) if "Census leaderboard" in b)
    # the census fixture: normative 40 [12, 70], descriptive 40 [10, 70], split 10 / 10 / 20
    row = next(line for line in census.splitlines() if line.startswith("ltg/norbert"))
    assert _cells(row) == ["ltg/norbert", "census-no", "10", "40.00", "[12.0, 70.0]", "40.00", "[10.0, 70.0]",
                           "10.00", "10.00", "20.00", "all items"]
    crows = next(b for b in _floats(tex) if "CrowS-Pairs leaderboard" in b)
    escaped = latex_text(SPECIALS)
    assert escaped in crows and SPECIALS not in tex  # the model name, escaped in cell and caption
    assert r"\_" in tex and "95\\% CI" in tex


def test_latex_tables_compile(runs, tmp_path):
    require_tex()
    tables = render(build_report(runs[:3], compare=False), "latex")  # leave out Chinese (needs a CJK setup)
    doc = tmp_path / "doc.tex"
    doc.write_text("\\documentclass{article}\\usepackage{booktabs}\\usepackage{graphicx}\\begin{document}\n" + tables
                   + "\\end{document}\n", encoding="utf-8")
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", doc.name], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:]
    log = (tmp_path / "doc.log").read_text(encoding="utf-8", errors="replace")
    assert "Overfull \\hbox" not in log and "multiply defined" not in log  # every table fits; labels unique


# -- BibTeX -----------------------------------------------------------------------------------------
def _entries(bib: str) -> dict[str, dict[str, str]]:
    """Entries by key, fields by name (values without their outer braces)."""
    out = {}
    for kind, key, body in re.findall(r"@(\w+)\{([^,]+),\n(.*?)\n\}\n", bib, flags=re.S):
        fields = dict(re.findall(r"^  (\w+) = \{(.*)\},?$", body, flags=re.M))
        out[key] = {"@": kind, **fields}
    return out


def _plain(title: str) -> str:
    """A title without BibTeX's case braces, lower-cased, for comparing with printed references."""
    return re.sub(r"[{}]", "", title).lower()


def test_bibtex_of_every_benchmark_and_model(tmp_path):
    folders = [crows_paper_run(tmp_path / "fr", hub_scorer("almanach/camembert-base")),
               crows_run(tmp_path / "local", model="my-model"), census_run(tmp_path / "census"),
               zh_run(tmp_path / "zh")]
    # the local run: a folder with file hashes instead of a revision
    import json

    config = json.loads((folders[1] / "config.json").read_text(encoding="utf-8"))
    config["scorer"] = local_scorer("my-model")
    (folders[1] / "config.json").write_text(json.dumps(config), encoding="utf-8")
    bib = render(build_report(load_runs(folders), compare=False), "bibtex")
    entries = _entries(bib)
    assert list(entries)[:4] == ["nangia-etal-2020-crows", "neveol-etal-2022-french", "touileb-etal-2023-measuring",
                                 "zhao-etal-2021-zhong"]
    assert _balanced(bib)
    hub = entries["model-almanach-camembert-base-0123abcd"]
    assert hub["@"] == "misc" and hub["title"] == "{almanach/camembert-base}" and hub["note"] == "{revision 0123abcd}"
    local = next(v for k, v in entries.items() if k.startswith("model-my-model-"))
    assert "config.json " + "c" * 64 in local["note"] and "model.safetensors " + "d" * 64 in local["note"]
    assert local["howpublished"] == "local model files"
    assert "ltg/norbert" in bib and "bert-base-chinese" in bib  # every model of the report …
    assert len([k for k in entries if k.startswith("model-")]) == 4  # … once each


def test_bibtex_titles_and_venues_match_the_papers_records():
    from biasatlas.benchmarks.census.view import TOUILEB_2022, TOUILEB_2023
    from biasatlas.benchmarks.crows_pairs.view import NANGIA_2020, NEVEOL_2022
    from biasatlas.benchmarks.zh_neutral.view import ZHAO_2021

    docs = Path(__file__).resolve().parents[2] / "docs" / "benchmarks"
    papers = shared_data_dir().parent / "papers"  # the papers' texts beside the shared data
    french = (papers / "french-crows-pairs-summary.txt").read_text(encoding="utf-8")
    record = dict(re.findall(r'^\s+(\w+) = "(.*)",?$', french.split("@inproceedings{neveol-etal-2022-french,")[1],
                             flags=re.M))
    assert NEVEOL_2022.field("title") == record["title"] and NEVEOL_2022.field("booktitle") == record["booktitle"]
    assert NEVEOL_2022.field("doi") == record["doi"] and NEVEOL_2022.field("pages") == record["pages"]
    # Nangia et al. as the French paper's reference list prints it
    assert re.search(re.escape(_plain(NANGIA_2020.field("title"))) + r"\. in proceedings of the 2020 conference on "
                     r"empirical methods in natural language processing \(emnlp\), pages 1953–1967", french.lower())
    census = (papers / "touileb-2023-census-normative-descriptive.txt").read_text(encoding="utf-8")
    assert " ".join(census.split("\n")[:2]) == TOUILEB_2023.field("title")
    assert TOUILEB_2023.field("title") in (docs / "census.md").read_text(encoding="utf-8").replace("\n", " ")
    assert ("Occupational biases in Norwegian and multilingual language models. In Proceedings of the 4th Workshop "
            "on Gender Bias in Natural Language Processing (GeBNLP), pages 200–211") in census
    assert _plain(TOUILEB_2022.field("title")) == "occupational biases in norwegian and multilingual language models"
    zh_title = (papers / "slguset-zh-gender-neutral-summary.txt").read_text(encoding="utf-8").splitlines()[0]
    assert ZHAO_2021.field("title").startswith(zh_title)
    assert zh_title in (docs / "zh-neutral.md").read_text(encoding="utf-8")


def test_crows_cites_neveol_for_the_datasets_it_published_only(tmp_path):
    from biasatlas.benchmarks.crows_pairs.view import crows_references

    keys = {}
    for dataset in ("en", "fr", "fr+210", "en-revised", "en-revised+210"):
        run = load_runs([crows_paper_run(tmp_path / dataset, hub_scorer("bert-base-uncased"), dataset=dataset,
                                         n_pairs=20)])[0]
        keys[dataset] = [r.key for r in crows_references(run)]
    assert keys["en"] == ["nangia-etal-2020-crows"]
    assert all(keys[d] == ["nangia-etal-2020-crows", "neveol-etal-2022-french"] for d in keys if d != "en")


def test_packaged_models_cite_their_papers_and_the_fake_scorer_nothing(tmp_path):
    from biasatlas.report.cite import model_reference

    def run_of(model: str, scorer: str = "causal-lm"):
        folder = crows_run(tmp_path / model, model=model)
        import json

        for name in ("config.json", "summary.json"):
            data = json.loads((folder / name).read_text(encoding="utf-8"))
            target = data if name == "config.json" else data["provenance"]
            target["scorer"] = {"scorer": scorer, "model": model, "file_sha256": {"model.safetensors": "f" * 64}}
            (folder / name).write_text(json.dumps(data), encoding="utf-8")
        return load_runs([folder])[0]

    gemma, smol, fake = run_of("gemma-3-270m"), run_of("smollm2-135m"), run_of("fake", "fake")
    assert model_reference(gemma).field("title") == "Gemma 3 Technical Report"
    assert model_reference(gemma).field("eprint") == "2503.19786"
    assert model_reference(smol).field("author").startswith("Ben Allal, Loubna and Lozhkov, Anton")
    assert model_reference(smol).field("eprint") == "2502.02737"
    assert model_reference(fake) is None


def test_html_report_has_a_cite_section_with_the_same_entries(runs):
    report = build_report(runs, compare=False)
    page = render_html(report)
    bib = render(report, "bibtex")
    assert '<section id="cite"><h2>Cite</h2>' in page and '<a href="#cite">Cite</a>' in page
    for key in _entries(bib):
        assert re.search(r"@(inproceedings|article|misc|software)\{" + re.escape(key) + ",", page), key
    assert "{\\O}vrelid" in page  # the BibTeX as text, escaped for HTML only where HTML needs it


# -- the command line -------------------------------------------------------------------------------
def test_format_choices_are_the_librarys():
    from typing import get_args

    from biasatlas.cli.report import ReportFormat

    assert set(get_args(ReportFormat)) == set(FORMATS)


@pytest.mark.parametrize("name, marker", [("tables.tex", r"\begin{table}"), ("refs.bib", "@inproceedings{"),
                                          ("r.md", "# biasatlas report"), ("r.html", "<!DOCTYPE html>")])
def test_out_suffix_picks_the_format(tmp_path, name, marker):
    folder = census_run(tmp_path / "census")
    out = tmp_path / name
    done = CliRunner().invoke(app, ["report", str(folder), "--out", str(out)])
    assert done.exit_code == 0, done.output
    assert marker in out.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["report.txt", "report", "report.pdf"])
def test_an_unknown_out_suffix_is_a_usage_error_naming_the_formats(tmp_path, name):
    folder = census_run(tmp_path / "census")
    done = subprocess.run([sys.executable, "-m", "biasatlas", "report", str(folder), "--out", str(tmp_path / name)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert ".tex" in done.stderr and "latex" in done.stderr and "bibtex" in done.stderr, done.stderr
    assert not (tmp_path / name).exists()
    forced = CliRunner().invoke(app, ["report", str(folder), "--out", str(tmp_path / name), "--format", "md"])
    assert forced.exit_code == 0 and (tmp_path / name).read_text(encoding="utf-8").startswith("# biasatlas report")


@pytest.mark.slow  # a subprocess or the full data: the full suite runs it, the fast loop does not
def test_skip_unfinished_warns_by_default_and_fails_when_asked(tmp_path):
    folder = census_run(tmp_path / "done")
    unfinished = tmp_path / "unfinished"
    unfinished.mkdir()
    (unfinished / "config.json").write_text("{}", encoding="utf-8")
    base = [sys.executable, "-m", "biasatlas", "report", str(folder), str(unfinished), "--format", "csv"]
    skipped = subprocess.run(base, capture_output=True, text=True, timeout=120)
    assert skipped.returncode == 0 and "warning: skipped" in skipped.stderr and "unfinished run" in skipped.stderr
    strict = subprocess.run(base + ["--no-skip-unfinished"], capture_output=True, text=True, timeout=120)
    assert strict.returncode != 0 and "Traceback" not in strict.stderr
    assert str(unfinished) in strict.stderr and "unfinished run" in strict.stderr
    assert len(strict.stderr.strip().splitlines()) <= 2


def test_resampling_options_say_which_tests_resample():
    done = CliRunner().invoke(app, ["report", "--help"], env={"COLUMNS": "300"})
    assert "census paired bootstrap" not in done.output
    assert "McNemar and Wilcoxon do not resample" in done.output
