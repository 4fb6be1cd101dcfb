"""``BIASATLAS_DATA_DIR`` pointed at the shared data tree serves every benchmark and dataset with no
download (the README's one line says so): each runs here with downloads made to fail, and an
empty cache. The folder is searched recursively by file name, so a copy nested deeper works too.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from biasatlas.cli import app
from shared_data import shared_data_dir

DATA = shared_data_dir()

RUNS = [["bbq", "--dataset", d, "--limit", "2"] for d in ("en", "mbbq-nl", "kobbq", "cbbq", "esbbq", "cabbq")] + [
    ["crows-pairs", "--dataset", d, "--limit", "2"] for d in ("en", "en-revised+210", "fr", "fr+210")] + [
    ["census", "--country", c, "--limit", "3"] for c in ("us", "fr", "no", "de", "us-bec-pro")] + [
    ["stereoset", "--split", "test", "--limit", "2"], ["winobias", "--limit", "2"], ["winogender", "--limit", "2"]]


@pytest.fixture
def offline(tmp_path, monkeypatch):
    from biasatlas.benchmarks import fetch

    def refuse(spec, target):
        raise AssertionError(f"downloaded {spec.url}: BIASATLAS_DATA_DIR should have served {spec.name}")

    monkeypatch.setattr(fetch, "_download", refuse)
    monkeypatch.setenv("BIASATLAS_CACHE_DIR", str(tmp_path / "cache"))
    return monkeypatch


def _run(args: list[str], out: Path) -> None:
    done = CliRunner().invoke(app, ["run", *args, "--model", "fake", "--out", str(out)])
    assert done.exit_code == 0, (done.output, done.exception)


@pytest.mark.slow  # a run per dataset: seconds each
@pytest.mark.parametrize("args", RUNS, ids=lambda a: "-".join(a[:3]))
def test_the_shared_data_tree_serves_every_benchmark_offline(offline, tmp_path, args):
    offline.setenv("BIASATLAS_DATA_DIR", str(DATA))
    _run(args, tmp_path / "run")


@pytest.mark.slow
def test_a_copy_nested_deeper_is_found(offline, tmp_path):
    nested = tmp_path / "data" / "one" / "two"
    nested.mkdir(parents=True)
    (nested / "crows-pairs-en").symlink_to(DATA / "crows-pairs-en", target_is_directory=True)
    offline.setenv("BIASATLAS_DATA_DIR", str(tmp_path / "data"))
    _run(["crows-pairs", "--dataset", "en", "--limit", "2"], tmp_path / "run")


def test_the_readme_says_so():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    assert "`BIASATLAS_DATA_DIR=../shared/data` serves every benchmark" in readme


def test_a_link_back_up_the_tree_ends_the_search(tmp_path):
    from biasatlas.benchmarks.fetch import _search

    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "x.csv").write_text("1\n", encoding="utf-8")
    (tmp_path / "a" / "b" / "up").symlink_to(tmp_path / "a", target_is_directory=True)
    assert _search(tmp_path, "x.csv", "0" * 64) == tmp_path / "a" / "b" / "x.csv"
    assert _search(tmp_path, "y.csv", "0" * 64) is None


def test_of_two_files_named_alike_the_one_with_the_pinned_bytes_is_read(tmp_path):
    """Two datasets naming a file alike (as EsBBQ and CaBBQ do): the sorted-first
    folder is not the pinned file's, and the pinned file is read; with neither pinned, the first."""
    import hashlib

    from biasatlas.benchmarks.fetch import _search

    for folder, text in (("a-other", "other\n"), ("b-pinned", "pinned\n")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "Age.csv").write_text(text, encoding="utf-8")
    pin = hashlib.sha256(b"pinned\n").hexdigest()
    assert _search(tmp_path, "Age.csv", pin) == tmp_path / "b-pinned" / "Age.csv"
    assert _search(tmp_path, "Age.csv", "0" * 64) == tmp_path / "a-other" / "Age.csv"
