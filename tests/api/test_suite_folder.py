"""A suite's folder is claimed as a run folder is, and its cells' names fit a file system
(issue 21, items 3 and 12).

Before, ``suite --out DIR`` wrote ``suite.toml``, ``report.html`` and ``leaderboard.md``
into whatever DIR held (another suite's report, a paper draft), and it replaced the
folder's ``suite.toml`` before a cell was refused; a 300-character label passed
``--dry-run`` and failed later with ``[Errno 36]``; two labels in other scripts than Latin
both became the folder ``run``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from biasatlas.errors import BiasAtlasError
from biasatlas.runs.folder import RunFolderError
from biasatlas.suite import SuiteError, read_suite, run_suite
from biasatlas.suite.folder import SUITE_OWNER

SUITE = """\
[[benchmark]]
name = "crows-pairs"
dataset = "en"
limit = 4

[[model]]
id = "fake"
{model}
"""


@pytest.fixture(autouse=True)
def _isolated(monkeypatch, tmp_path, shared_data):
    monkeypatch.setenv("BIASATLAS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("BIASATLAS_DATA_DIR", str(shared_data))
    monkeypatch.chdir(tmp_path)


def _suite(folder: Path, model: str = "", name: str = "suite.toml") -> Path:
    path = folder / name
    path.write_text(SUITE.format(model=model), encoding="utf-8")
    return path


def _run(path: Path, out: Path, **kw):
    return run_suite(read_suite(path), out, progress=False, **kw)


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_folder_of_another_suite_is_refused_and_left_as_it_was(tmp_path):
    out = tmp_path / "out"
    _run(_suite(tmp_path, name="a.toml"), out)
    before = _snapshot(out)
    other = _suite(tmp_path, 'label = "other"', name="b.toml")
    with pytest.raises(RunFolderError, match="holds the suite of .*a.toml"):
        _run(other, out)
    assert _snapshot(out) == before  # suite.toml, report.html, leaderboard.md untouched
    _run(other, out, force=True)  # asked for: its files are replaced
    assert (out / "suite.toml").read_text(encoding="utf-8") == other.read_text(encoding="utf-8")


def test_the_same_suite_reruns_into_its_own_folder(tmp_path):
    out = tmp_path / "out"
    path = _suite(tmp_path)
    _run(path, out)
    assert json.loads((out / SUITE_OWNER).read_text(encoding="utf-8")) == {"suite": str(path.resolve())}
    assert _run(path, out).skipped == ("crows-pairs-en__fake",)


def test_a_suite_folder_written_before_folders_were_claimed_is_still_its_own(tmp_path):
    out = tmp_path / "out"
    path = _suite(tmp_path)
    _run(path, out)
    (out / SUITE_OWNER).unlink()  # as every suite folder written before this check
    assert _run(path, out).skipped == ("crows-pairs-en__fake",)
    (out / SUITE_OWNER).unlink()
    other = _suite(tmp_path, name="b.toml", model='dtype = "float32"')
    with pytest.raises(RunFolderError, match="another suite"):
        _run(other, out)


@pytest.mark.parametrize("planted", ["draft.tex", "config.json", ".git/HEAD", ".env"])
def test_a_folder_a_suite_never_wrote_is_refused_even_with_force(tmp_path, planted):
    """A paper draft beside its report.html, a model folder, a folder of dot-files only."""
    out = tmp_path / "out"
    (out / planted).parent.mkdir(parents=True, exist_ok=True)
    (out / planted).write_text("mine\n", encoding="utf-8")
    (out / "report.html").write_text("<p>my draft</p>\n", encoding="utf-8")
    before = _snapshot(out)
    for force in (False, True):
        with pytest.raises(RunFolderError, match="not a biasatlas suite"):
            _run(_suite(tmp_path), out, force=force)
    assert _snapshot(out) == before


def test_a_suite_refused_at_a_cell_has_not_replaced_its_suite_toml(tmp_path):
    out = tmp_path / "out"
    path = _suite(tmp_path)
    _run(path, out)
    copy = (out / "suite.toml").read_bytes()
    path.write_text(SUITE.format(model="").replace("limit = 4", "limit = 3"), encoding="utf-8")
    with pytest.raises(RunFolderError, match="holds another run"):
        _run(path, out)  # the cell's folder holds the run of limit 4
    assert (out / "suite.toml").read_bytes() == copy


# -- cell folder names ----------------------------------------------------------------------------------
def test_labels_in_other_scripts_are_distinct_folders(tmp_path):
    path = _suite(tmp_path, 'label = "日本語"\n\n[[model]]\nid = "fake"\nlabel = "中文"')
    assert [c.folder for c in read_suite(path).cells] == ["crows-pairs-en__日本語", "crows-pairs-en__中文"]


def test_a_label_longer_than_a_file_name_may_be_is_refused_when_read(tmp_path):
    label = "é" * 120  # 240 bytes in UTF-8, 120 characters: the cell's name is 256 bytes
    assert len(f"crows-pairs-en__{label}".encode()) == 256
    with pytest.raises(SuiteError, match="256 bytes, over the 255"):
        read_suite(_suite(tmp_path, f'label = "{label}"'))
    read_suite(_suite(tmp_path, f'label = "{label[:-1]}"'))  # 254 bytes: fine


def test_a_variant_the_models_scorer_lacks_is_refused_when_read(tmp_path):
    """The kind comes from the model folder's config alone: no weights are needed to know it."""
    model = tmp_path / "bert"
    model.mkdir()
    (model / "config.json").write_text('{"model_type": "bert", "architectures": ["BertForMaskedLM"]}',
                                       encoding="utf-8")
    with pytest.raises(BiasAtlasError, match="unknown masked-lm variant 'sentence-ll'"):
        read_suite(_write_model_suite(tmp_path, model))


def _write_model_suite(folder: Path, model: Path) -> Path:
    path = folder / "model-suite.toml"
    path.write_text(SUITE.replace('id = "fake"', f'id = "{model}"').format(model='variant = "sentence-ll"'),
                    encoding="utf-8")
    return path
