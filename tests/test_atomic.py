"""Every file biasatlas writes gets the permissions a plain ``open`` would give (0666 less the
umask), not the temporary file module's 0600: run folders, ``report --out``, suite outputs and
downloaded data files all go through one writer (biasatlas.atomic)."""

from __future__ import annotations

import hashlib
import io
import os
from pathlib import Path

import pytest

import biasatlas
from biasatlas.atomic import atomic_open, atomic_write

# umask → expected mode, worked by hand: 0666 & ~0022 = 0644, & ~0027 = 0640, & ~0002 = 0664.
MODES = [(0o022, 0o644), (0o027, 0o640), (0o002, 0o664)]


@pytest.fixture(params=MODES, ids=lambda m: oct(m[0]))
def umask(request):
    mask, expected = request.param
    old = os.umask(mask)
    yield expected
    os.umask(old)


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def test_the_writer_follows_the_umask_set_after_import(tmp_path, umask):
    atomic_write(tmp_path / "a.txt", "text")
    atomic_write(tmp_path / "b.bin", b"\x00bytes")
    with atomic_open(tmp_path / "c.txt") as handle:
        handle.write("streamed")
    assert [_mode(tmp_path / n) for n in ("a.txt", "b.bin", "c.txt")] == [umask] * 3
    assert (tmp_path / "b.bin").read_bytes() == b"\x00bytes"


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "x.json"
    atomic_write(target, "old")
    with pytest.raises(RuntimeError), atomic_open(target) as handle:
        handle.write("half")
        raise RuntimeError("killed")
    assert target.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.json"]


def test_run_folder_and_report_out_get_the_umask_permissions(tmp_path, umask, monkeypatch, shared_data):
    from biasatlas.cli import main

    monkeypatch.setenv("BIASATLAS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("BIASATLAS_DATA_DIR", str(shared_data))
    run = tmp_path / "run"
    biasatlas.evaluate("crows-pairs", model="fake", dataset="en", limit=5, out=run, progress=False)
    written = sorted(p for p in run.iterdir() if p.stat().st_size)  # the claim's empty lock file aside
    assert {p.name for p in written} >= {"config.json", "items.jsonl", "summary.json"}
    assert {p.name: _mode(p) for p in written} == {p.name: umask for p in written}
    for name in ("report.html", "report.md"):
        with pytest.raises(SystemExit) as exited:
            main(["report", str(run), "--out", str(tmp_path / name)])
        assert exited.value.code == 0
        assert _mode(tmp_path / name) == umask, name


def test_a_downloaded_data_file_gets_the_umask_permissions(tmp_path, umask, monkeypatch):
    from biasatlas.benchmarks import fetch

    payload = b"sent_more,sent_less\n"
    spec = fetch.DataFile("pairs.csv", "https://example.invalid/pairs.csv", hashlib.sha256(payload).hexdigest())
    monkeypatch.delenv("BIASATLAS_DATA_DIR", raising=False)
    monkeypatch.setattr(fetch, "cache_dir", lambda: tmp_path / "cache")
    monkeypatch.setattr(fetch.urllib.request, "urlopen", lambda url, timeout: io.BytesIO(payload))
    path = fetch.locate(spec)
    assert path.read_bytes() == payload and _mode(path) == umask
