"""BibTeX and LaTeX output of hostile model names, revisions and file names (issue 21,
items 7, 14 and 15).

BibTeX reads a braced field value by counting braces and knows no escapes, so ``\\}``
closed the field: a ``}`` in a model name dropped the weights' hashes from the entry and a
crafted revision added an ``author``. The entries are read here by BibTeX's own rules (an
independent reader, below) and through ``bibtex`` and ``pdflatex`` (``scripts/setup.sh --test``
installs them; tests/tex_tools.py).
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from biasatlas.display.cite import bibtex_text
from biasatlas.display.tables import latex_text
from biasatlas.report import build_report, load_runs, render
from report_fixtures import crows_run, hub_scorer, local_scorer
from tex_tools import require_tex

MALLORY = "Mallory"
#: Closes the two braces around a value, then adds a quoted field (quotes are no LaTeX special).
INJECTION = 'x}}, author = "' + MALLORY + '", howpublished = "y'
#: Model names, revisions and file names a run folder may hold, each written by hand to
#: break out of a BibTeX value or a LaTeX cell.
HOSTILE_NAMES = ["a}b", "x}, author = {" + MALLORY, INJECTION, "{{{open", "}}}close", r"\input{/etc/passwd}",
                 "50% _#$&~^ \\ end\\", "@misc{evil, title = {x}}", '"quoted" name',
                 "sep\u2028line\u2029para\x85next\x00nul\x07bell\ttab\x1bescape"]
HOSTILE_REVISION = "abc" + INJECTION
HOSTILE_FILE = "weights}.safetensors"


def _runs(root: Path) -> list[Path]:
    """One hub run (hostile revision) and one local run (hostile file name) per name."""
    folders = []
    for i, name in enumerate(HOSTILE_NAMES):
        for kind, scorer in (("hub", hub_scorer(name, revision=HOSTILE_REVISION)),
                             ("local", local_scorer(name, {HOSTILE_FILE: f"{i:x}" * 64, "config.json": "c" * 64}))):
            folder = crows_run(root / f"{kind}-{i}", model=name)
            config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
            config["scorer"] = scorer
            (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
            folders.append(folder)
    return folders


def bibtex_entries(bib: str) -> list[tuple[str, str, dict[str, str]]]:
    """(kind, key, fields) read as BibTeX reads them: ``@kind{key,`` then ``name = {value}``
    or ``name = "value"`` pairs separated by commas. A braced value ends at the brace that
    brings the depth back to zero, a quoted one at a ``"`` outside braces, every brace
    counted (a backslash escapes nothing). Text outside entries is a comment; an entry that
    does not parse raises."""
    out, i = [], 0
    while (at := bib.find("@", i)) >= 0:
        head = re.compile(r"@(\w+)\{([^,\s]+),").match(bib, at)
        assert head, bib[at:at + 80]
        kind, key, i = head.group(1), head.group(2), head.end()
        fields: dict[str, str] = {}
        while (name := re.compile(r"\s*(\w+)\s*=\s*([{\"])").match(bib, i)) is not None:
            depth, j = (1, name.end()) if name.group(2) == "{" else (0, name.end())
            while True:
                assert j < len(bib), f"entry {key}: unbalanced braces"
                ch, j = bib[j], j + 1
                depth += {"{": 1, "}": -1}.get(ch, 0)
                if depth == 0 and (ch == "}" if name.group(2) == "{" else ch == '"'):
                    break
            assert name.group(1) not in fields, f"entry {key}: field {name.group(1)} twice"
            fields[name.group(1)] = bib[name.end():j - 1]
            comma = re.compile(r"\s*,").match(bib, j)
            i = comma.end() if comma else j
        end = re.compile(r"\s*\}").match(bib, i)
        assert end, f"entry {key}: neither a field nor its end at {bib[i:i + 60]!r}"
        i = end.end()
        out.append((kind, key, fields))
    return out


@pytest.fixture(scope="module")
def bib(tmp_path_factory) -> str:
    return render(build_report(load_runs(_runs(tmp_path_factory.mktemp("hostile"))), compare=False), "bibtex")


def test_every_hostile_entry_keeps_exactly_its_own_fields(bib):
    models = [(kind, key, f) for kind, key, f in bibtex_entries(bib) if key.startswith("model-")]
    assert len(models) == 2 * len(HOSTILE_NAMES)  # each name once as a hub and once as a local model
    for _, key, fields in models:
        assert set(fields) == {"title", "howpublished", "note"}, (key, fields)  # no author injected
        if fields["howpublished"] == "local model files":
            note = fields["note"].strip("{}")
            assert re.search(r"config.json c{64}", note) and re.search(r"[0-9a-f]{64}$", note)
        else:
            assert MALLORY in fields["note"]  # the revision is shown, as text, in its own field
    assert not any(ch in bib for ch in "\x00\x07\x1b\x85\u2028\u2029")


@pytest.mark.parametrize("payload", ["a}b", INJECTION, HOSTILE_REVISION])
def test_the_reader_above_catches_the_old_escaping(payload):
    # How biasatlas escaped before (LaTeX's \\} for a brace, which BibTeX still counts): the
    # title ends early, so the note with the weights' hashes is lost (or read as text outside
    # the entry), or the entry no longer parses. The reader must see that, or the tests
    # above prove nothing; the new escaping of the same text parses whole.
    def entry(value: str) -> str:
        return "@misc{m,\n  title = {" + value + "},\n  note = {{hash}}\n}\n"

    try:
        fields = bibtex_entries(entry("{" + latex_text(payload) + "}"))[0][2]
    except AssertionError:
        fields = {}
    assert fields.get("note") != "{hash}" or "author" in fields
    assert bibtex_entries(entry(bibtex_text(payload)))[0][2] == {"title": bibtex_text(payload), "note": "{hash}"}


@pytest.fixture()
def tex() -> None:
    require_tex()


#: A bibliography style of our own that prints what BibTeX read for each entry: its key,
#: its author (none may be there) and its note (the weights' hashes or the revision).
FIELDS_BST = """ENTRY { author note } {} {}
FUNCTION {misc} {
  "KEY " cite$ * write$ newline$
  "AUTHOR " author empty$ { "" } { author } if$ * write$ newline$
  "NOTE " note empty$ { "" } { note } if$ * write$ newline$
}
FUNCTION {default.type} { misc }
FUNCTION {article} { misc }
FUNCTION {inproceedings} { misc }
FUNCTION {software} { misc }
READ
ITERATE {call.type$}
"""


def _tex(folder: Path, *command: str) -> None:
    done = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-3000:]


def test_bibtex_reads_every_hostile_entry_whole(tex, bib, tmp_path):
    (tmp_path / "refs.bib").write_text(bib, encoding="utf-8")
    (tmp_path / "fields.bst").write_text(FIELDS_BST, encoding="utf-8")
    (tmp_path / "doc.aux").write_text("\\citation{*}\n\\bibstyle{fields}\n\\bibdata{refs}\n", encoding="utf-8")
    _tex(tmp_path, "bibtex", "doc")
    log = (tmp_path / "doc.blg").read_text(encoding="utf-8", errors="replace")
    assert "error message" not in log and "Warning" not in log, log[-2000:]
    bbl = (tmp_path / "doc.bbl").read_text(encoding="utf-8", errors="replace")
    blocks = dict(re.findall(r"^KEY (\S+)\n(.*?)(?=^KEY |\Z)", bbl, flags=re.M | re.S))
    assert list(blocks) == [key for _, key, _ in bibtex_entries(bib)]
    models = [key for key in blocks if key.startswith("model-")]
    assert len(models) == 2 * len(HOSTILE_NAMES)
    for key in models:  # BibTeX read no author into any model's entry
        assert re.match(r"AUTHOR *\nNOTE ", blocks[key]), blocks[key]  # (BibTeX drops trailing spaces)
    # every local model's two hashes, and every hub model's revision, read back in its note
    assert bbl.count("c" * 64) == len(HOSTILE_NAMES)  # config.json, in every local entry
    assert all(bbl.count(f"{i:x}" * 64) == 1 for i in range(len(HOSTILE_NAMES)))  # weights}.safetensors
    assert bbl.count("revision abcx") == len(HOSTILE_NAMES)


def test_pdflatex_typesets_the_hostile_bibliography(tex, bib, tmp_path):
    (tmp_path / "refs.bib").write_text(bib, encoding="utf-8")
    (tmp_path / "doc.tex").write_text("\\documentclass{article}\\begin{document}\\nocite{*}"
                                      "\\bibliographystyle{plain}\\bibliography{refs}\\end{document}\n",
                                      encoding="utf-8")
    tex = ("pdflatex", "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "doc.tex")
    for command in (tex, ("bibtex", "doc"), tex):
        _tex(tmp_path, *command)
    bbl = (tmp_path / "doc.bbl").read_text(encoding="utf-8", errors="replace")
    assert bbl.count("\\bibitem") == len(bibtex_entries(bib))


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_latex_tables_of_a_hostile_model_name_compile(tex, tmp_path, name):
    runs = load_runs([crows_run(tmp_path / "run", model=name), crows_run(tmp_path / "other", model="m2")])
    tables = render(build_report(runs, compare=False), "latex")
    (tmp_path / "doc.tex").write_text("\\documentclass{article}\\usepackage{booktabs}\\usepackage{graphicx}"
                                      "\\begin{document}\n" + tables + "\\end{document}\n", encoding="utf-8")
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "doc.tex"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-3000:]
    assert "\\input{/etc/passwd}" not in tables  # the name is text, never a command


def test_latex_text_blanks_control_characters_and_separators():
    assert latex_text("a\u2028b\u2029c\x85d\x00e\x07f\tg\x1bh\x7fi\r\nj") == "a b c d e f g h i  j"
    assert latex_text("Ünïcödé 中文") == "Ünïcödé 中文"  # other text is left as UTF-8
